"""Trikus state (RULES.md §3.7): characters, the party and a fight's carried pools, as values.

Everything here is a frozen dataclass; nothing mutates. A test returns a change set
(:mod:`.changes`) that :func:`~.changes.apply` turns into the next :class:`Party`.
:meth:`Party.to_dict` / :meth:`Party.from_dict` give the versioned JSON shape a store
keeps, and :func:`new_character` checks an application, reporting every problem at once.

>>> kara = new_character({"name": "Kara", "player": "u1", "tier": "advanced",
...     "light_sides": ["loyal", "brave"], "dark_sides": ["vain", "cruel"]})
>>> [line.dice for line in kara.lines], kara.exhausted
([2, 1], False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from referee.base.english import with_article
from referee.base.errors import RuleViolation, StoreError, UnknownName
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.system.validation import check_version, problems_message
from referee.systems.changes import find_name

STATE_VERSION = 1


class Tier(Enum):
    """A character's experience: it sets his lines and how many Light and Dark sides he has."""

    BEGINNER = "beginner"
    ADVANCED = "advanced"
    MASTER = "master"

    @property
    def rank(self) -> int:
        return _TIER_ORDER.index(self)

    @property
    def lines(self) -> tuple[int, ...]:
        """Dice per line, in sheet order (§3.1)."""
        return {Tier.BEGINNER: (1, 1, 1), Tier.ADVANCED: (2, 1), Tier.MASTER: (3,)}[self]

    @property
    def sides(self) -> tuple[int, int]:
        """How many (Light, Dark) sides the sheet lists (§3.5)."""
        return {Tier.BEGINNER: (3, 1), Tier.ADVANCED: (2, 2), Tier.MASTER: (1, 3)}[self]

    def advanced(self) -> Tier:
        """One tier up; a Master stays a Master."""
        return _TIER_ORDER[min(self.rank + 1, len(_TIER_ORDER) - 1)]


_TIER_ORDER = (Tier.BEGINNER, Tier.ADVANCED, Tier.MASTER)


class LineStatus(Enum):
    FREE = "free"
    STRUCK = "struck"  # used in a test; returns at the next refresh
    LOST = "lost"  # taken by a Catastrophe; returns when refreshes_left reaches 0


@dataclass(frozen=True)
class Line:
    """One line of the sheet: how many d10 a test on it rolls, and whether it may be used."""

    dice: int
    status: LineStatus = LineStatus.FREE
    refreshes_left: int = 0  # for a LOST line: party refreshes before it returns


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def line_name(lines: tuple[Line, ...], index: int) -> str:
    """How a verdict names one line: by its dice ("line 2" could be either of a 2/1 sheet).

    Lines of the same size are told apart by their place among them.

    >>> advanced, beginner = (Line(2), Line(1)), (Line(1), Line(1), Line(1))
    >>> line_name(advanced, 0), line_name(advanced, 1), line_name(beginner, 1)
    ('the 2-die line', 'the 1-die line', 'the second 1-die line')
    """
    dice = lines[index].dice
    same = [i for i, line in enumerate(lines) if line.dice == dice]
    if len(same) == 1:
        return f"the {dice}-die line"
    place = same.index(index)
    ordinal = _ORDINALS[place] if place < len(_ORDINALS) else f"no. {place + 1}"
    return f"the {ordinal} {dice}-die line"


class Trait(Enum):
    """One pip of an item (§3.5)."""

    OFFENSIVE = "offensive"  # lowers the Combat Difficulty of its owner's attack
    DEFENSIVE = "defensive"  # raises the Combat Difficulty of blows against its owner
    HELPFUL = "helpful"  # one more die in the combat pool
    ONE_USE = "one-use"  # spent after one use
    MEDITATION = "meditation"  # every player of the party gains a Morale die on use
    UNRELIABLE = "unreliable"  # lost when its owner fails
    BLACK_HOLE = "black-hole"  # its owner dies when he fails
    RENEWABLE = "renewable"  # a spent item the GM may renew
    SITH = "sith"  # +1 Dark token on use


