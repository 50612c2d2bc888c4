"""A test's stated chance: exact within the budget, else an estimate whose precision holds."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from referee.base.dice import SeededDice
from referee.base.effort import Effort, metered
from referee.base.limits import Limits
from referee.read.tags import Tag
from referee.render.renderer import Renderer
from referee.resolve.verdicts import Verdict
from referee.systems.trikus import chance as chance_module
from referee.systems.trikus.chance import (
    NOT_COMPUTED,
    Cancels,
    Chance,
    describe,
    success_chances,
)
from referee.systems.trikus.duel import (
    DieKind,
    Entrant,
    PairEnd,
    play,
    prepare,
    rollers,
    start,
    throw,
    together_side,
)
from referee.systems.trikus.odds import end_chances
from referee.systems.trikus.odds_count import count_ends, plain
from referee.systems.trikus.odds_sample import estimate, plain_duel, trigger_duel
from referee.systems.trikus.policy import Policy
from referee.systems.trikus.pvp import resolve_pvp
from referee.systems.trikus.rulings import Consent, DeadTie, Rulings, TogetherTie
from referee.systems.trikus.state import Party
from referee.systems.trikus.system import SYSTEM
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

from .conftest import make_character

ALWAYS = Rulings(negotiation_consent=Consent.ALWAYS)
TIGHT = Limits(max_chance_steps=20_000)  # too few steps to count, enough to estimate coarsely


def line(name: str, dice: int, **triggers) -> Entrant:
    return Entrant(name, (DieKind.LINE,) * dice, **triggers)


@pytest.fixture(autouse=True)
def forget_kept_chances():
    """Each test works its chances out anew (they are kept per shape between tags)."""
    chance_module._KEPT.clear()
    yield
    chance_module._KEPT.clear()


# --- the fact the estimate rests on ---------------------------------------------------


def _highest_wins(gm_dice: tuple[int, ...], pools: tuple[tuple[int, ...], ...], together) -> bool:
    """Play the duel on each side's own dice (duel.py's functions); check every untied pair."""
    entrants = tuple(line(f"P{i}", len(p)) for i, p in enumerate(pools))
    state, used, taken, voids = start(len(gm_dice), entrants), 0, [0] * len(pools), [0] * len(pools)
    while True:
        state, _ = prepare(state, entrants)
        if state.over:
            break
        gm_rolls, players = rollers(state)
        die = gm_dice[used] if gm_rolls else None
        used += gm_rolls
        dice = {}
        for i in players:
            dice[i], taken[i] = pools[i][taken[i]], taken[i] + 1
        state, voided = throw(state, die, dice, together)
        for i in voided:
            voids[i] += 1
    for pool, end, void in zip(pools, state.ends, voids, strict=True):
        gm_top, top = max(gm_dice[void:], default=0), max(pool[void:], default=0)
        if gm_top != top and end is not (PairEnd.WON if top > gm_top else PairEnd.LOST):
            return False
    return True


@pytest.mark.parametrize("together", [TogetherTie.PLAYER, TogetherTie.GM])
@pytest.mark.parametrize(("gm", "pools"), [(2, (1, 1)), (1, (2, 1)), (3, (1,)), (1, (3,))])
def test_the_higher_top_die_wins_its_pair_every_die_enumerated(gm, pools, together) -> None:
    """Past its first-throw voids, the side with the higher top die (rolled or not) wins."""
    side = together_side(Rulings(together_tie=together))
    faces = range(1, 11)
    for dice in itertools.product(faces, repeat=gm + sum(pools)):
        cut = itertools.accumulate(pools, initial=gm)
        spans = list(zip(cut, itertools.accumulate(pools, initial=gm + pools[0]), strict=False))
        hands = tuple(dice[a:b] for a, b in spans[: len(pools)])
        assert _highest_wins(dice[:gm], hands, side), dice


# --- the seeded duels are the duel's own ----------------------------------------------


class _Recorded:
    """The same uniform draws for the transcriptions and, as faces, for duel.play."""

    def __init__(self, values: list[float]) -> None:
        self.values, self.used = values, 0

    def __call__(self) -> float:
        self.used += 1
        return self.values[self.used - 1]

    def roll(self, sides: int) -> int:
        return int(self() * sides) + 1


def test_the_seeded_duels_end_as_play_ends_them_die_for_die() -> None:
    """3,000 random tests, triggers and rulings of every kind: the same dice, the same ends."""
    rng = random.Random("trikus transcriptions")
    for _ in range(3000):
        players = tuple(
            line(
                f"P{i}",
                rng.randint(0, 4),
                light=rng.choice((0, 0, 1, 2)),
                escape=rng.choice((None, None, (1, rng.randint(1, 10)), (2, rng.randint(1, 10)))),
                negotiate=rng.choice((None, None, rng.randint(1, 10))),
                gm_negotiate=rng.choice((None, None, rng.randint(1, 10))),
            )
            for i in range(rng.randint(1, 4))
        )
        if not any(len(p.hand) + p.light for p in players):
            continue
        if len(players) == 1 and rng.random() < 0.5:  # a duel: the other side may escape
            escape = (rng.randint(1, 3), rng.randint(1, 10), rng.randint(0, 1))
            players = (replace(players[0], gm_escape=escape),)
        rulings = Rulings(
            together_tie=rng.choice(list(TogetherTie)),
            negotiation_consent=rng.choice((Consent.ALWAYS, Consent.NEVER)),
            negotiations_per_test=rng.randint(0, 2),
        )
        gm = rng.randint(1, 5)
        draws = [rng.random() for _ in range(400)]
        expected = play(gm, players, _Recorded(draws), rulings).ends
        assert expected == trigger_duel(gm, players, rulings, True, _Recorded(draws)).ends
        if plain(players):
            pools = [len(p.hand) + p.light for p in players]
            together = rulings.together_tie is TogetherTie.PLAYER
            assert expected == plain_duel(gm, pools, together, _Recorded(draws)).ends


def test_a_refused_proposal_is_played_as_the_duel_plays_it() -> None:
    """Under "ask", the GM saying no to every proposal (its own, which a player who declared
    ``accept`` agreed to, stand): the transcription agrees with duel.play."""
    rng = random.Random("refused")
    players = (line("P", 3, negotiate=6), line("Z", 2, gm_negotiate=5), line("M", 2))
    for _ in range(500):
        draws = [rng.random() for _ in range(200)]
        expected = play(4, players, _Recorded(draws), Rulings(), (False,) * 30).ends
        assert expected == trigger_duel(4, players, Rulings(), False, _Recorded(draws)).ends


# --- the estimate's stated precision holds --------------------------------------------

GRID = [  # (GM dice, players, rulings): exact counts known, estimated from seeded duels
    (5, tuple(line(n, 3) for n in "PZMK"), Rulings()),
    (4, (line("P", 3), line("Z", 2), line("M", 1), line("K", 1)), Rulings()),
    (5, (line("P", 5), line("Z", 3), line("M", 3)), Rulings()),
    (3, (line("P", 2), line("Z", 3), line("M", 1)), Rulings(together_tie=TogetherTie.GM)),
    (6, (line("P", 3), line("Z", 3)), Rulings()),
    (2, (line("P", 1),) * 4, Rulings(dead_tie=DeadTie.NONE)),
    (5, (line("P", 1), line("Z", 2), line("M", 3)), Rulings()),
    (1, (line("P", 3), line("Z", 1)), Rulings()),
    (4, (line("P", 3, escape=(1, 8)), line("Z", 3), line("M", 3)), Rulings()),
    (2, (line("P", 3, negotiate=8), line("Z", 3), line("M", 2)), Rulings()),
    (3, (line("P", 2, light=1, escape=(1, 9)), line("Z", 3, gm_negotiate=7)), ALWAYS),
    (4, (line("P", 1, light=2), line("Z", 3), line("M", 2, light=1)), Rulings()),
]


def test_estimates_hold_their_stated_precision_over_a_grid_of_tests() -> None:
    """Seeded estimates against exact counts: within the precision the verdict states (at
    most half a point) for at least 90% of the players, and never twice past it."""
    inside, compared = 0, 0
    for number, (gm, players, rulings) in enumerate(GRID):
        exact = count_ends(gm, players, rulings, Effort(10**8))[PairEnd.WON]
        classes = {}
        kinds = [classes.setdefault(replace(p, name=""), len(classes)) for p in players]
        estimates = estimate(
            gm,
            players,
            rulings,
            lambda ends: [end is PairEnd.WON for end in ends],
            [(i, False) for i in range(len(players))],
            kinds,
            f"grid {number}",
            Effort(2_000_000),
            0.0045,  # coarser than a verdict's, for time: the margin holds at any target
        )
        for found, p in zip(estimates, exact, strict=True):
            stated = float(describe(found).split("±")[1].split(" ")[0]) / 100
            assert stated <= 0.005
            error = abs(found.value - float(p))
            assert error <= 2 * stated, (gm, players, found, float(p))
            inside += error <= stated
            compared += 1
    assert inside >= 0.9 * compared


def test_an_estimate_is_the_same_on_every_run() -> None:
    """Seeded by the test itself: worked out twice anew, the same figure and precision."""
    players = (line("P", 3), line("Z", 3), line("M", 3))
    first = success_chances(5, players, Rulings(), limits=TIGHT)
    chance_module._KEPT.clear()
    again = success_chances(5, players, Rulings(), limits=TIGHT)
    assert first == again
    assert all(c is not None and c.exact is None and c.margin > 0 for c in first)


def test_within_the_budget_the_chance_is_exact() -> None:
    """The party of four Masters against the GM's 5 dice is counted, not estimated."""
    found = success_chances(5, tuple(line(n, 3) for n in "PZMK"), Rulings())
    assert (Fraction(58291554324029, 160000000000000),) * 4 == tuple(c.exact for c in found)


