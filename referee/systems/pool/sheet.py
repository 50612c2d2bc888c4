"""``pool`` characters (RULES.md §2): the trait lists, the sheet, the state between posts.

* :class:`TraitLists` is the campaign's list of Attributes and Abilities. The seed
  fixes none, so a default set ships here and a campaign's config replaces it.
* :class:`Sheet` is what the GM approves: every trait 0-5 (a trait the sheet leaves
  out is 0, "never learned"), Willpower and Humanity 1-10.
* :class:`State` is what play changes: Willpower points, the free-botch flag, the
  turn of the last Willpower point, and the GM's free-form counters (health, blood,
  notes) shown on the roster.

Sheets and states are plain JSON through ``to_dict``/``from_dict``, each with a
``version`` so a later shape can still read old stores. Validation returns every
problem at once:

>>> lists = TraitLists()
>>> build_sheet("Kara", {"dex": 3, "stealth": 4, "willpower": 6, "humanity": 7}, lists).traits
{'dexterity': 3, 'stealth': 4}
>>> build_sheet("Kara", {"dex": 7, "lockpicks": 2}, lists)
Traceback (most recent call last):
...
referee.base.errors.RuleViolation: Kara's sheet has 2 problems:
- dexterity is 7: a trait is rated 0 to 5.
- 'lockpicks' is not a trait; the traits are strength, dexterity, ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee.base.errors import ConfigError, RuleViolation, StoreError, UserError
from referee.base.limits import DEFAULT_LIMITS
from referee.system.validation import check_version, problems_message
from referee.systems.changes import find_name

TRAIT_MIN, TRAIT_MAX = 0, 5  # "nunca aprendeu" to the human maximum
RATING_MIN, RATING_MAX = 1, 10  # Willpower and Humanity
WILLPOWER, HUMANITY = "willpower", "humanity"
MAX_COUNTERS = 20  # GM counters on one character
MAX_COUNTER_TEXT = 200  # characters in a text counter (notes)
SHEET_VERSION = 1
STATE_VERSION = 1

DEFAULT_ATTRIBUTES = (
    "strength",
    "dexterity",
    "stamina",
    "charisma",
    "manipulation",
    "appearance",
    "perception",
    "intelligence",
    "wits",
)
# The Storyteller family's usual Abilities, plus the seed's own examples (athletics,
# brawl, dodge, stealth, firearms, intimidation and, for its Star Wars game, lightsaber).
DEFAULT_ABILITIES = (
    "alertness",
    "athletics",
    "brawl",
    "dodge",
    "empathy",
    "expression",
    "intimidation",
    "leadership",
    "streetwise",
    "subterfuge",
    "drive",
    "etiquette",
    "firearms",
    "lightsaber",
    "melee",
    "performance",
    "security",
    "stealth",
    "survival",
    "academics",
    "computer",
    "investigation",
    "law",
    "medicine",
    "occult",
    "science",
    "technology",
)


class Kind(str, Enum):
    """What kind of trait a name is; it decides what it may be rolled with."""

    ATTRIBUTE = "attribute"
    ABILITY = "ability"
    RATING = "rating"  # Willpower or Humanity, 1-10, always rolled alone


@dataclass(frozen=True)
class TraitLists:
    """The campaign's Attributes and Abilities, lower-case, in the order sheets show them."""

    attributes: tuple[str, ...] = DEFAULT_ATTRIBUTES
    abilities: tuple[str, ...] = DEFAULT_ABILITIES

    @classmethod
    def from_mapping(cls, mapping: object) -> TraitLists:
        """The lists from config.toml (``attributes``, ``abilities``); ConfigError on any problem.

        >>> TraitLists.from_mapping({"abilities": ["Brawl", "Pilot"]}).abilities
        ('brawl', 'pilot')
        >>> TraitLists.from_mapping({"skills": []})
        Traceback (most recent call last):
        ...
        referee.base.errors.ConfigError: The pool trait list in config.toml has 1 problem:
        - 'skills' is not a key; the keys are attributes, abilities.
        """
        problems: list[str] = []
        values: dict[str, tuple[str, ...]] = {}
        if not isinstance(mapping, Mapping):
            raise ConfigError("The pool trait lists in config.toml must be a table.")
        for key, names in mapping.items():
            if key not in ("attributes", "abilities"):
                problems.append(f"{key!r} is not a key; the keys are attributes, abilities.")
            elif not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
                problems.append(f"{key} must be a list of names.")
            else:
                values[key] = tuple(" ".join(n.split()).casefold() for n in names)
        lists = cls(**values)
        problems += lists.problems()
        if problems:
            raise ConfigError(problems_message("The pool trait list in config.toml", problems))
        return lists

    def problems(self) -> list[str]:
        """Everything wrong with the lists: empty, duplicated, reserved or over-long names."""
        problems: list[str] = []
        if not self.attributes:
            problems.append("attributes is empty: a pool needs at least one Attribute.")
        seen: set[str] = set()
        for name in (*self.attributes, *self.abilities):
            if not name or len(name) > DEFAULT_LIMITS.max_name_chars:
                problems.append(f"{name!r}: a trait name has 1 to 64 characters.")
            elif name in (WILLPOWER, HUMANITY):
                problems.append(f"{name} is rated 1-10 on every sheet; do not list it.")
            elif name in seen:
                problems.append(f"{name} is listed twice.")
            seen.add(name)
        return problems

    def kind_of(self, name: str) -> Kind:
        """Whether ``name`` (as the lists spell it) is an Attribute, an Ability or a rating."""
        if name in self.attributes:
            return Kind.ATTRIBUTE
        if name in self.abilities:
            return Kind.ABILITY
        return Kind.RATING

    @property
    def every_name(self) -> tuple[str, ...]:
        """Every trait a roll may name, Willpower and Humanity last."""
        return (*self.attributes, *self.abilities, WILLPOWER, HUMANITY)


