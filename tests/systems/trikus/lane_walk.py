"""A reference for the exact trikus odds: the lane walk before stretches and the last die.

It walks the joint state of the lanes throw by throw, every throw (the GM's or not)
spread into joint states, as :mod:`referee.systems.trikus.odds` did before it took
a stretch of throws as one step and finished the GM's last die lane by lane. It shares
the per-lane steps (:class:`~referee.systems.trikus.odds._Lanes`), so it checks the
joint part: the tests require the same chances, fraction for fraction, on every case
it can do in a few seconds (it reaches further than the first recursion,
``joint_recursion.py``).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds import (
    _ENDS,
    _GM,
    _NOBODY,
    FACES,
    Lane,
    Step,
    _left,
    _times,
    lane_classes,
)
from referee.systems.trikus.rulings import Rulings

Joint = tuple[int, tuple[Lane, ...], tuple[PairEnd, ...]]


def walked_joint_ends(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    tracked: tuple[int, ...] = (),
    rulings: Rulings | None = None,
    assume_consent: bool = True,
) -> tuple[dict[PairEnd, tuple[Fraction, ...]], dict[tuple[PairEnd, ...], Fraction]]:
    """As :func:`~referee.systems.trikus.odds.joint_ends`, every throw a joint step."""
    rulings = rulings or Rulings()
    kinds, lanes, slots = lane_classes(entrants, tracked, rulings, assume_consent)
    per_test = rulings.negotiations_per_test
    rerolls = sum(
        per_test * ((e.negotiate is not None) + (e.gm_negotiate is not None)) for e in entrants
    )
    scale = SIDES ** (gm_dice + sum(len(e.hand) + e.light for e in entrants) + rerolls)
    counts: list[defaultdict[PairEnd, int]] = [defaultdict(int) for _ in lanes.entrants]
    joint_counts: defaultdict[tuple[PairEnd, ...], int] = defaultdict(int)
    first = tuple(
        sorted(
            Lane(k, _NOBODY, 0, 0, (), len(e.hand), e.light, 0, 0)
            for e, k in zip(entrants, kinds, strict=True)
        )
    )
    levels: dict[int, dict[Joint, int]] = defaultdict(dict)
    levels[_left(gm_dice, first)][gm_dice, first, (PairEnd.LIVE,) * len(slots)] = scale
    for level in range(_left(gm_dice, first), -1, -1):
        for (gm_left, joint, done), mass in levels.pop(level, {}).items():
            live: list[Lane] = []
            ended = list(done)
            for lane in joint:
                ready = lanes.prepared(lane, gm_left > 0)
                if isinstance(ready, PairEnd):
                    counts[lane.kind][ready] += mass
                    if lane.kind in slots:
                        ended[slots[lane.kind]] = ready
                else:
                    live.append(ready)
            if gm_left == 0 or len(live) == 1:
                spread: dict[tuple[PairEnd, ...], Fraction] = {done: Fraction(1)}
                for lane in joint:  # nothing couples the lanes any more
                    alone = lanes.alone(lane, gm_left)
                    if not isinstance(lanes.prepared(lane, gm_left > 0), PairEnd):
                        for end, chance in alone.items():
                            counts[lane.kind][end] += _times(mass, chance)
                    if lane.kind in slots:
                        slot = slots[lane.kind]
                        spread = {
                            (*key[:slot], end, *key[slot + 1 :]): c * p
                            for key, c in spread.items()
                            for end, p in alone.items()
                        }
                for key, chance in spread.items():
                    joint_counts[key] += _times(mass, chance)
                continue
            if not live:
                joint_counts[tuple(ended)] += mass
                continue
            gm_rolls = any(lane.control != _GM for lane in live)
            effects: dict[tuple[Step, ...], int] = defaultdict(int)
            for gm_die in FACES if gm_rolls else (None,):
                effects[tuple(lanes.step(lane, gm_die) for lane in live)] += 1
            left = gm_left - gm_rolls
            for steps, faces in effects.items():
                base = mass * faces // SIDES if gm_rolls else mass
                for combo in product(*steps):
                    m = base
                    for _, numerator, denominator in combo:
                        m = m * numerator // denominator
                    after = tuple(sorted([lane for lane, _, _ in combo]))
                    bucket = levels[_left(left, after)]
                    key = (left, after, tuple(ended))
                    bucket[key] = bucket.get(key, 0) + m
    size = [kinds.count(k) for k in range(len(lanes.entrants))]
    ends = {end: tuple(Fraction(counts[k][end], scale) / size[k] for k in kinds) for end in _ENDS}
    joint = {key: Fraction(m, scale) for key, m in joint_counts.items() if m}
    return ends, joint if tracked else {}