@dataclass(frozen=True)
class Item:
    """Equipment: one to three pips, each a trait; ``known`` says which the owner has found."""

    name: str
    traits: tuple[Trait, ...]
    known: tuple[bool, ...] = ()  # one flag per trait; empty means all known
    spent: bool = False  # a one-use item after its use, until renewed

    def count(self, trait: Trait) -> int:
        return self.traits.count(trait)

    def knows(self, index: int) -> bool:
        return not self.known or self.known[index]


class Status(Enum):
    ACTIVE = "active"
    FALLEN = "fallen"  # turned to the Dark Side: now the GM's
    DEAD = "dead"  # the Master's sacrifice, or a black-hole item


@dataclass(frozen=True)
class Character:
    """A player character's sheet and resources (§3.7)."""

    name: str
    player: str  # the owner's user name
    tier: Tier
    lines: tuple[Line, ...]
    morale: int = 0
    light: int = 0  # Light tokens held
    dark_active: int = 0  # Dark tokens the GM has not spent yet; 3 turns him
    dark_used: int = 0
    light_sides: tuple[str, ...] = ()
    dark_sides: tuple[str, ...] = ()
    equipment: tuple[Item, ...] = ()
    allies: tuple[str, ...] = ()  # each ally adds one die to his combat pool
    status: Status = Status.ACTIVE
    light_received: int = 0  # over the character's life ("ilość otrzymanych Sztonów")
    dark_received: int = 0
    sides_due: bool = False  # advanced a tier: the sheet's sides must be written anew

    @property
    def free_lines(self) -> tuple[int, ...]:
        """Indexes of the lines he may strike."""
        return tuple(i for i, line in enumerate(self.lines) if line.status is LineStatus.FREE)

    @property
    def exhausted(self) -> bool:
        """Every line struck or lost: he tests only with Morale, Light or Empowerment."""
        return not self.free_lines

    @property
    def has_lost_line(self) -> bool:
        return any(line.status is LineStatus.LOST for line in self.lines)

    def item(self, name: str) -> Item | None:
        return next((item for item in self.equipment if item.name.lower() == name.lower()), None)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON record of one character (a store keeps one per character)."""
        return {"version": STATE_VERSION, **_encode(self)}

    @classmethod
    def from_dict(cls, data: object) -> Character:
        """The inverse of :meth:`to_dict`; StoreError on a record this version cannot read."""
        record = check_version(data, STATE_VERSION, "trikus character")
        try:
            return _decode_character(record)
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(f"A stored trikus character is damaged: {error!r}") from error


@dataclass(frozen=True)
class Pool:
    """One player's combat pool, carried between rounds (§3.4)."""

    name: str
    line_dice: int
    allies: tuple[str, ...] = ()  # each is one die of the pool; losing it kills the ally
    helpful: int = 0  # dice from helpful items (R-55 "fight")
    line: int | None = None  # the line struck for this fight, for R-20
    out: str = ""  # why he takes no more part: "escaped", "no dice", "penalty"

    @property
    def dice(self) -> int:
        return self.line_dice + len(self.allies) + self.helpful


