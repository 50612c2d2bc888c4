"""``edge`` characters (RULES.md §4.1): stats and counters as the campaign names them, advantage.

* :class:`StatLists`: the campaign's stats and counters. The seed fixes none, so the
  default set is Apocalypse World's five stats and three counters, and a campaign's
  config replaces them.
* :class:`Sheet`: what the GM approves: a value for each stat.
* :class:`State`: what play changes: the advantage die (1-6, starting at 1), the
  character's standing policy for it (R-39) and the counters.

Both are plain JSON through ``to_dict``/``from_dict``, with a ``version``.
Validation returns every problem at once:

>>> build_sheet("Kara", {"cool": 2, "hard": 5, "charm": 1}, StatLists())
Traceback (most recent call last):
...
referee.base.errors.RuleViolation: Kara's sheet has 2 problems:
- hard is 5: a stat is -3 to 3.
- 'charm' is not a stat; the stats are cool, hard, hot, sharp, weird.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.base.errors import ConfigError, RuleViolation, StoreError, UserError
from referee.base.limits import DEFAULT_LIMITS
from referee.system.validation import check_version, is_whole, problems_message
from referee.systems.changes import find_name
from referee.systems.edge.rulings import EdgeRulings, Policy

ADVANTAGE_MIN, ADVANTAGE_MAX = 1, 6  # the advantage die's faces
DEFAULT_STATS = ("cool", "hard", "hot", "sharp", "weird")  # Apocalypse World's
DEFAULT_COUNTERS = ("harm", "hold", "experience")
COUNTER_MIN, COUNTER_MAX = -99, 99
SHEET_VERSION = 1
STATE_VERSION = 1


@dataclass(frozen=True)
class StatLists:
    """The campaign's stats and counters (lower-case) and the range a stat may take."""

    stats: tuple[str, ...] = DEFAULT_STATS
    counters: tuple[str, ...] = DEFAULT_COUNTERS
    stat_min: int = -3
    stat_max: int = 3

    @classmethod
    def from_mapping(cls, mapping: object) -> StatLists:
        """The lists from config.toml; ConfigError naming every problem and the known keys.

        >>> StatLists.from_mapping({"stats": ["Str", "Dex"], "stat_max": 4}).stats
        ('str', 'dex')
        >>> StatLists.from_mapping({"moves": []})
        Traceback (most recent call last):
        ...
        referee.base.errors.ConfigError: The edge stat list in config.toml has 1 problem:
        - 'moves' is not a key; the keys are stats, counters, stat_min, stat_max.
        """
        if not isinstance(mapping, Mapping):
            raise ConfigError("The edge stat list in config.toml must be a table.")
        problems: list[str] = []
        values: dict[str, Any] = {}
        for key, value in mapping.items():
            if key in ("stats", "counters"):
                if isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value):
                    values[key] = tuple(" ".join(n.split()).casefold() for n in value)
                else:
                    problems.append(f"{key} must be a list of names.")
            elif key in ("stat_min", "stat_max"):
                if is_whole(value, -10, 10):
                    values[key] = value
                else:
                    problems.append(f"{key} = {value!r}: write a whole number from -10 to 10.")
            else:
                problems.append(
                    f"{key!r} is not a key; the keys are stats, counters, stat_min, stat_max."
                )
        lists = cls(**values)
        problems += lists.problems()
        if problems:
            raise ConfigError(problems_message("The edge stat list in config.toml", problems))
        return lists

    def problems(self) -> list[str]:
        """Everything wrong with the lists: empty, duplicated or over-long names, a bad range."""
        problems: list[str] = []
        if not self.stats:
            problems.append("stats is empty: a move needs at least one stat.")
        if self.stat_min > self.stat_max:
            problems.append(f"stat_min {self.stat_min} is above stat_max {self.stat_max}.")
        seen: set[str] = set()
        for name in (*self.stats, *self.counters):
            if not name or len(name) > DEFAULT_LIMITS.max_name_chars:
                problems.append(
                    f"{name!r}: a name has 1 to {DEFAULT_LIMITS.max_name_chars} characters."
                )
            elif name in seen:
                problems.append(
                    f"{name} is listed twice (stats and counters share one list of names)."
                )
            seen.add(name)
        return problems


