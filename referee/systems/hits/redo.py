"""All in on a quick, opposed or group roll: what a character's last roll keeps, and its redo.

The seed's All in is "Refazer uma rolagem": redo *a* roll, any kind. R-44 (``ordinary``)
has a player redo only his own roll, once, with its modifiers; so All in on

* a **quick roll** rolls it again, as it was made (a die per source, ± Advantage);
* an **opposed roll** redoes the character's own first-round roll, the others' hits
  standing, and settles it again from there: most hits wins, those tied for most
  reroll (R-43), or the GM's ``tie=all`` awards a tie to all;
* a **group roll** redoes the character's own roll, the others' standing, and the roll
  with most hits counts again (R-42).

Each roller keeps the roll as his last roll (the store's ``hits_rolls``, by character);
a redo rewrites every roller's copy, so another roller's All in on the same roll sees it.
This module reads and writes those records and computes the redo; the handler pays the
Influence and checks the scene (:func:`.handlers.resolve_all_in`).

>>> from referee.base.dice import FixedDice
>>> kara, ogre = Side("Kara", (), PoolSpec(4)), Side("Ogre", (), PoolSpec(3))
>>> first = (roll_pool(kara.spec, FixedDice([1, 2, 3, 4])),
...          roll_pool(ogre.spec, FixedDice([5, 5, 1])))
>>> record = opposed_record((kara, ogre), first, False)
>>> redone = redo_opposed(record, "Kara", FixedDice([4, 5, 6, 1, 2]))
>>> [roll.hits for roll in redone.roll.rounds[0]], redone.roll.winners
([3, 2], ('Kara',))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits

from .odds import hits_distribution, opposed_odds, quick_odds
from .rolls import (
    Die,
    GroupRoll,
    OpposedRoll,
    Outcome,
    PoolRoll,
    PoolSpec,
    QuickRoll,
    QuickSpec,
    group_level,
    level_outcome,
    redo_spec,
    roll_pool,
    roll_quick,
    settle_opposed,
)
from .rulings import DEFAULT_RULINGS, GroupTies, Rulings
from .views import Side, Source

KINDS = ("quick", "opposed", "group")  # the rolls this module redoes


# -------------------------------------------------------------------------- records


def _die(die: Die) -> list[Any]:
    return [die.face, die.value, die.hit, die.crit, die.from_crit]


def _roll(roll: PoolRoll) -> list[list[Any]]:
    return [_die(die) for die in roll.dice]


def _side(side: Side) -> dict[str, Any]:
    return {
        "name": side.name,
        "sources": [[s.name, s.dice, s.advantage] for s in side.sources],
        "dice": side.spec.dice,
        "advantage": side.spec.advantage,
        "disadvantage": side.spec.disadvantage,
        "level": side.level,
    }


def side_from(data: Mapping[str, Any]) -> Side:
    """A roller as a record keeps him."""
    sources = tuple(
        Source(str(s[0]), int(s[1]), int(s[2]) if len(s) > 2 else 0) for s in data["sources"]
    )
    spec = PoolSpec(int(data["dice"]), int(data["advantage"]), int(data["disadvantage"]))
    return Side(str(data["name"]), sources, spec, int(data.get("level", 1)))


def roll_from(spec: PoolSpec, dice: Sequence[Sequence[Any]], redo: bool = False) -> PoolRoll:
    """A rolled pool as a record keeps it."""
    return PoolRoll(
        spec, tuple(Die(int(f), int(v), bool(h), bool(c), bool(x)) for f, v, h, c, x in dice), redo
    )


def quick_record(side: Side, spec: QuickSpec) -> dict[str, Any]:
    """What a quick roll keeps for All in: the roller and the quick roll's spec."""
    return {
        "kind": "quick",
        "side": _side(side),
        "quick": list(spec.sources),
        "quick_advantage": spec.advantage,
        "quick_disadvantage": spec.disadvantage,
        "redone": [],
    }


def opposed_record(
    sides: Sequence[Side], first: Sequence[PoolRoll], tie_all: bool
) -> dict[str, Any]:
    """What an opposed roll keeps: every side and its first-round roll, and the GM's tie=all."""
    return {
        "kind": "opposed",
        "sides": [
            {**_side(side), "roll": _roll(roll)} for side, roll in zip(sides, first, strict=True)
        ],
        "tie_all": tie_all,
        "redone": [],
    }


