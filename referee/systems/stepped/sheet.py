"""Stepped sheets: records (TOML, JSON) <-> characters, read with every problem listed
(:mod:`.checks` says what a legal sheet is)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from referee.base.errors import UnknownName, UserError
from referee.base.limits import DEFAULT_LIMITS

from .rulings import _is_int
from .traits import (
    BACKGROUND_WORDS,
    DEFAULT_WOUNDS_SURVIVED,
    Background,
    Character,
    Kind,
    MagicParameter,
    PersonalTrait,
    Stat,
    Technique,
    Weapon,
    WeaponKind,
    _join,
    parse_stat,
)

_SHEET_KEYS = (
    "name",
    "kind",
    "race",
    "background",
    "named",
    "wounds_survived",
    "wounds",
    "incapacitated",
    "armour",
    "stats",
    "weapons",
    "magic",
    "traits",
)


_WEAPON_KEYS = ("name", "kind", "damage", "modifier", "subdue")


_MAGIC_KEYS = ("name", "points", "techniques")


_TECHNIQUE_KEYS = ("name", "tier")


_TRAIT_KEYS = ("name", "modifiers")


_DAMAGE = re.compile(r"^\s*(\d{1,9})\s*[dD]\s*(\d{1,9})\s*(?:([+-])\s*(\d{1,9}))?\s*$")


_TIER = re.compile(r"^\s*[dD]?(\d{1,9})\s*$")


def parse_damage(text: str) -> tuple[int, int, int]:
    """(count, sides, modifier) of a damage string "NdX" or "NdX+M".

    >>> parse_damage("2d6"), parse_damage("1d8-1")
    ((2, 6, 0), (1, 8, -1))
    """
    match = _DAMAGE.match(text)
    if match is None:
        raise UserError(f"'{text}' is not a damage roll; write it like 2d6 or 2d6+1.")
    count, sides, sign, bonus = match.groups()
    modifier = int(bonus) * (-1 if sign == "-" else 1) if bonus else 0
    return int(count), int(sides), modifier


# A record's numbers (a TOML sheet, the store) are bounded like a typed sheet's.
_BOUND = DEFAULT_LIMITS.max_sheet_number


def _whole(value: object) -> str:
    return f"from {-_BOUND} to {_BOUND}" if _is_int(value) else "a whole number"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else text[:23] + "…"


class _Reader:
    """Collects every structural problem of one record while reading it."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def unknown(self, record: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
        for key in record:
            if key not in allowed:
                self.problems.append(
                    f"{where}'{key}' is not a field; the fields are {_join(list(allowed))}."
                )

    def text(self, record: Mapping[str, Any], key: str, where: str, default: str | None) -> str:
        value = record.get(key, default)
        if value is None:
            self.problems.append(f"{where}{key} is missing.")
            return ""
        if not isinstance(value, str) or (key == "name" and not value.strip()):
            self.problems.append(f"{where}{key} must be a non-empty text, not {value!r}.")
            return ""
        return value

    def integer(self, record: Mapping[str, Any], key: str, where: str, default: int | None) -> int:
        value = record.get(key, default)
        if value is None:
            self.problems.append(f"{where}{key} is missing.")
            return 0
        if not _is_int(value) or abs(value) > _BOUND:
            self.problems.append(f"{where}{key} must be {_whole(value)}, not {_shown(value)}.")
            return 0
        return int(value)

    def flag(self, record: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
        value = record.get(key, default)
        if not isinstance(value, bool):
            self.problems.append(f"{where}{key} must be true or false, not {value!r}.")
            return default
        return value

    def choice(
        self,
        record: Mapping[str, Any],
        key: str,
        where: str,
        words: Mapping[str, Any],
        default: Any,
    ) -> Any:
        value = record.get(key, default)
        if value is None:
            choices = _join(list(words), "or")
            self.problems.append(f"{where}{key} is missing; it is one of {choices}.")
            return None
        if isinstance(value, Enum):
            value = value.value
        found = words.get(value.strip().casefold()) if isinstance(value, str) else None
        if found is None:
            self.problems.append(
                f"{where}{key} {value!r} is not one of {_join(list(words), 'or')}."
            )
        return found

    def items(self, record: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
        value = record.get(key, [])
        if not isinstance(value, (list, tuple)):
            self.problems.append(f"{where}{key} must be a list.")
            return []
        good = []
        for index, item in enumerate(value, start=1):
            if isinstance(item, Mapping):
                good.append(item)
            else:
                self.problems.append(f"{where}{key} entry {index} must be a table, not {item!r}.")
        return good


def _read_stats(reader: _Reader, raw: object, where: str = "stats") -> dict[Stat, int]:
    stats: dict[Stat, int] = {}
    if not isinstance(raw, Mapping):
        reader.problems.append(
            f"{where} is missing; give strength, agility, endurance and perception."
        )
        return stats
    mentioned: set[Stat] = set()
    for word, value in raw.items():
        try:
            stat = parse_stat(str(word))
        except UnknownName as error:
            reader.problems.append(error.message)
            continue
        if stat in mentioned:
            reader.problems.append(f"{where} name {stat.value} twice.")
        elif not _is_int(value) or abs(value) > _BOUND:
            reader.problems.append(
                f"{where}.{stat.value} must be {_whole(value)}, not {_shown(value)}."
            )
        else:
            stats[stat] = value
        mentioned.add(stat)
    return stats  # a stat left out is a rules problem: validate_character names it


def _read_weapon(reader: _Reader, record: Mapping[str, Any], index: int) -> Weapon:
    where = f"weapon {index}: "
    reader.unknown(record, _WEAPON_KEYS, where)
    name = reader.text(record, "name", where, None)
    if name:
        where = f"weapon '{name}': "
    kind = reader.choice(record, "kind", where, _WEAPON_KINDS, None)
    count = sides = 0
    modifier = reader.integer(record, "modifier", where, 0)
    damage = record.get("damage")
    if damage is not None:
        try:
            if not isinstance(damage, str):
                raise UserError(f"{damage!r} is not a damage roll; write it like 2d6 or 2d6+1.")
            count, sides, bonus = parse_damage(damage)
        except UserError as error:
            reader.problems.append(where + error.message)
        else:
            if bonus and "modifier" in record:
                reader.problems.append(f"{where}give the modifier once, in damage or in modifier.")
            modifier += bonus
    subdue = reader.flag(record, "subdue", where, False)
    return Weapon(name, kind or WeaponKind.MELEE, count, sides, modifier, subdue)


def _read_magic(reader: _Reader, record: Mapping[str, Any], index: int) -> MagicParameter:
    where = f"magic {index}: "
    reader.unknown(record, _MAGIC_KEYS, where)
    name = reader.text(record, "name", where, None)
    if name:
        where = f"magic '{name}': "
    points = reader.integer(record, "points", where, None)
    techniques = []
    for number, raw in enumerate(reader.items(record, "techniques", where), start=1):
        at = f"{where}technique {number}: "
        reader.unknown(raw, _TECHNIQUE_KEYS, at)
        title = reader.text(raw, "name", at, None)
        tier_raw = raw.get("tier")
        tier = 0
        if isinstance(tier_raw, int) and not isinstance(tier_raw, bool):
            tier = tier_raw
        elif isinstance(tier_raw, str) and _TIER.match(tier_raw):
            tier = int(_TIER.match(tier_raw).group(1))  # type: ignore[union-attr]
        else:
            reader.problems.append(f"{at}tier must be a die like d4 or d6, not {tier_raw!r}.")
        techniques.append(Technique(title, tier))
    return MagicParameter(name, points, tuple(techniques))


def _read_trait(reader: _Reader, record: Mapping[str, Any], index: int) -> PersonalTrait:
    where = f"trait {index}: "
    reader.unknown(record, _TRAIT_KEYS, where)
    name = reader.text(record, "name", where, None)
    label = f"trait '{name}' modifiers" if name else f"trait {index} modifiers"
    return PersonalTrait(name, _read_stats(reader, record.get("modifiers"), label))


def character_from_record(record: Mapping[str, Any]) -> Character:
    """A character from a sheet record (parsed TOML or JSON); UserError listing every problem.

    Rules problems (too many points, an unknown race) are :func:`validate_character`'s;
    this only refuses a record it cannot read.

    >>> c = character_from_record({"name": "Guard", "kind": "npc", "stats": {"str": 2,
    ...     "agi": 2, "end": 2, "per": 2}})
    >>> c.wounds_survived, c.stats[Stat.AGILITY]
    (0, 2)
    >>> character_from_record({"kind": "pc", "stats": {"str": "three"}})
    Traceback (most recent call last):
    ...
    referee.base.errors.UserError: The character sheet has 2 problems:
    - name is missing.
    - stats.strength must be a whole number, not 'three'.
    """
    if not isinstance(record, Mapping):
        raise UserError("The character sheet must be a table of fields, like name and stats.")
    reader = _Reader()
    reader.unknown(record, _SHEET_KEYS, "")
    name = reader.text(record, "name", "", None)
    kind = reader.choice(record, "kind", "", _KINDS, None)
    race = reader.text(record, "race", "", "human")
    background = reader.choice(record, "background", "", BACKGROUND_WORDS, "soldier")
    named = reader.flag(record, "named", "", False)
    survived_default = DEFAULT_WOUNDS_SURVIVED.get(kind, 0) if kind else 0
    wounds_survived = reader.integer(record, "wounds_survived", "", survived_default)
    wounds = reader.integer(record, "wounds", "", 0)
    incapacitated = reader.flag(record, "incapacitated", "", False)
    armour = reader.integer(record, "armour", "", 0)
    stats = _read_stats(reader, record.get("stats"))
    weapons = tuple(
        _read_weapon(reader, raw, index)
        for index, raw in enumerate(reader.items(record, "weapons", ""), start=1)
    )
    magic = tuple(
        _read_magic(reader, raw, index)
        for index, raw in enumerate(reader.items(record, "magic", ""), start=1)
    )
    traits = tuple(
        _read_trait(reader, raw, index)
        for index, raw in enumerate(reader.items(record, "traits", ""), start=1)
    )
    if reader.problems:
        count = "1 problem" if len(reader.problems) == 1 else f"{len(reader.problems)} problems"
        raise UserError(
            f"The character sheet has {count}:\n"
            + "\n".join(f"- {problem}" for problem in reader.problems)
        )
    return Character(
        name=name,
        kind=kind,
        stats=stats,
        background=background,
        race=race,
        named=named,
        wounds_survived=wounds_survived,
        wounds=wounds,
        incapacitated=incapacitated,
        armour=armour,
        weapons=weapons,
        magic=magic,
        traits=traits,
    )


# Read and written with every sheet: an Enum's members and values, looked up once (an
# Enum call and its .value property are Python-level calls on each use).
_KINDS = {kind.value: kind for kind in Kind}
_WEAPON_KINDS = {kind.value: kind for kind in WeaponKind}
_STAT_WORDS = tuple((stat, stat.value) for stat in Stat)


def _value(enum: type[Enum], member: Any) -> Any:
    """``enum(member).value``: the word a record keeps for a member (or for its word)."""
    return member._value_ if type(member) is enum else enum(member).value


def _weapon_record(weapon: Weapon) -> dict[str, Any]:
    record: dict[str, Any] = {"name": weapon.name, "kind": _value(WeaponKind, weapon.kind)}
    if weapon.dice_count or weapon.dice_sides:
        bonus = f"{weapon.modifier:+d}" if weapon.modifier else ""
        record["damage"] = f"{weapon.dice_count}d{weapon.dice_sides}{bonus}"
    elif weapon.modifier:
        record["modifier"] = weapon.modifier
    if weapon.can_subdue:
        record["subdue"] = True
    return record


def character_to_record(c: Character) -> dict[str, Any]:
    """The JSON-safe sheet record of ``c``; :func:`character_from_record` reads it back exactly.

    >>> guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 2))
    >>> character_from_record(character_to_record(guard)) == guard
    True
    """
    record: dict[str, Any] = {
        "name": c.name,
        "kind": _value(Kind, c.kind),
        "race": c.race,
        "background": _value(Background, c.background),
        "named": c.named,
        "wounds_survived": c.wounds_survived,
        "wounds": c.wounds,
        "incapacitated": c.incapacitated,
        "armour": c.armour,
        "stats": {word: c.stats[stat] for stat, word in _STAT_WORDS if stat in c.stats},
        "weapons": [_weapon_record(weapon) for weapon in c.weapons],
        "magic": [
            {
                "name": parameter.name,
                "points": parameter.points,
                "techniques": [
                    {"name": t.name, "tier": f"d{t.tier}"} for t in parameter.techniques
                ],
            }
            for parameter in c.magic
        ],
    }
    if c.traits:  # left out when there are none, so sheets stored before traits read the same
        record["traits"] = [
            {"name": t.name, "modifiers": {stat.value: n for stat, n in t.modifiers.items()}}
            for t in c.traits
        ]
    return record


SheetReader = _Reader  # collects every structural problem of a sheet record while reading it
