"""The fast exact count of a test's odds: every die enumerated, the general walk, the budget."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from referee.base.effort import Effort
from referee.base.limits import DEFAULT_LIMITS
from referee.systems.trikus.duel import DieKind, Entrant, PairEnd, play
from referee.systems.trikus.odds import OddsTooCostly, end_chances
from referee.systems.trikus.odds_count import count_ends, plain
from referee.systems.trikus.rulings import Consent, DeadTie, Rulings, TogetherTie

from .enumerate_dice import enumerate_dice

ALWAYS = Rulings(negotiation_consent=Consent.ALWAYS)
PLENTY = 10**8  # steps: no budget, for the tests' own cases


def line(name: str, dice: int, **triggers) -> Entrant:
    return Entrant(name, (DieKind.LINE,) * dice, **triggers)


def counted(gm: int, players: tuple[Entrant, ...], rulings: Rulings) -> dict:
    return count_ends(gm, players, rulings, Effort(PLENTY))


ENUMERATED = [  # (GM dice, players, rulings): small enough to play every die through play()
    (1, (line("P", 1),), Rulings()),
    (2, (line("P", 2),), Rulings(together_tie=TogetherTie.GM)),
    (1, (line("P", 1), line("Z", 1), line("M", 1)), Rulings()),
    (2, (line("P", 1), line("Z", 1)), Rulings(together_tie=TogetherTie.GM)),
    (1, (line("P", 2), line("Z", 1)), Rulings(dead_tie=DeadTie.NONE)),
    (3, (line("P", 1),), Rulings()),
    (1, (line("P", 0, light=1), line("Z", 1, light=1)), Rulings()),
    (1, (line("P", 1, light=1), line("Z", 1, escape=(1, 7))), Rulings()),
    (1, (line("P", 1, negotiate=6), line("Z", 1, gm_negotiate=4)), ALWAYS),
]


@pytest.mark.parametrize(("gm", "players", "rulings"), ENUMERATED)
def test_the_count_is_every_die_played(gm: int, players, rulings: Rulings) -> None:
    """Each player's chance of each end equals the duel played over every die, exactly."""
    played = enumerate_dice(lambda dice: play(gm, players, dice, rulings).ends)
    expected = {
        end: tuple(
            sum((p for ends, p in played.items() if ends[i] is end), Fraction(0))
            for i in range(len(players))
        )
        for end in PairEnd
        if end is not PairEnd.LIVE
    }
    assert expected == counted(gm, players, rulings)


WALKED = [  # (GM dice, players, rulings): the general walk's cases, plain and with triggers
    (3, (line("P", 2), line("Z", 3), line("M", 1)), Rulings()),
    (3, (line("P", 3), line("Z", 3), line("M", 3)), Rulings(together_tie=TogetherTie.GM)),
    (4, (line("P", 2), line("Z", 2), line("M", 1), line("K", 1)), Rulings()),
    (3, (line("P", 3),) * 4, Rulings()),
    (2, (line("P", 1, light=1, escape=(1, 8)), line("Z", 2, negotiate=7)), ALWAYS),
    (
        2,
        (line("P", 2, gm_negotiate=6), line("Z", 2, light=1), line("M", 1)),
        Rulings(together_tie=TogetherTie.GM),
    ),
    (
        2,
        (
            line("P", 2, negotiate=8, escape=(2, 7)),
            line("Z", 2, gm_negotiate=5),
            line("M", 1, light=2),
        ),
        Rulings(dead_tie=DeadTie.NONE, negotiations_per_test=2),
    ),
    (
        3,
        (line("P", 1, negotiate=7), line("Z", 1, gm_negotiate=5), line("M", 1), line("K", 2)),
        Rulings(negotiation_consent=Consent.ALWAYS, dead_tie=DeadTie.NONE),
    ),
    (
        3,
        (line("P", 1), line("Z", 1, escape=(1, 8)), line("M", 1), line("K", 1, light=1)),
        Rulings(),
    ),
    (2, (line("P", 2, negotiate=5), line("Z", 2)), Rulings()),  # "ask": consent assumed
    (4, (line("P", 3, escape=(1, 8)), line("Z", 3), line("M", 3)), Rulings()),
]


@pytest.mark.parametrize(("gm", "players", "rulings"), WALKED)
def test_the_count_is_the_general_walks(gm: int, players, rulings: Rulings) -> None:
    """Larger tests: every end of every player equals the general walk's, to the fraction."""
    assert end_chances(gm, players, rulings, effort=Effort(PLENTY)) == counted(gm, players, rulings)


def test_a_refused_negotiation_counts_without_the_reroll() -> None:
    """Without assumed consent a proposal still counts toward R-22 but rerolls nothing."""
    players = (line("P", 2, negotiate=4), line("Z", 2), line("M", 1))
    walked = end_chances(3, players, Rulings(), assume_consent=False)
    assert walked == count_ends(3, players, Rulings(), Effort(PLENTY), assume_consent=False)


def test_four_masters_against_five_dice_are_counted_exactly() -> None:
    """The party of four Masters against the GM's 5 dice, within a verdict's budget."""
    masters = tuple(line(name, 3) for name in "PZMK")
    ends = count_ends(5, masters, Rulings(), Effort(DEFAULT_LIMITS.max_chance_steps))
    assert (Fraction(58291554324029, 160000000000000),) * 4 == ends[PairEnd.WON]


def test_light_tokens_and_dice_count_alike_without_triggers() -> None:
    """Without an escape to watch, a Light token is a die kept for when it is needed."""
    tokens = (line("P", 1, light=2), line("Z", 2, light=1))
    dice = (line("P", 3), line("Z", 3))
    assert plain(tokens)
    assert counted(3, dice, Rulings()) == counted(3, tokens, Rulings())


def test_the_budget_stops_the_count_and_says_so() -> None:
    """Past its steps the count raises, having spent its budget and no more."""
    effort = Effort(5_000)
    with pytest.raises(OddsTooCostly):
        count_ends(5, tuple(line(name, 3) for name in "PZMK"), Rulings(), effort)
    assert 5_000 == effort.spent


def test_a_test_too_deep_to_count_is_refused_at_once() -> None:
    """A thousand GM dice are not walked at all: nothing is spent before the refusal."""
    effort = Effort(PLENTY)
    with pytest.raises(OddsTooCostly):
        count_ends(1000, (line("P", 3),), Rulings(), effort)
    assert 0 == effort.spent


def test_players_with_equal_pools_share_their_class_fairly() -> None:
    """Interchangeable players get equal chances, and each player's ends sum to one."""
    ends = counted(4, (line("P", 2), line("Z", 3), line("M", 2), line("K", 1)), Rulings())
    totals = Counter()
    for chances in ends.values():
        for i, chance in enumerate(chances):
            totals[i] += chance
    assert (ends[PairEnd.WON][0], [1, 1, 1, 1]) == (ends[PairEnd.WON][2], list(totals.values()))