def test_a_count_that_can_finish_is_not_starved_by_the_estimate() -> None:
    """After the estimate's first duels, a promising count may use every step the estimate
    does not need for 0.4 points: a Master with 2 Morale and two Masters against 5 dice."""
    players = (
        Entrant("P", (DieKind.LINE,) * 3 + (DieKind.MORALE,) * 2),
        line("Z", 3),
        line("M", 3),
    )
    found = success_chances(5, players, Rulings())
    exact = count_ends(5, players, Rulings(), Effort(10**8))[PairEnd.WON]
    assert found == tuple(Chance(p) for p in exact)


def test_a_party_of_every_trigger_and_a_cancel_gets_half_a_point_or_better() -> None:
    """Morale, an escape, a Negotiation and a cancel in one party of four against 5 dice:
    too costly to count, so every chance is estimated, each within half a point."""
    players = (
        Entrant("P", (DieKind.LINE,) * 3 + (DieKind.MORALE,)),
        Entrant("Z", (DieKind.LINE,) * 3 + (DieKind.MORALE,), escape=(1, 9)),
        line("M", 3, negotiate=8),
        line("K", 3),
    )

    def settle(ends) -> set[int]:  # P gives up his Success to cancel Z's Failure
        won = {i for i, end in ends.items() if end is PairEnd.WON}
        if 0 in won and ends[1] is PairEnd.LOST:
            won.discard(0)
        return won

    found = success_chances(5, players, Rulings(), cancels=Cancels((1, None, None, None), settle))
    for chance in found:
        assert chance is not None and chance.exact is None
        stated = float(describe(chance).split("±")[1].split(" ")[0])
        assert stated <= 0.5, describe(chance)