@dataclass(frozen=True)
class Sheet:
    """A character as the GM approved it; traits left out are rated 0."""

    name: str
    traits: Mapping[str, int] = field(default_factory=dict)  # Attributes and Abilities, 0-5
    willpower: int = 1  # the permanent rating, 1-10
    humanity: int = 7

    def rating(self, trait: str) -> int:
        """The permanent rating of any trait, Willpower and Humanity included."""
        if trait == WILLPOWER:
            return self.willpower
        if trait == HUMANITY:
            return self.humanity
        return self.traits.get(trait, 0)

    def to_dict(self) -> dict[str, Any]:
        """The sheet as JSON-ready data.

        >>> Sheet.from_dict(Sheet("Kara", {"wits": 2}, 5, 6).to_dict())
        Sheet(name='Kara', traits={'wits': 2}, willpower=5, humanity=6)
        """
        return {
            "version": SHEET_VERSION,
            "name": self.name,
            "traits": dict(self.traits),
            "willpower": self.willpower,
            "humanity": self.humanity,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Sheet:
        """A sheet from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        check_version(data, SHEET_VERSION, "pool sheet")
        try:
            return cls(
                name=str(data["name"]),
                traits={str(k): int(v) for k, v in data["traits"].items()},
                willpower=int(data["willpower"]),
                humanity=int(data["humanity"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pool sheet is malformed: {error!r}") from error


Counter = int | str  # a GM counter: a number (health, blood) or a short note


@dataclass(frozen=True)
class State:
    """What play changes on a character, kept between posts."""

    willpower_points: int  # temporary points, 0 to the Willpower rating
    free_botch_used: bool = False  # spent this session
    willpower_turn: str | None = None  # the turn the last point was spent in (one a turn)
    counters: Mapping[str, Counter] = field(default_factory=dict)  # health, blood, notes
    acted_turn: str | None = None  # the turn of the last action (one a turn, unless declared)

    @classmethod
    def fresh(cls, sheet: Sheet) -> State:
        """A new character's state: every Willpower point, no botch spent, no counters."""
        return cls(willpower_points=sheet.willpower)

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON-ready data.

        >>> State.from_dict(State(3, True, "t1", {"health": 7}).to_dict()).counters
        {'health': 7}
        """
        return {
            "version": STATE_VERSION,
            "willpower_points": self.willpower_points,
            "free_botch_used": self.free_botch_used,
            "willpower_turn": self.willpower_turn,
            "counters": dict(self.counters),
            "acted_turn": self.acted_turn,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> State:
        """A state from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        check_version(data, STATE_VERSION, "pool state")
        try:
            turn = data["willpower_turn"]
            counters = data["counters"]
            if not all(isinstance(v, (int, str)) for v in counters.values()):
                raise ValueError("a counter is a number or a text")
            return cls(
                willpower_points=int(data["willpower_points"]),
                free_botch_used=bool(data["free_botch_used"]),
                willpower_turn=None if turn is None else str(turn),
                counters={str(k): v for k, v in counters.items()},
                acted_turn=_text_or_none(data.get("acted_turn")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pool state is malformed: {error!r}") from error


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _rating_problem(what: str, value: object, low: int, high: int) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"{what} is {value!r}: write a whole number from {low} to {high}."
    if not low <= value <= high:
        return f"{what} is {value}: {'a trait' if high == TRAIT_MAX else what} is rated " + (
            f"{low} to {high}."
        )
    return None


def sheet_problems(sheet: Sheet, lists: TraitLists) -> list[str]:
    """Everything wrong with ``sheet`` under the campaign's lists, all at once.

    >>> sheet_problems(Sheet("Kara", {"wits": 6}, willpower=0), TraitLists())
    ['wits is 6: a trait is rated 0 to 5.', 'willpower is 0: willpower is rated 1 to 10.']
    """
    problems: list[str] = []
    if not sheet.name.strip() or len(sheet.name) > DEFAULT_LIMITS.max_name_chars:
        problems.append(f"a name has 1 to {DEFAULT_LIMITS.max_name_chars} characters.")
    known = (*lists.attributes, *lists.abilities)
    for trait, value in sheet.traits.items():
        if trait not in known:
            problems.append(f"{trait!r} is not a trait of this campaign.")
            continue
        problem = _rating_problem(trait, value, TRAIT_MIN, TRAIT_MAX)
        if problem:
            problems.append(problem)
    for what, value in ((WILLPOWER, sheet.willpower), (HUMANITY, sheet.humanity)):
        problem = _rating_problem(what, value, RATING_MIN, RATING_MAX)
        if problem:
            problems.append(problem)
    return problems


def state_problems(state: State, sheet: Sheet) -> list[str]:
    """Everything wrong with a GM's edit of ``state``, all at once.

    >>> state_problems(State(9, counters={"blood": 3}), Sheet("Kara", willpower=6))
    ['Willpower points are 9: Kara has 0 to 6 (the rating).']
    """
    problems: list[str] = []
    points = state.willpower_points
    if (
        isinstance(points, bool)
        or not isinstance(points, int)
        or not 0 <= points <= sheet.willpower
    ):
        problems.append(
            f"Willpower points are {points!r}: {sheet.name} has 0 to {sheet.willpower} "
            "(the rating)."
        )
    if len(state.counters) > MAX_COUNTERS:
        problems.append(
            f"{len(state.counters)} counters: a character keeps at most {MAX_COUNTERS}."
        )
    for name, value in state.counters.items():
        if not name.strip() or len(name) > DEFAULT_LIMITS.max_name_chars:
            problems.append(
                f"a counter's name has 1 to {DEFAULT_LIMITS.max_name_chars} characters."
            )
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            problems.append(f"counter {name} is {value!r}: write a number or a short text.")
        elif isinstance(value, int) and abs(value) > DEFAULT_LIMITS.max_modifier:
            problems.append(f"counter {name} is {value}: at most {DEFAULT_LIMITS.max_modifier}.")
        elif isinstance(value, str) and len(value) > MAX_COUNTER_TEXT:
            problems.append(f"counter {name} has over {MAX_COUNTER_TEXT} characters.")
    return problems


def build_sheet(name: str, ratings: Mapping[str, object], lists: TraitLists) -> Sheet:
    """A sheet from an application's ``trait: rating`` pairs; RuleViolation listing every problem.

    Trait names are matched like any name a player types (any case, a unique
    beginning); ``willpower`` and ``humanity`` default to 1 and 7 when left out.
    """
    problems: list[str] = []
    values: dict[str, int] = {WILLPOWER: 1, HUMANITY: 7}
    given: set[str] = set()
    for typed, value in ratings.items():
        try:
            trait = find_name(str(typed), lists.every_name, "trait")
        except UserError as error:
            problems.append(error.message)
            continue
        if trait in given:
            problems.append(f"{trait} is given twice.")
            continue
        given.add(trait)
        low, high = (RATING_MIN, RATING_MAX) if trait in values else (TRAIT_MIN, TRAIT_MAX)
        problem = _rating_problem(trait, value, low, high)
        if problem:
            problems.append(problem)
        else:
            values[trait] = value  # type: ignore[assignment]
    willpower, humanity = values.pop(WILLPOWER), values.pop(HUMANITY)
    sheet = Sheet(name, values, willpower, humanity)
    problems += [p for p in sheet_problems(sheet, lists) if p not in problems]
    if problems:
        raise RuleViolation(problems_message(f"{name}'s sheet", problems))
    return sheet