@dataclass(frozen=True)
class Fight:
    """A fight in progress: both sides' carried pools and the GM's settings for it."""

    gm_dice: int
    pools: tuple[Pool, ...]
    gm_allies: tuple[str, ...] = ()  # named GM allies among gm_dice; they die first
    difficulty: int | None = None  # Combat Difficulty (advanced rule); None: basic rules
    master_npc: bool = False  # the GM marked the opponent a master (the Master's sacrifice)
    rounds: int = 0  # rounds played

    def pool(self, name: str) -> Pool | None:
        return next((pool for pool in self.pools if pool.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON record of a fight (a store keeps it per thread)."""
        return {"version": STATE_VERSION, **_encode(self)}

    @classmethod
    def from_dict(cls, data: object) -> Fight:
        """The inverse of :meth:`to_dict`; StoreError on a record this version cannot read."""
        record = check_version(data, STATE_VERSION, "trikus fight")
        try:
            fight = _decode_fight(record)
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(f"A stored trikus fight is damaged: {error!r}") from error
        assert fight is not None
        return fight

    @property
    def over(self) -> bool:
        """The GM has no dice, or (after a round) no player can fight on."""
        if self.gm_dice == 0:
            return True
        return self.rounds > 0 and all(pool.out or pool.dice == 0 for pool in self.pools)


@dataclass(frozen=True)
class Party:
    """The campaign's trikus state: its characters, refresh count and any fight."""

    characters: tuple[Character, ...] = ()
    refreshes: int = 0
    fight: Fight | None = None
    master_npcs: frozenset[str] = field(default_factory=frozenset)  # GM-marked masters

    def character(self, name: str) -> Character:
        """The character ``name`` means (any case, or a unique beginning); UnknownName if none."""
        if not self.characters:
            raise UnknownName(f"There is no character named {name}: the party is empty.")
        found = find_name(name, [c.name for c in self.characters], "character")
        return next(c for c in self.characters if c.name == found)

    def with_character(self, character: Character) -> Party:
        return replace(
            self,
            characters=tuple(character if c.name == character.name else c for c in self.characters),
        )

    @property
    def active(self) -> tuple[Character, ...]:
        return tuple(c for c in self.characters if c.status is Status.ACTIVE)

    @property
    def all_exhausted(self) -> bool:
        """Every active player is exhausted: the party's lines return (a refresh)."""
        return bool(self.active) and all(c.exhausted for c in self.active)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON shape the store keeps."""
        return {"version": STATE_VERSION, **_encode(self)}

    @classmethod
    def from_dict(cls, data: object) -> Party:
        """The inverse of :meth:`to_dict`; StoreError on a shape this version cannot read.

        >>> party = Party((new_character({"name": "Ola", "player": "u",
        ...     "tier": "master", "light_sides": ["a"], "dark_sides": ["b", "c", "d"]}),))
        >>> Party.from_dict(party.to_dict()) == party
        True
        """
        record = check_version(data, STATE_VERSION, "trikus party")
        try:
            return _decode_party(record)
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(f"A stored trikus party is damaged: {error!r}") from error


def _encode(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (frozenset, set)):
        return sorted(value)
    if isinstance(value, (tuple, list)):
        return [_encode(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {name: _encode(getattr(value, name)) for name in value.__dataclass_fields__}
    return value


def _decode_line(d: Mapping[str, Any]) -> Line:
    return Line(int(d["dice"]), LineStatus(d["status"]), int(d["refreshes_left"]))


def _decode_item(d: Mapping[str, Any]) -> Item:
    return Item(
        d["name"], tuple(Trait(t) for t in d["traits"]), tuple(d["known"]), bool(d["spent"])
    )


def _decode_character(d: Mapping[str, Any]) -> Character:
    return Character(
        name=d["name"],
        player=d["player"],
        tier=Tier(d["tier"]),
        lines=tuple(_decode_line(line) for line in d["lines"]),
        morale=int(d["morale"]),
        light=int(d["light"]),
        dark_active=int(d["dark_active"]),
        dark_used=int(d["dark_used"]),
        light_sides=tuple(d["light_sides"]),
        dark_sides=tuple(d["dark_sides"]),
        equipment=tuple(_decode_item(item) for item in d["equipment"]),
        allies=tuple(d["allies"]),
        status=Status(d["status"]),
        light_received=int(d["light_received"]),
        dark_received=int(d["dark_received"]),
        sides_due=bool(d["sides_due"]),
    )


def _decode_fight(d: Mapping[str, Any] | None) -> Fight | None:
    if d is None:
        return None
    return Fight(
        gm_dice=int(d["gm_dice"]),
        pools=tuple(
            Pool(
                p["name"],
                int(p["line_dice"]),
                tuple(p["allies"]),
                int(p["helpful"]),
                p["line"],
                p["out"],
            )
            for p in d["pools"]
        ),
        gm_allies=tuple(d["gm_allies"]),
        difficulty=d["difficulty"],
        master_npc=bool(d["master_npc"]),
        rounds=int(d["rounds"]),
    )


def _decode_party(d: Mapping[str, Any]) -> Party:
    return Party(
        characters=tuple(_decode_character(c) for c in d["characters"]),
        refreshes=int(d["refreshes"]),
        fight=_decode_fight(d["fight"]),
        master_npcs=frozenset(d["master_npcs"]),
    )


_SHEET_KEYS = ("name", "player", "tier", "light_sides", "dark_sides", "equipment", "allies")


def new_character(sheet: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> Character:
    """A fresh character from an application; RuleViolation listing every problem at once.

    ``sheet`` has name, player, tier, light_sides, dark_sides, and optionally equipment
    (``{"name", "traits", "known"}`` each) and allies. Lines start free, tokens at 0.

    >>> new_character({"name": "", "tier": "jedi", "allies": "R2"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.base.errors.RuleViolation: This trikus character has 4 problems:
    - the name is empty; give the character a name.
    - the player (the owner's user name) is missing.
    - tier 'jedi' is not a tier; choose beginner, advanced or master.
    - allies must be a list of names.
    """
    problems = [
        f"'{key}' is not part of a trikus sheet; the parts are {', '.join(_SHEET_KEYS)}."
        for key in sheet
        if key not in _SHEET_KEYS
    ]
    name = sheet.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("the name is empty; give the character a name.")
        name = ""
    elif len(name) > limits.max_name_chars:
        problems.append(f"the name is longer than {limits.max_name_chars} characters.")
    player = sheet.get("player")
    if not isinstance(player, str) or not player:
        problems.append("the player (the owner's user name) is missing.")
        player = ""
    tier: Tier | None = None
    try:
        tier = Tier(sheet.get("tier"))
    except ValueError:
        problems.append(
            f"tier {sheet.get('tier')!r} is not a tier; choose beginner, advanced or master."
        )
    sides = {}
    for index, key in enumerate(("light_sides", "dark_sides")):
        names = _names(sheet.get(key, []), key, problems, limits)
        sides[key] = names
        if tier is not None and len(names) != tier.sides[index]:
            kind = key.split("_")[0].capitalize()
            who = with_article(tier.value)
            problems.append(f"{who} writes {tier.sides[index]} {kind} side(s), not {len(names)}.")
    allies = _names(sheet.get("allies", []), "allies", problems, limits)
    equipment = _equipment(sheet.get("equipment", []), problems, limits)
    if problems:
        raise RuleViolation(problems_message("This trikus character", problems))
    assert tier is not None
    return Character(
        name=name,
        player=player,
        tier=tier,
        lines=tuple(Line(dice) for dice in tier.lines),
        light_sides=sides["light_sides"],
        dark_sides=sides["dark_sides"],
        equipment=equipment,
        allies=allies,
    )


def _names(value: object, key: str, problems: list[str], limits: Limits) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        problems.append(f"{key} must be a list of names.")
        return ()
    names = tuple(v.strip() for v in value)
    if any(not v for v in names):
        problems.append(f"{key} has an empty entry.")
    if any(len(v) > limits.max_name_chars for v in names):
        problems.append(f"an entry of {key} is longer than {limits.max_name_chars} characters.")
    if len({v.lower() for v in names}) != len(names):
        problems.append(f"{key} names one thing twice.")
    return names


def _equipment(value: object, problems: list[str], limits: Limits) -> tuple[Item, ...]:
    if not isinstance(value, (list, tuple)):
        problems.append("equipment must be a list of items.")
        return ()
    items: list[Item] = []
    allowed = ", ".join(t.value for t in Trait)
    for entry in value:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            problems.append("each item needs a name and its traits.")
            continue
        name = entry["name"].strip()
        traits_given = entry.get("traits", [])
        if not isinstance(traits_given, (list, tuple)) or not 1 <= len(traits_given) <= 3:
            problems.append(f"item {name} has 1 to 3 pips, each a trait.")
            continue
        try:
            traits = tuple(Trait(t) for t in traits_given)
        except ValueError:
            problems.append(f"item {name} has a trait that does not exist; traits: {allowed}.")
            continue
        known = entry.get("known", [True] * len(traits))
        if (
            not isinstance(known, (list, tuple))
            or len(known) != len(traits)
            or not all(isinstance(k, bool) for k in known)
        ):
            problems.append(f"item {name}: known needs one true/false per trait.")
            continue
        if not name or len(name) > limits.max_name_chars:
            problems.append(f"item name {name!r} is empty or too long.")
            continue
        items.append(Item(name, traits, tuple(known)))
    if len({item.name.lower() for item in items}) != len(items):
        problems.append("equipment names one item twice.")
    return tuple(items)