def group_record(sides: Sequence[Side], rolls: Sequence[PoolRoll]) -> dict[str, Any]:
    """What a group roll keeps: every member and his roll."""
    return {
        "kind": "group",
        "sides": [
            {**_side(side), "roll": _roll(roll)} for side, roll in zip(sides, rolls, strict=True)
        ],
        "redone": [],
    }


def _index(record: Mapping[str, Any], name: str) -> int:
    names = [str(side["name"]).casefold() for side in record["sides"]]
    return names.index(name.casefold())


def _redone(record: Mapping[str, Any], name: str, roll: PoolRoll | None = None) -> dict[str, Any]:
    """The record with ``name``'s roll redone (and, for several rollers, his new dice)."""
    after = {**record, "redone": [*record.get("redone", ()), name]}
    if roll is not None:
        sides = [dict(side) for side in record["sides"]]
        sides[_index(record, name)]["roll"] = _roll(roll)
        after["sides"] = sides
    return after


def check_not_redone(record: Mapping[str, Any], name: str) -> None:
    """Refuse a second All in on the same roll by the same roller (R-44: once per roll)."""
    done = [str(n).casefold() for n in record.get("redone", ())]
    if name.casefold() in done:
        raise RuleViolation(
            f"{name}'s last roll ({record.get('roll_id') or 'earlier'}) was already redone "
            "with All in; a roll is redone once."
        )


# --------------------------------------------------------------------------- redos


@dataclass(frozen=True)
class QuickRedo:
    """A quick roll redone: the roller, the spec and the new roll, and the record after."""

    side: Side
    spec: QuickSpec
    roll: QuickRoll
    odds: Mapping[Outcome, Fraction]
    record: dict[str, Any]


def redo_quick(
    record: Mapping[str, Any], name: str, dice: DiceSource, limits: Limits = DEFAULT_LIMITS
) -> QuickRedo:
    """The quick roll again, as it was made; the new result stands."""
    check_not_redone(record, name)
    spec = QuickSpec(
        tuple(int(s) for s in record["quick"]),
        int(record.get("quick_advantage", 0)),
        int(record.get("quick_disadvantage", 0)),
    )
    roll = roll_quick(spec, dice, limits)
    return QuickRedo(side_from(record["side"]), spec, roll, quick_odds(spec), _redone(record, name))


@dataclass(frozen=True)
class OpposedRedo:
    """An opposed roll settled again after one roller's redo."""

    sides: tuple[Side, ...]
    roll: OpposedRoll
    chances: dict[str, Fraction] | None  # winner (or "" for a tie awarded to all) -> chance
    record: dict[str, Any]


def redo_opposed(
    record: Mapping[str, Any], name: str, dice: DiceSource, rulings: Rulings = DEFAULT_RULINGS
) -> OpposedRedo:
    """``name``'s first-round roll redone, the others' standing; settled again (R-43)."""
    check_not_redone(record, name)
    sides = tuple(side_from(side) for side in record["sides"])
    mine = _index(record, name)
    first = [
        roll_from(side.spec, data["roll"])
        for side, data in zip(sides, record["sides"], strict=True)
    ]
    first[mine] = replace(roll_pool(redo_spec(sides[mine].spec, rulings), dice, rulings), redo=True)
    tie_all = bool(record.get("tie_all"))
    names = [side.name for side in sides]
    specs = [side.spec for side in sides]
    roll = settle_opposed(names, specs, first, dice, rulings, award_ties_to_all=tie_all)
    standing = [(i, first[i].hits) for i in range(len(sides)) if i != mine]
    chances = redone_opposed_chances(
        names, specs, mine, redo_spec(specs[mine], rulings), standing, tie_all, rulings
    )
    return OpposedRedo(sides, roll, chances, _redone(record, sides[mine].name, first[mine]))


