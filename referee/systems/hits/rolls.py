"""Rolls of ``hits``: d6 pools, hits on 4+, exploding natural 6s, and the roll kinds of §5.

A pool is described by a :class:`PoolSpec` (dice, Advantage, Disadvantage) and rolled by
:func:`roll_pool` into a :class:`PoolRoll` holding every :class:`Die` in draw order.

**Draw order** (what :class:`referee.base.dice.FixedDice` must play back): first the base pool,
one d6 per die, in order; then one d6 per crit of the previous round, in order, round by
round (breadth first), exactly as §5.2 writes its vectors: ``6,6,5,1 +6,2 +4`` is the base
pool, then the two dice of its two crits, then the die of the crit among those. An
opposed roll draws each participant's whole pool (explosions included) in the listed
order, then the tied ones' rerolls the same way; a group roll each member's pool in order.

Advantage and Disadvantage follow R-23 (``face``: added to every die's face, crit dice
included; ``extra_dice``: one die more or less per point) and crits R-41 (``natural``:
only a natural 6 crits and it is a hit under any Disadvantage; ``modified``: a face of 6
or more after modifiers). Under ``modified`` a net Advantage of 5 makes every die crit for
ever, so such a roll is refused. Quick rolls never crit and never modify faces (R-45).

Readings of the seed kept as options or noted here:

* Quick roll: the seed gives "one die for each source of dice and Advantage"; R-45 makes
  each *point* of Advantage a die and each point of Disadvantage one die fewer, so a
  :class:`QuickSpec` counts points. A source of 0 dice is no source.
* All in under R-44 ``natural`` drops Disadvantage only; Advantage still raises faces
  ("cada valor acima de 3" speaks of the values rolled, which Advantage raises).
* Group rolls: R-42 ``roller`` does not say whose Level counts when rollers of different
  Levels tie for most hits; the added ``group_ties`` ruling does (default: the lower Level).

>>> from referee.base.dice import FixedDice
>>> roll = roll_pool(PoolSpec(4), FixedDice([6, 6, 5, 1, 6, 2, 4]))
>>> roll.hits, [d.face for d in roll.dice if d.from_crit]
(5, [6, 2, 4])
>>> level_outcome(roll.hits, level=1)
<Outcome.SUCCESS: 'success'>
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits

from .rulings import DEFAULT_RULINGS, AdvantageMode, AllIn, CritFace, GroupLevel, GroupTies, Rulings

SIDES = 6
HIT_AT = 4  # a face of 4 or more is a hit ("acima de 3")
CRIT_AT = 6
EXPLOSION_FACTOR = 10  # a pool may draw at most this many times Limits.max_dice, crits included
MAX_OPPOSED_ROUNDS = 1000  # a tie chain this long has odds below 1e-16 for any pool that can hit
MAX_PARTICIPANTS = 20  # rollers in one opposed or group roll


class Outcome(str, Enum):
    """The Level table of unstructured play (and the quick roll's 0 / 1 / 2+)."""

    FAIL = "fail"  # the character faces the Risk
    PARTIAL = "partial"  # the Reward, with great difficulty
    SUCCESS = "success"  # the Reward, and the player describes the scene


@dataclass(frozen=True)
class PoolSpec:
    """A roll before the dice fall: its dice and the points of Advantage and Disadvantage."""

    dice: int  # the attribute, or the sum of the named sources (a duel)
    advantage: int = 0
    disadvantage: int = 0


@dataclass(frozen=True)
class Die:
    """One d6 as it fell and what it counted for."""

    face: int  # the natural face
    value: int  # the face after Advantage and Disadvantage (R-23 face), else the face
    hit: bool
    crit: bool  # it added a die (never in a quick roll)
    from_crit: bool = False  # drawn because of an earlier crit: the `+` dice of §5.2


@dataclass(frozen=True)
class PoolRoll:
    """A rolled pool: every die in draw order."""

    spec: PoolSpec
    dice: tuple[Die, ...]
    redo: bool = False  # an All in redo, which cannot itself be redone

    @property
    def hits(self) -> int:
        return sum(d.hit for d in self.dice)

    @property
    def crits(self) -> int:
        return sum(d.crit for d in self.dice)


@dataclass(frozen=True)
class Thresholds:
    """Hits needed at a Level outside combat: Level + 1 for partial, twice that for success."""

    partial: int
    success: int


@dataclass(frozen=True)
class LevelRoll:
    """A roll judged by the Level table (unstructured play)."""

    roll: PoolRoll
    level: int
    outcome: Outcome


@dataclass(frozen=True)
class OpposedRoll:
    """An opposed roll: each round's rolls, ``None`` for those not rerolling (R-43)."""

    names: tuple[str, ...]
    rounds: tuple[tuple[PoolRoll | None, ...], ...]
    winners: tuple[str, ...]  # one name, or every tied name when the GM awards it to all
    awarded_to_all: bool = False  # the GM gave a tied, not mutually exclusive Reward to all


@dataclass(frozen=True)
class GroupRoll:
    """A group roll: every member's roll; the one with most hits counts."""

    names: tuple[str, ...]
    rolls: tuple[PoolRoll, ...]
    levels: tuple[int, ...]
    counting: int  # the index of the roll that counts
    level: int  # the Level whose thresholds judge it
    outcome: Outcome


@dataclass(frozen=True)
class QuickSpec:
    """A quick roll: the dice of each source, and the points of Advantage and Disadvantage."""

    sources: tuple[int, ...]  # what each source would give in a standard roll
    advantage: int = 0  # each point (or source) of Advantage adds a die
    disadvantage: int = 0  # each point removes a die


@dataclass(frozen=True)
class QuickRoll:
    """A quick roll: faces as they fell, no crits; 0 hits fail, 1 partial, 2+ success."""

    spec: QuickSpec
    faces: tuple[int, ...]

    @property
    def hits(self) -> int:
        return sum(face >= HIT_AT for face in self.faces)

    @property
    def outcome(self) -> Outcome:
        return quick_outcome(self.hits)


def round_up(value: Fraction | int | float) -> int:
    """§5's rounding: always up, so toward zero for a negative number.

    >>> round_up(Fraction(-5, 2)), round_up(Fraction(5, 2))
    (-2, 3)
    """
    return math.ceil(value)


def thresholds(level: int) -> Thresholds:
    """The Level table's thresholds: hits ≥ Level+1 partial, ≥ 2 × (Level+1) success.

    >>> thresholds(2)
    Thresholds(partial=3, success=6)
    """
    return Thresholds(level + 1, 2 * (level + 1))


def level_outcome(hits: int, level: int) -> Outcome:
    """The Level table outside combat."""
    needed = thresholds(level)
    if hits >= needed.success:
        return Outcome.SUCCESS
    if hits >= needed.partial:
        return Outcome.PARTIAL
    return Outcome.FAIL


def quick_outcome(hits: int) -> Outcome:
    """A quick roll's result: no hit fails, one is partial, more succeed."""
    return Outcome.SUCCESS if hits >= 2 else Outcome.PARTIAL if hits == 1 else Outcome.FAIL


def pool_shape(
    spec: PoolSpec, rulings: Rulings = DEFAULT_RULINGS, limits: Limits = DEFAULT_LIMITS
) -> tuple[int, int]:
    """(dice thrown, modifier on each face) for a spec under R-23; RuleViolation if out of bounds.

    >>> pool_shape(PoolSpec(4, advantage=1))
    (4, 1)
    >>> pool_shape(PoolSpec(4, advantage=1, disadvantage=3), Rulings(advantage="extra_dice"))
    (2, 0)
    """
    problems: list[str] = []
    if not 0 <= spec.dice <= limits.max_dice:
        problems.append(f"a pool holds 0 to {limits.max_dice} dice, not {spec.dice}")
    problems += _modifier_problems(spec.advantage, spec.disadvantage, limits)
    if problems:
        raise RuleViolation("; ".join(problems) + ".")
    if rulings.advantage == AdvantageMode.EXTRA_DICE:
        count = max(0, spec.dice + spec.advantage - spec.disadvantage)
        if count > limits.max_dice:
            raise RuleViolation(
                f"With Advantage the pool has {count} dice; at most {limits.max_dice} are allowed."
            )
        return count, 0
    modifier = spec.advantage - spec.disadvantage
    if rulings.crit_face == CritFace.MODIFIED and modifier >= CRIT_AT - 1:
        raise RuleViolation(
            f'Under crit_face = "modified" a net Advantage of {modifier} makes every die crit'
            " for ever; lower the Advantage below 5."
        )
    return spec.dice, modifier


def judge(face: int, modifier: int, rulings: Rulings, *, from_crit: bool = False) -> Die:
    """What one d6 counts for under R-23 (face modifier) and R-41 (which face crits)."""
    value = face + modifier
    crit = face == CRIT_AT if rulings.crit_face == CritFace.NATURAL else value >= CRIT_AT
    return Die(face, value, hit=crit or value >= HIT_AT, crit=crit, from_crit=from_crit)


def roll_pool(
    spec: PoolSpec,
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
    limits: Limits = DEFAULT_LIMITS,
) -> PoolRoll:
    """Roll a pool: the base dice, then one die per crit, round by round (see the module)."""
    count, modifier = pool_shape(spec, rulings, limits)
    cap = EXPLOSION_FACTOR * limits.max_dice
    rolled: list[Die] = []
    wave = [judge(dice.roll(SIDES), modifier, rulings) for _ in range(count)]
    while wave:
        rolled.extend(wave)
        if len(rolled) > cap:
            raise RuleViolation(f"The crits of this roll ran past {cap} dice; roll fewer dice.")
        wave = [judge(dice.roll(SIDES), modifier, rulings, from_crit=True) for d in wave if d.crit]
    return PoolRoll(spec, tuple(rolled))


def can_hit(
    spec: PoolSpec, rulings: Rulings = DEFAULT_RULINGS, limits: Limits = DEFAULT_LIMITS
) -> bool:
    """Whether a pool can score any hit at all (a pool of none ties for ever)."""
    count, modifier = pool_shape(spec, rulings, limits)
    return count > 0 and judge(CRIT_AT, modifier, rulings).hit


def roll_level(
    spec: PoolSpec, level: int, dice: DiceSource, rulings: Rulings = DEFAULT_RULINGS
) -> LevelRoll:
    """An unstructured roll judged by the Level table."""
    check_level(level)
    roll = roll_pool(spec, dice, rulings)
    return LevelRoll(roll, level, level_outcome(roll.hits, level))


def redo_spec(spec: PoolSpec, rulings: Rulings = DEFAULT_RULINGS) -> PoolSpec:
    """The pool an All in redoes under R-44: the same, or without Disadvantage (``natural``)."""
    return replace(spec, disadvantage=0) if rulings.all_in == AllIn.NATURAL else spec


def redo_pool(previous: PoolRoll, dice: DiceSource, rulings: Rulings = DEFAULT_RULINGS) -> PoolRoll:
    """All in: the roll redone; the new result stands. Refused for a roll already redone."""
    if previous.redo:
        raise RuleViolation("That roll was already redone with All in; a roll is redone once.")
    return replace(roll_pool(redo_spec(previous.spec, rulings), dice, rulings), redo=True)


def redo_level(
    previous: LevelRoll, dice: DiceSource, rulings: Rulings = DEFAULT_RULINGS
) -> LevelRoll:
    """All in on an unstructured roll: redone and judged again at the same Level."""
    roll = redo_pool(previous.roll, dice, rulings)
    return LevelRoll(roll, previous.level, level_outcome(roll.hits, previous.level))


def roll_opposed(
    sides: Sequence[tuple[str, PoolSpec]],
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
    *,
    award_ties_to_all: bool = False,
) -> OpposedRoll:
    """An opposed roll: most hits wins; those tied for most reroll (R-43) until one wins.

    With ``award_ties_to_all`` (the GM's call for a Reward that is not mutually exclusive)
    a first-round tie gives it to every tied roller instead.
    """
    names = _check_names([name for name, _ in sides], minimum=2)
    specs = [spec for _, spec in sides]
    if not any(can_hit(spec, rulings) for spec in specs):
        raise RuleViolation(
            "No side of this opposed roll can score a hit, so the tie would never end;"
            " the GM may award the Reward to all."
        )
    first = tuple(roll_pool(spec, dice, rulings) for spec in specs)
    return settle_opposed(names, specs, first, dice, rulings, award_ties_to_all=award_ties_to_all)


def settle_opposed(
    names: Sequence[str],
    specs: Sequence[PoolSpec],
    first: Sequence[PoolRoll],
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
    *,
    award_ties_to_all: bool = False,
) -> OpposedRoll:
    """An opposed roll from its first round on: most hits wins; those tied for most reroll
    (R-43) with ``dice`` until one wins, or (``award_ties_to_all``) all tied win.

    All in on an opposed roll redoes one roller's first-round roll, the others' standing,
    and settles it again from there.
    """
    rounds: list[tuple[PoolRoll | None, ...]] = [tuple(first)]
    while True:
        rolls = rounds[-1]
        best = max(r.hits for r in rolls if r is not None)
        rolling = [i for i, r in enumerate(rolls) if r is not None and r.hits == best]
        if len(rolling) == 1 or award_ties_to_all:
            winners = tuple(names[i] for i in rolling)
            return OpposedRoll(
                tuple(names), tuple(rounds), winners, award_ties_to_all and len(winners) > 1
            )
        if len(rounds) >= MAX_OPPOSED_ROUNDS:
            raise RuleViolation(f"The tie lasted {MAX_OPPOSED_ROUNDS} rounds; roll it again.")
        if not any(can_hit(specs[i], rulings) for i in rolling):
            raise RuleViolation(
                "No roller tied for most hits can score a hit, so the tie would never end;"
                " the GM may award the Reward to all."
            )
        again: list[PoolRoll | None] = [None] * len(specs)
        for index in rolling:
            again[index] = roll_pool(specs[index], dice, rulings)
        rounds.append(tuple(again))


def group_level(levels: Sequence[int], counting_level: int, rulings: Rulings) -> int:
    """The Level whose thresholds judge a group roll (R-42)."""
    return max(levels) if rulings.group_level == GroupLevel.HIGHEST else counting_level


def roll_group(
    members: Sequence[tuple[str, PoolSpec, int]],
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
) -> GroupRoll:
    """A group roll: each member rolls in order; the roll with most hits counts.

    Members are (name, pool, Level). Rollers of different Levels tied for most hits are
    settled by the added ``group_ties`` ruling (default: the lower Level, the better result).
    """
    names = _check_names([name for name, _, _ in members], minimum=1)
    levels = tuple(level for _, _, level in members)
    for level in levels:
        check_level(level)
    rolls = tuple(roll_pool(spec, dice, rulings) for _, spec, _ in members)
    best = max(r.hits for r in rolls)
    tied = [i for i, r in enumerate(rolls) if r.hits == best]
    sign = 1 if rulings.group_ties == GroupTies.LOWEST else -1
    counting = min(tied, key=lambda i: (sign * levels[i], i))
    level = group_level(levels, levels[counting], rulings)
    return GroupRoll(
        names, rolls, levels, counting, level, level_outcome(rolls[counting].hits, level)
    )


def quick_dice(spec: QuickSpec, limits: Limits = DEFAULT_LIMITS) -> int:
    """Dice of a quick roll: one per source (two for a source of 5+), ± Advantage (R-45).

    >>> quick_dice(QuickSpec((4,), advantage=1)), quick_dice(QuickSpec((5, 2)))
    (2, 3)
    """
    if len(spec.sources) > MAX_PARTICIPANTS:
        raise RuleViolation(f"A quick roll takes at most {MAX_PARTICIPANTS} sources.")
    problems = [
        f"a source gives 0 to {limits.max_dice} dice, not {s}"
        for s in spec.sources
        if not 0 <= s <= limits.max_dice
    ]
    problems += _modifier_problems(spec.advantage, spec.disadvantage, limits)
    if problems:
        raise RuleViolation("; ".join(problems) + ".")
    per_source = sum(2 if s >= 5 else 1 for s in spec.sources if s > 0)
    return max(0, per_source + spec.advantage - spec.disadvantage)


def roll_quick(spec: QuickSpec, dice: DiceSource, limits: Limits = DEFAULT_LIMITS) -> QuickRoll:
    """A quick roll: its dice in order, no crits, faces unmodified."""
    return QuickRoll(spec, tuple(dice.roll(SIDES) for _ in range(quick_dice(spec, limits))))


def _modifier_problems(advantage: int, disadvantage: int, limits: Limits) -> list[str]:
    """What is wrong with points of Advantage and Disadvantage (never negative, capped)."""
    return [
        f"{name} is 0 to {limits.max_modifier}, not {value}"
        for name, value in (("Advantage", advantage), ("Disadvantage", disadvantage))
        if not 0 <= value <= limits.max_modifier
    ]


def check_level(level: int) -> None:
    """RuleViolation unless ``level`` is a Level, 1 to 6."""
    if not 1 <= level <= 6:
        raise RuleViolation(f"A Level is from 1 to 6, not {level}.")


def _check_names(names: list[str], minimum: int) -> tuple[str, ...]:
    if not minimum <= len(names) <= MAX_PARTICIPANTS:
        raise RuleViolation(
            f"This roll takes {minimum} to {MAX_PARTICIPANTS} rollers, not {len(names)}."
        )
    folded = [name.casefold() for name in names]
    if len(set(folded)) != len(folded):
        raise RuleViolation("Each roller may appear once in the roll.")
    return tuple(names)