def test_past_the_budget_the_chance_is_estimated_and_the_steps_are_bounded() -> None:
    """With too few steps to count, an estimate, and no more steps spent than the budget."""
    players = (line("P", 3), line("Z", 3))
    with metered(10) as post:
        found = success_chances(5, players, Rulings(), limits=TIGHT)
        allowance = post.side("chance", TIGHT.max_post_chance_steps)
    assert all(c.exact is None for c in found)
    assert 0 < allowance.spent <= TIGHT.max_chance_steps
    exact = end_chances(5, players)[PairEnd.WON][0]
    assert abs(found[0].value - float(exact)) <= 2 * found[0].margin


def test_a_post_spends_its_allowance_then_states_why_there_is_no_chance() -> None:
    """Tests past the post's allowance for chances state none, and say why."""
    limits = Limits(max_chance_steps=20_000, max_post_chance_steps=30_000)
    players = (line("P", 3), line("Z", 3))
    with metered(10):
        first = success_chances(5, players, Rulings(), limits=limits)
        second = success_chances(6, players, Rulings(), limits=limits)
        third = success_chances(7, players, Rulings(), limits=limits)
    assert first[0] is not None and (None, None) == third
    assert second[0] is None or second[0].margin >= first[0].margin
    assert "the tests before it in this post" in NOT_COMPUTED


