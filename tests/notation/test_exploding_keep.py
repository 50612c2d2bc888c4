"""Tests for referee.notation.exploding_keep: hot and cold faces against chains die by die."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.notation import parse_expression
from referee.notation.distributions import start_budget
from referee.notation.exploding_keep import exploding_keep
from referee.notation.explosion import chained
from referee.notation.tree import Dice


def _root(text: str) -> Dice:
    root = parse_expression(text).root
    assert isinstance(root, Dice)
    return root


@pytest.mark.parametrize(
    "text",
    [
        "4d6e6kh3",
        "3d6e>4kl2",
        "3d6e1ph1",
        "3d4e4ro1pl1",
        "3d6e6mi3kh2",
        "4d6e6kl5",
        "2d6e6ph1",
        "3d8e8ma6kh2",
    ],
)
def test_hot_and_cold_faces_match_chains_die_by_die(text: str) -> None:
    """Counting hot and cold groups gives each total's chance as following every die's
    chain does, within the two counts' stated precisions."""
    start_budget(2_000_000)  # the two counts compared, not what one tag may spend
    grouped, chains = exploding_keep(_root(text)), chained(_root(text))
    assert grouped is not None and chains is not None
    tolerance = Fraction(grouped.missing, grouped.denominator) + Fraction(
        chains.missing, chains.denominator
    )
    gaps = [
        abs(
            Fraction(grouped.ways.get(total, 0), grouped.denominator)
            - Fraction(chains.ways.get(total, 0), chains.denominator)
        )
        for total in set(grouped.ways) | set(chains.ways)
    ]
    assert max(gaps) <= tolerance


@pytest.mark.parametrize("text", ["4d6e>3ro4kh2", "4d6e6", "4d6kh3", "4d6ro1e6kh3", "4d6e6k>2"])
def test_other_shapes_are_left_to_the_general_count(text: str) -> None:
    """Interleaving groups, no keep, no explosion, rerolls before it: not this count's shape."""
    assert exploding_keep(_root(text)) is None