@dataclass(frozen=True)
class Sheet:
    """A character as the GM approved it: a value for each stat (a stat left out is 0)."""

    name: str
    stats: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The sheet as JSON-ready data.

        >>> Sheet.from_dict(Sheet("Kara", {"cool": 2}).to_dict())
        Sheet(name='Kara', stats={'cool': 2})
        """
        return {"version": SHEET_VERSION, "name": self.name, "stats": dict(self.stats)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sheet:
        """A sheet from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        check_version(data, SHEET_VERSION, "edge sheet")
        try:
            return cls(str(data["name"]), {str(k): int(v) for k, v in data["stats"].items()})
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored edge sheet is malformed: {error!r}") from error


@dataclass(frozen=True)
class State:
    """What play changes on a character."""

    advantage: int = ADVANTAGE_MIN  # the advantage die's value, 1-6
    policy: Policy = Policy.UP  # when the advantage is spent, unless a roll says otherwise
    counters: Mapping[str, int] = field(default_factory=dict)  # a counter left out is 0

    @classmethod
    def fresh(cls, rulings: EdgeRulings) -> State:
        """A new character's state: advantage 1 and the campaign's default policy.

        >>> State.fresh(EdgeRulings(default_policy=Policy.HIT)).policy
        <Policy.HIT: 'hit'>
        """
        return cls(ADVANTAGE_MIN, rulings.default_policy)

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data.

        >>> State.from_dict(State(4, Policy.HIT, {"harm": 2}).to_dict())
        State(advantage=4, policy=<Policy.HIT: 'hit'>, counters={'harm': 2})
        """
        return {
            "version": STATE_VERSION,
            "advantage": self.advantage,
            "policy": self.policy.value,
            "counters": dict(self.counters),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """A state from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        check_version(data, STATE_VERSION, "edge state")
        try:
            return cls(
                advantage=int(data["advantage"]),
                policy=Policy(data["policy"]),
                counters={str(k): int(v) for k, v in data["counters"].items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored edge state is malformed: {error!r}") from error


def sheet_problems(sheet: Sheet, lists: StatLists) -> list[str]:
    """Everything wrong with ``sheet`` under the campaign's lists, all at once.

    >>> sheet_problems(Sheet("Kara", {"cool": 4, "luck": 1}), StatLists())
    ['cool is 4: a stat is -3 to 3.', "'luck' is not a stat of this campaign."]
    """
    problems: list[str] = []
    if not sheet.name.strip() or len(sheet.name) > DEFAULT_LIMITS.max_name_chars:
        problems.append(f"a name has 1 to {DEFAULT_LIMITS.max_name_chars} characters.")
    for stat, value in sheet.stats.items():
        if stat not in lists.stats:
            problems.append(f"{stat!r} is not a stat of this campaign.")
        elif not is_whole(value, lists.stat_min, lists.stat_max):
            problems.append(f"{stat} is {value!r}: a stat is {lists.stat_min} to {lists.stat_max}.")
    return problems


def state_problems(state: State, lists: StatLists) -> list[str]:
    """Everything wrong with a GM's edit of ``state``, all at once.

    >>> state_problems(State(7, counters={"harm": 2, "luck": 1}), StatLists())
    ['advantage is 7: the advantage die shows 1 to 6.', "'luck' is not a counter of this campaign."]
    """
    problems: list[str] = []
    if not is_whole(state.advantage, ADVANTAGE_MIN, ADVANTAGE_MAX):
        problems.append(f"advantage is {state.advantage!r}: the advantage die shows 1 to 6.")
    for counter, value in state.counters.items():
        if counter not in lists.counters:
            problems.append(f"{counter!r} is not a counter of this campaign.")
        elif not is_whole(value, COUNTER_MIN, COUNTER_MAX):
            problems.append(f"{counter} is {value!r}: a counter is {COUNTER_MIN} to {COUNTER_MAX}.")
    return problems


def build_sheet(name: str, values: Mapping[str, object], lists: StatLists) -> Sheet:
    """A sheet from an application's ``stat: value`` pairs; RuleViolation listing every problem."""
    problems: list[str] = []
    stats: dict[str, int] = {}
    given: set[str] = set()
    for typed, value in values.items():
        try:
            stat = find_name(str(typed), lists.stats, "stat")
        except UserError as error:
            problems.append(error.message)
            continue
        if stat in given:
            problems.append(f"{stat} is given twice.")
            continue
        given.add(stat)
        if not is_whole(value, lists.stat_min, lists.stat_max):
            problems.append(f"{stat} is {value!r}: a stat is {lists.stat_min} to {lists.stat_max}.")
        else:
            stats[stat] = value  # type: ignore[assignment]
    problems += [p for p in sheet_problems(Sheet(name, stats), lists) if p not in problems]
    if problems:
        raise RuleViolation(problems_message(f"{name}'s sheet", problems))
    return Sheet(name, stats)
