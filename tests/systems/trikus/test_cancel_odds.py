"""The stated chance under on_success=cancel (R-17, R-57): a Success given up is no Success.

Exact values come from enumerating every die a test can draw, through the code that
resolves it; seeded tests check the frequency of Success through ``resolve_test``.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from referee.base.dice import SeededDice
from referee.systems.trikus import opposed
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.duel import DieKind, Entrant, play
from referee.systems.trikus.odds import joint_ends
from referee.systems.trikus.opposed import resolve_test
from referee.systems.trikus.policy import Policy
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.rulings import Consent, DeadTie, Rulings
from referee.systems.trikus.state import Party
from referee.testing.odds import chi_square_p

from .conftest import make_character
from .enumerate_dice import Prefix, enumerate_dice


def line(name: str, dice: int, **triggers) -> Entrant:
    return Entrant(name, (DieKind.LINE,) * dice, **triggers)


ALWAYS = Rulings(negotiation_consent=Consent.ALWAYS)
JOINT = [  # (GM dice, players, rulings): small enough to enumerate every die
    (1, (line("P", 1), line("Z", 1), line("M", 1)), Rulings()),
    (2, (line("P", 1, light=1), line("Z", 1, escape=(1, 7))), Rulings(dead_tie=DeadTie.NONE)),
    (1, (line("P", 1, negotiate=6), line("Z", 1, gm_negotiate=4)), ALWAYS),
    (2, (line("P", 1), line("Z", 1)), Rulings()),
]


@pytest.mark.parametrize(("gm", "players", "rulings"), JOINT)
def test_joint_ends_are_the_enumerated_duels(gm: int, players, rulings: Rulings) -> None:
    """The joint ends of every pair equal the duel enumerated die by die, to the fraction."""
    everyone = tuple(range(len(players)))
    _, joint = joint_ends(gm, players, everyone, rulings)
    enumerated = enumerate_dice(lambda dice: play(gm, players, dice, rulings).ends)
    assert dict(enumerated) == joint


def _party() -> Party:
    """Three Beginners and an Advanced: one-die lines, and Z's two-die line."""
    return Party(
        (
            make_character("P", "beginner"),
            make_character("Z", "advanced"),
            make_character("M", "beginner"),
            make_character("K", "beginner"),
        )
    )


DECLARED = {  # cancel chains as resolve_test applies them, in declaration order
    "one cancels another": [("P", Policy(cancel="Z")), ("Z", Policy(line=1))],
    "each cancels the other": [("P", Policy(cancel="Z")), ("Z", Policy(line=1, cancel="P"))],
    "two cancel the same failure": [
        ("P", Policy(cancel="Z")),
        ("Z", Policy(line=1)),
        ("M", Policy(cancel="Z")),
    ],
    "a chain": [
        ("P", Policy(cancel="Z")),
        ("Z", Policy(line=1, cancel="M")),
        ("M", Policy()),
    ],
}


def _success_chances(gm: int, declared, party: Party) -> tuple[Fraction | None, ...]:
    """The exact chances resolve_test states (only the chances matter, not the dice)."""
    result = resolve_test(party, gm, declared, Prefix((1,) * 20))
    return tuple(p.chance.exact if p.chance else None for p in result.participants)


@pytest.mark.parametrize("name", DECLARED)
def test_the_stated_chance_is_the_enumerated_chance_of_success(name: str) -> None:
    """Every die enumerated through resolve_test: the stated chance is P(Success), exactly."""
    declared, party = DECLARED[name], _party()
    stated = _success_chances(1, declared, party)
    enumerated = enumerate_dice(
        lambda dice: tuple(
            p.outcome is Outcome.SUCCESS
            for p in resolve_test(party, 1, declared, dice, with_odds=False).participants
        )
    )
    exact = tuple(
        sum((p for won, p in enumerated.items() if won[i]), Fraction(0))
        for i in range(len(declared))
    )
    assert exact == stated


def test_a_cancelling_players_chance_is_below_his_pairs() -> None:
    """P's Success stands only when Z did not fail; Z's chance is unchanged by it."""
    party = _party()
    keeping = _success_chances(2, [("P", Policy()), ("Z", Policy(line=2))], party)
    cancelling = _success_chances(2, [("P", Policy(cancel="Z")), ("Z", Policy(line=2))], party)
    assert keeping[1] == cancelling[1]
    assert keeping[0] is not None and cancelling[0] is not None
    assert 0 < cancelling[0] < keeping[0]


def test_a_cancel_too_costly_to_follow_is_estimated_rather_than_stalling() -> None:
    """Three players of 3 dice against 4, one cancelling: past its budget, an estimate.

    Followed to the end this takes about 6 s of CPU (the joint ends of two players), so
    the verdict states an estimate from seeded duels, within half a point at 95%.
    """
    line3 = (DieKind.LINE,) * 3
    entrants = tuple(Entrant(name, line3) for name in ("P", "Z", "Q"))
    stated = opposed.chances(4, entrants, Rulings(), cancels=(1, None, None))
    assert [None, None, None] == [c.exact for c in stated]
    assert all(c.margin <= 0.005 for c in stated)
    # Q's Success is his own pair's, which the fast count states exactly.
    assert abs(stated[2].value - opposed.chances(4, entrants, Rulings())[2].value) <= 0.005


DUELS = 100_000
P_FLOOR = 1e-4


def test_seeded_tests_succeed_as_often_as_stated() -> None:
    """100,000 seeded tests: each player's Successes fit his stated chance (chi-square).

    Two players cancel Z's Failure, Z cancels M's, Z may escape and M spend Light. Each
    test is played and its outcomes settled as resolve_test settles them (the duel, each
    end's outcome, then the cancels), without the change set it also builds, which
    would make this test five times slower; the exact tests above go through it whole.
    """
    party = apply(_party(), [Change(ChangeKind.LIGHT_GRANTED, "M", 1)])
    declared = [
        ("P", Policy(cancel="Z")),
        ("Z", Policy(line=2, cancel="M", escape=(1, 9))),
        ("M", Policy(light=1)),
        ("K", Policy(cancel="Z")),
    ]
    stated = _success_chances(2, declared, party)
    rulings = Rulings()
    rolling = opposed.commit_all(party, declared, rulings)
    entrants = tuple(c.entrant((DieKind.LINE,) * c.line_dice, None) for c in rolling)
    dice = SeededDice("trikus-cancel")
    successes: Counter = Counter()
    for _ in range(DUELS):
        ends = play(2, entrants, dice, rulings).ends
        outcomes = {
            c.name: opposed._outcome(end, rulings) for c, end in zip(rolling, ends, strict=True)
        }
        opposed._cancel(rolling, outcomes)
        successes.update(name for name, o in outcomes.items() if o is Outcome.SUCCESS)
    for (name, _), chance in zip(declared, stated, strict=True):
        assert chance is not None
        observed = Counter({True: successes[name], False: DUELS - successes[name]})
        assert chi_square_p(observed, {True: chance, False: 1 - chance}, DUELS) > P_FLOOR
