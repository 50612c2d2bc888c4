"""Exact trikus odds: the §3.8 table, the first recursion's chances, seeded duels against them."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.effort import Effort
from referee.systems.trikus.duel import DieKind, Entrant, PairEnd, play
from referee.systems.trikus.odds import (
    STEPS_PER_UNIT,
    OddsTooCostly,
    end_chances,
    joint_ends,
    success_chances,
)
from referee.systems.trikus.rulings import Consent, DeadTie, Rulings, TogetherTie
from referee.testing.odds import chi_square_p

from .joint_recursion import reference_end_chances
from .lane_walk import walked_joint_ends

DUELS = 100_000
P_FLOOR = 1e-4

TABLE = {  # §3.8: P(player wins), player dice x GM dice, no resources
    (1, 1): Fraction(9, 20),
    (1, 2): Fraction(57, 200),
    (1, 3): Fraction(81, 400),
    (2, 1): Fraction(143, 200),
    (2, 2): Fraction(99, 200),
    (2, 3): Fraction(37521, 100000),
    (3, 1): Fraction(319, 400),
    (3, 2): Fraction(62479, 100000),
    (3, 3): Fraction(999, 2000),
}


def line(name: str, dice: int, **triggers) -> Entrant:
    return Entrant(name, (DieKind.LINE,) * dice, **triggers)


@pytest.mark.parametrize(("cell", "expected"), TABLE.items())
def test_the_probability_table(cell: tuple[int, int], expected: Fraction) -> None:
    """§3.8's table, exactly: first-throw ties void, a dead tie goes to the GM."""
    player, gm = cell
    assert (expected,) == success_chances(gm, (line("P", player),))


def test_dead_tie_none_moves_the_dead_ties_out_of_failure() -> None:
    """R-15 "none": one die each, the tenth of duels that tie end with no result."""
    ends = end_chances(1, (line("P", 1),), Rulings(dead_tie=DeadTie.NONE))
    assert (Fraction(1, 10),) == ends[PairEnd.DEAD_TIE]
    assert (Fraction(9, 20),) == ends[PairEnd.WON]


def test_a_light_token_plays_like_a_die_kept_for_when_it_is_needed() -> None:
    """light=1 on a 1-die line wins as often as a 2-die line: dice are rolled only when needed."""
    with_light = success_chances(2, (line("P", 1, light=1),))[0]
    assert Fraction(99, 200) == with_light


def test_team_odds_beyond_the_budget_are_refused() -> None:
    """A team test too large for the budget raises instead of stalling the worker."""
    players = tuple(line(n, 3) for n in "PZM")
    with pytest.raises(OddsTooCostly):
        success_chances(5, players, max_work=1000)


SETUPS = [  # (GM dice, players, rulings): one-on-one with triggers, and a team test
    (3, (line("P", 2),), Rulings()),
    (2, (line("P", 1, light=1, escape=(1, 8)),), Rulings()),
    (2, (line("P", 3, negotiate=9),), Rulings(negotiation_consent=Consent.ALWAYS)),
    (2, (line("P", 1), line("Z", 2, gm_negotiate=7)), Rulings()),
]


@pytest.mark.parametrize(("gm", "players", "rulings"), SETUPS)
def test_seeded_duels_match_the_exact_odds(gm: int, players, rulings: Rulings) -> None:
    """A quarter of 100,000 seeded duels per setup: every pair's ends pass a chi-square test."""
    exact = end_chances(gm, players, rulings)
    distribution = {
        (i, end): exact[end][i] for end in exact for i in range(len(players)) if exact[end][i]
    }
    dice = SeededDice(f"trikus-{gm}-{len(players)}")
    duels = DUELS // len(SETUPS)
    observed: Counter = Counter()
    for _ in range(duels):
        result = play(gm, players, dice, rulings)
        for i, end in enumerate(result.ends):
            observed[(i, end)] += 1
    for i in range(len(players)):
        mine = {end: p for (j, end), p in distribution.items() if j == i}
        counts = Counter({end.value: n for (j, end), n in observed.items() if j == i})
        assert chi_square_p(counts, _sortable(mine), duels) > P_FLOOR


def _sortable(chances: dict[PairEnd, Fraction]) -> dict:
    """The chi-square helper sorts outcomes; PairEnd values sort by name."""
    return {end.value: p for end, p in chances.items()}


@settings(max_examples=8, deadline=None)
@given(
    gm=st.integers(1, 2),
    dice=st.integers(0, 2),
    light=st.integers(0, 1),
    escape=st.none() | st.tuples(st.integers(1, 2), st.integers(1, 10)),
    negotiate=st.none() | st.integers(1, 10),
    gm_negotiate=st.none() | st.integers(1, 10),
    consent=st.sampled_from(list(Consent)),
)
def test_every_duel_ends_exactly_one_way(
    gm, dice, light, escape, negotiate, gm_negotiate, consent
) -> None:
    """Under any triggers, each pair's end chances are exact and sum to one."""
    player = line(
        "P", dice, light=light, escape=escape, negotiate=negotiate, gm_negotiate=gm_negotiate
    )
    ends = end_chances(gm, (player,), Rulings(negotiation_consent=consent))
    assert 1 == sum(chances[0] for chances in ends.values())


