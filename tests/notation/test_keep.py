"""Tests for referee.notation.keep: order statistics against listing every roll."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from referee.notation.distributions import uniform
from referee.notation.keep import keep_ways, top_ways


def _listed(count: int, face_ways: dict[int, int], kept: int, highest: bool) -> dict[int, int]:
    """Ways of each kept sum, by listing every sequence of faces."""
    ways: Counter[int] = Counter()
    for faces in itertools.product(face_ways, repeat=count):
        weight = math.prod(face_ways[face] for face in faces)
        if weight:
            ways[sum(sorted(faces, reverse=highest)[:kept])] += weight
    return dict(ways)


@pytest.mark.parametrize(
    ("count", "sides", "kept"),
    [(5, 6, 2), (4, 6, 3), (6, 3, 4), (3, 4, 1), (2, 20, 1), (5, 6, 5), (4, 6, 0), (3, 1, 2)],
)
@pytest.mark.parametrize("highest", [True, False])
def test_top_ways_match_every_roll_of_fair_dice(
    count: int, sides: int, kept: int, highest: bool
) -> None:
    """kh/kl of fair dice (5d6kh2 among them) count exactly what listing all rolls counts."""
    found = top_ways(count, uniform(sides), kept, highest)
    assert (_listed(count, uniform(sides), kept, highest), sides**count) == (
        found.ways,
        found.denominator,
    )


@pytest.mark.parametrize("highest", [True, False])
def test_top_ways_weigh_faces(highest: bool) -> None:
    """Faces weighed unequally (rerolled dice), with gaps and a face never shown, count right."""
    faces = {1: 3, 2: 0, 4: 2, 7: 5, 9: 1}
    assert _listed(5, faces, 3, highest) == top_ways(5, faces, 3, highest).ways


def test_top_ways_agree_with_listing_placements() -> None:
    """The threshold count and the placement count (keep_ways) agree on 12d8kh5."""
    placements = keep_ways(12, uniform(8), frozenset(range(5)))
    assert {v: w for v, w in placements.ways.items() if w} == top_ways(12, uniform(8), 5).ways