def redone_opposed_chances(
    names: Sequence[str],
    specs: Sequence[PoolSpec],
    mine: int,
    redone: PoolSpec,
    standing: Sequence[tuple[int, int]],
    tie_all: bool,
    rulings: Rulings = DEFAULT_RULINGS,
) -> dict[str, Fraction] | None:
    """Exact chance of each end of an opposed roll when roller ``mine`` redoes his roll
    (``redone``) and the others' first-round hits stand (``standing``: index, hits).

    A tie for most is rerolled among those tied (R-43, by :func:`.odds.opposed_odds`),
    or awarded to all tied under ``tie_all`` (the key ``""``). None past the exact sums.

    >>> chances = redone_opposed_chances(("A", "B"), (PoolSpec(1), PoolSpec(1)), 0,
    ...                                  PoolSpec(1), [(1, 1)], tie_all=True)
    >>> {name: str(p) for name, p in chances.items()}
    {'A': '1/12', 'B': '1/2', '': '5/12'}
    """
    best = max(hits for _, hits in standing)
    tied = tuple(i for i, hits in standing if hits == best)
    dist = hits_distribution(redone, best + 1, rulings)
    below, level = sum(dist[:best], Fraction(0)), dist[best]
    above = 1 - below - level
    chances: dict[str, Fraction] = dict.fromkeys(names, Fraction(0))
    chances[names[mine]] += above

    def share(rollers: tuple[int, ...], p: Fraction) -> bool:
        if len(rollers) == 1:
            chances[names[rollers[0]]] += p
            return True
        if tie_all:
            chances[""] = chances.get("", Fraction(0)) + p
            return True
        odds = opposed_odds([specs[i] for i in rollers], rulings)
        if odds is None:
            return False
        for place, i in enumerate(rollers):
            chances[names[i]] += p * odds.wins[place]
        return True

    if not share(tied, below) or not share(tuple(sorted((*tied, mine))), level):
        return None
    return {name: p for name, p in chances.items() if p}


@dataclass(frozen=True)
class GroupRedo:
    """A group roll judged again after one member's redo."""

    sides: tuple[Side, ...]
    roll: GroupRoll
    odds: dict[Outcome, Fraction]
    record: dict[str, Any]


def _counting(hits: Sequence[int], levels: Sequence[int], rulings: Rulings) -> int:
    best = max(hits)
    tied = [i for i, h in enumerate(hits) if h == best]
    sign = 1 if rulings.group_ties == GroupTies.LOWEST else -1
    return min(tied, key=lambda i: (sign * levels[i], i))


def redo_group(
    record: Mapping[str, Any], name: str, dice: DiceSource, rulings: Rulings = DEFAULT_RULINGS
) -> GroupRedo:
    """``name``'s roll redone, the others' standing; the most hits counts again (R-42)."""
    check_not_redone(record, name)
    sides = tuple(side_from(side) for side in record["sides"])
    mine = _index(record, name)
    rolls = [
        roll_from(side.spec, data["roll"])
        for side, data in zip(sides, record["sides"], strict=True)
    ]
    spec = redo_spec(sides[mine].spec, rulings)
    rolls[mine] = replace(roll_pool(spec, dice, rulings), redo=True)
    levels = tuple(side.level for side in sides)
    counting = _counting([r.hits for r in rolls], levels, rulings)
    level = group_level(levels, levels[counting], rulings)
    roll = GroupRoll(
        tuple(side.name for side in sides),
        tuple(rolls),
        levels,
        counting,
        level,
        level_outcome(rolls[counting].hits, level),
    )
    odds = _redone_group_odds(spec, mine, [r.hits for r in rolls], levels, rulings)
    return GroupRedo(sides, roll, odds, _redone(record, sides[mine].name, rolls[mine]))


def _redone_group_odds(
    spec: PoolSpec, mine: int, hits: Sequence[int], levels: Sequence[int], rulings: Rulings
) -> dict[Outcome, Fraction]:
    """Exact chances of the group's outcome over the redone roll, the others' hits standing.

    Past the highest success threshold every count is a success, so the sum is finite.
    """
    top = max(2 * (level + 1) for level in levels) + max(hits)
    dist = hits_distribution(spec, top + 1, rulings)
    odds = dict.fromkeys(Outcome, Fraction(0))
    for k, p in enumerate(dist):
        counted = [*hits[:mine], k, *hits[mine + 1 :]]
        counting = _counting(counted, levels, rulings)
        level = group_level(levels, levels[counting], rulings)
        odds[level_outcome(counted[counting], level)] += p
    odds[Outcome.SUCCESS] += 1 - sum(dist, Fraction(0))
    return odds