def test_the_chance_reads_exact_or_estimated_with_its_precision() -> None:
    """Exact: a percentage; estimated: ≈, with its 95% half-width in points."""
    assert "36.4%" == describe(Chance(Fraction(58291554324029, 160000000000000)))
    assert "≈ 52.9%, estimated, ±0.3 points at 95%" == describe(Chance(0.5293, 0.0026, 8000))
    assert "≈ 2.0%, estimated, ±0.1 points at 95%" == describe(Chance(0.0199, 0.0004, 8000))
    assert NOT_COMPUTED == describe(None)


def test_a_verdict_states_an_estimate_with_its_precision(tmp_path: Path) -> None:
    """Four Masters, two with Morale and Light, against 5: past the count's budget, the
    verdict says ≈, estimated, and the precision, for each player."""
    sheets = [
        {
            "name": name,
            "owner": name.lower(),
            "tier": "master",
            "light_sides": ["wise"],
            "dark_sides": ["proud", "cold", "cruel"],
            "morale": 2,
            "light": 1,
        }
        for name in ("Ada", "Bo", "Cy", "Di")
    ]
    campaign = make_campaign(tmp_path, sheets, system="trikus")
    try:

        def tag(text: str, author: str = "gm", dice=()):
            return resolve_tag(tag_context(campaign, author, thread="t3_a"), text, dice)

        tag("open test 5 Ada, Bo, Cy, Di")
        tag("declare Ada morale=2", "ada")
        tag("declare Bo light=1", "bo")
        tag("declare Cy", "cy")
        done = tag("declare Di", "di", SeededDice("verdict"))
        text = Renderer(system=SYSTEM)._verdict(
            Verdict(Tag(0, "declare Di"), "r-1", done.kind, done.result), False
        )
    finally:
        campaign.close()
    stated = [line for line in text.splitlines() if "chance of Success" in line]
    assert 4 == len(stated)
    assert all(
        "≈" in line and ", estimated, ±" in line and "points at 95%)" in line for line in stated
    )


def test_both_duellists_escaping_get_an_estimated_chance() -> None:
    """A duel between players where both may escape: each side's chance is estimated."""
    party = Party((make_character("Ola", "master"), make_character("Zed", "master")))
    declared = [("Ola", Policy(escape=(1, 8))), ("Zed", Policy(escape=(1, 9)))]
    result = resolve_pvp(party, declared, SeededDice("both escape"))
    chances = [p.chance for p in result.participants]
    assert all(c is not None and c.exact is None and c.margin <= 0.005 for c in chances)
    assert 0.9 < sum(c.value for c in chances) < 1.0  # an escape is neither side's Success