ALWAYS = Rulings(negotiation_consent=Consent.ALWAYS)
SMALL = [  # (GM dice, players, rulings): cases the first recursion solves in well under a second
    (1, (line("P", 2, escape=(1, 4)), line("Z", 1, light=1)), Rulings()),
    (2, (line("P", 1), line("Z", 2)), Rulings(together_tie=TogetherTie.GM)),
    (2, (line("P", 1, light=1, escape=(2, 5)), line("Z", 1, light=1)), Rulings()),
    (2, (line("P", 1), line("Z", 1), line("M", 1)), Rulings(dead_tie=DeadTie.NONE)),
    (2, (line("P", 1, escape=(1, 6)), line("Z", 1, escape=(1, 6)), line("M", 1)), Rulings()),
    (1, (line("P", 2, negotiate=6), line("Z", 1, gm_negotiate=5)), ALWAYS),
    (1, (line("P", 1, negotiate=7), line("Z", 1, negotiate=3)), ALWAYS),
    (1, (line("P", 1, gm_negotiate=4), line("Z", 2, light=1)), Rulings(negotiations_per_test=2)),
    (1, (line("P", 2, negotiate=5), line("Z", 1)), Rulings()),  # "ask": consent assumed
    (2, (line("P", 1, negotiate=8, escape=(1, 9)), line("Z", 1)), ALWAYS),
    (2, (line("P", 2, light=1, negotiate=9, gm_negotiate=8, escape=(2, 7)),), ALWAYS),
    (3, (line("P", 3, gm_negotiate=6, light=1),), Rulings(negotiations_per_test=2)),
    (2, (line("P", 0, light=2), line("Z", 2, light=1)), Rulings()),
]


@pytest.mark.parametrize(("gm", "players", "rulings"), SMALL)
def test_the_lanes_give_the_first_recursions_chances(gm: int, players, rulings: Rulings) -> None:
    """Lanes, lazy values, classes and lone lanes change nothing: every end, to the fraction."""
    assert reference_end_chances(gm, players, rulings) == end_chances(gm, players, rulings)


def test_a_refused_negotiation_is_odds_without_the_reroll() -> None:
    """Without assumed consent a proposal still counts toward R-22 but rerolls nothing."""
    players = (line("P", 2, negotiate=4), line("Z", 1))
    expected = reference_end_chances(2, players, Rulings(), assume_consent=False)
    assert expected == end_chances(2, players, Rulings(), assume_consent=False)


def test_players_with_the_same_declaration_share_their_class_fairly() -> None:
    """Interchangeable players get equal chances, and each player's ends sum to one."""
    ends = end_chances(3, (line("P", 2), line("Z", 2), line("M", 1)))
    won = ends[PairEnd.WON]
    totals = [sum(chances[i] for chances in ends.values()) for i in range(3)]
    assert (won[0], [1, 1, 1]) == (won[1], totals)


def test_the_walk_spends_from_the_effort_it_is_given() -> None:
    """GM 5 against three Masters: the general walk's work spent, three steps a unit."""
    effort = Effort(10**8)
    won = success_chances(5, tuple(line(n, 3) for n in "PZM"), effort=effort)
    assert (1, True) == (len(set(won)), 0 < won[0] < 1)
    assert 0 < effort.spent and 0 == effort.spent % STEPS_PER_UNIT


GRID = [  # (GM dice, players, rulings, tracked): every kind of trigger, ruling and cancel
    (3, (line("P", 2), line("Z", 3), line("M", 1)), Rulings(), ()),
    (3, (line("P", 3), line("Z", 3), line("M", 3)), Rulings(), ()),
    (3, (line("P", 2), line("Z", 2), line("M", 1), line("K", 1)), Rulings(), ()),
    (2, (line("P", 1, light=1, escape=(1, 8)), line("Z", 2, negotiate=7)), ALWAYS, ()),
    (
        2,
        (line("P", 2, gm_negotiate=6), line("Z", 2, light=1), line("M", 1)),
        Rulings(together_tie=TogetherTie.GM),
        (),
    ),
    (
        2,
        (
            line("P", 2, negotiate=8, escape=(2, 7)),
            line("Z", 2, gm_negotiate=5),
            line("M", 1, light=2),
        ),
        Rulings(dead_tie=DeadTie.NONE, negotiations_per_test=2),
        (),
    ),
    (3, (line("P", 1), line("Z", 1), line("M", 1)), Rulings(dead_tie=DeadTie.NONE), ()),
    (2, (line("P", 2, negotiate=5), line("Z", 2)), Rulings(), ()),  # "ask": consent assumed
    (3, (line("P", 1), line("Z", 2, escape=(1, 8)), line("M", 2)), Rulings(), (0, 1)),
    (
        2,
        (line("P", 1, negotiate=6), line("Z", 1, gm_negotiate=4), line("M", 2, light=1)),
        ALWAYS,
        (0, 1, 2),
    ),
]


GRID.append(  # four lanes: the last two GM dice finished apart, with joint ends
    (
        3,
        (line("P", 1), line("Z", 1, escape=(1, 8)), line("M", 1), line("K", 1, light=1)),
        Rulings(),
        (0, 1),
    )
)
GRID.append(
    (
        3,
        (line("P", 1, negotiate=7), line("Z", 1, gm_negotiate=5), line("M", 1), line("K", 2)),
        Rulings(negotiation_consent=Consent.ALWAYS, dead_tie=DeadTie.NONE),
        (),
    )
)


@pytest.mark.parametrize(("gm", "players", "rulings", "tracked"), GRID)
def test_stretches_and_the_last_die_change_no_chance(gm, players, rulings, tracked) -> None:
    """Every end, and the tracked players' joint ends, equal the walk that joins every throw."""
    assert walked_joint_ends(gm, players, tracked, rulings) == joint_ends(
        gm, players, tracked, rulings, effort=Effort(10**8, alone=True)
    )


def test_a_refused_negotiation_changes_nothing_in_the_stretches() -> None:
    """Without assumed consent (a proposal counted, no reroll) the chances still agree."""
    players = (line("P", 2, negotiate=4), line("Z", 2), line("M", 1))
    expected = walked_joint_ends(3, players, (), Rulings(), assume_consent=False)
    assert expected == joint_ends(3, players, (), Rulings(), assume_consent=False)
