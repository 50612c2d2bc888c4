"""Stepped sheets: validation listing every problem at once; records (TOML, JSON) <-> characters."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from referee.base.english import with_article
from referee.base.errors import UnknownName, UserError
from referee.base.limits import DEFAULT_LIMITS

from .rulings import MagicPoints, Rules, _is_int, find_race
from .traits import (
    BACKGROUND_NAMES,
    BACKGROUND_WORDS,
    BUDGETS,
    DEFAULT_WOUNDS_SURVIVED,
    LADDER,
    MAX_POINTS,
    MAX_TRAIT_MODIFIER,
    MIN_POINTS,
    TIER_CAPACITY,
    Background,
    Character,
    Kind,
    MagicParameter,
    PersonalTrait,
    Race,
    Stat,
    Technique,
    Weapon,
    WeaponKind,
    _join,
    die_for_points,
    parse_stat,
)


def _capacity_words(sides: int) -> str:
    return f"d{sides}"


def validate_character(c: Character, rules: Rules) -> list[str]:
    """Every problem with a sheet at once, each a sentence the player can act on; [] if none.

    >>> kara = Character("Kara", Kind.PC, {Stat.STRENGTH: 2, Stat.AGILITY: 4,
    ...     Stat.ENDURANCE: 3, Stat.PERCEPTION: 2}, wounds_survived=3)
    >>> validate_character(kara, Rules())
    ['Agility has 4 points; a human may have at most 3.']
    """
    problems: list[str] = []
    add = problems.append
    if not c.name.strip():
        add("The character needs a name.")
    race = find_race(c.race, rules)
    if race is None:
        known = _join(sorted(rules.races), "or")
        add(f"The race '{c.race}' is not in the race table; choose {known}.")
    problems.extend(_stat_problems(c, race))
    problems.extend(_budget_problems(c, rules))
    problems.extend(_magic_cap_problems(c, race, rules))
    problems.extend(_weapon_problems(c))
    problems.extend(_magic_problems(c))
    problems.extend(_trait_problems(c))
    if c.armour < 0:
        add(f"Armour is {c.armour}; it cannot be negative.")
    problems.extend(wound_track_problems(c))
    if c.wounds < 0:
        add(f"The character carries {c.wounds} wounds; it cannot be negative.")
    elif c.wounds > max(c.wounds_survived, 0) + 1:
        add(
            f"The character carries {c.wounds} wounds; one past the "
            f"{c.wounds_survived} survived already kills."
        )
    return problems


def npc_problems(c: Character, rules: Rules) -> list[str]:
    """What keeps a GM's NPC from acting, each a sentence; [] if it can enter play.

    An NPC's sheet is read and checked like any sheet: every stat from 1 to 6 points,
    weapons, magic and traits well formed, an NPC's wound track. The players' budget
    and race caps are not the GM's limits (shipped NPCs are not held to them either).

    >>> ghoul = Character("Ghoul", Kind.NPC, {Stat.STRENGTH: 2, Stat.AGILITY: 2})
    >>> npc_problems(ghoul, Rules())[0]
    'Endurance has no points; every stat needs 1 to 6.'
    """
    problems = []
    if not c.name.strip():
        problems.append("The NPC needs a name.")
    problems.extend(_stat_problems(c, None))
    problems.extend(_weapon_problems(c))
    problems.extend(_magic_problems(c))
    problems.extend(_trait_problems(c))
    if c.armour < 0:
        problems.append(f"Armour is {c.armour}; it cannot be negative.")
    problems.extend(wound_track_problems(c))
    return problems


PC_WOUNDS_SURVIVED = 3  # seed: player characters survive 3 wounds; the 4th kills
NPC_WOUNDS_SURVIVED = (0, 2, 3)  # seed: an ordinary NPC falls at once, a tough one survives 2 or 3


def wound_track_problems(c: Character) -> list[str]:
    """The seed's wound tracks: a PC survives 3; an NPC 0, or 2 or 3 when a GM makes it tough.

    >>> wound_track_problems(Character("Orla", Kind.PC, {}, wounds_survived=0))
    ['A player character always survives 3 wounds, not 0; only a GM sets tough (2 or 3) on an NPC.']
    """
    if c.kind == Kind.PC and c.wounds_survived != PC_WOUNDS_SURVIVED:
        return [
            f"A player character always survives {PC_WOUNDS_SURVIVED} wounds, not "
            f"{c.wounds_survived}; only a GM sets tough (2 or 3) on an NPC."
        ]
    if c.kind != Kind.PC and c.wounds_survived not in NPC_WOUNDS_SURVIVED:
        return [
            f"An NPC survives 0 wounds (an ordinary NPC) or 2 or 3 (a tough one), "
            f"not {c.wounds_survived}."
        ]
    return []


def _stat_problems(c: Character, race: Race | None) -> list[str]:
    problems: list[str] = []
    for key in c.stats:
        if not isinstance(key, Stat):
            names = _join([s.value for s in Stat])
            problems.append(f"'{key}' is not a stat; the stats are {names}.")
    for stat in Stat:
        title = stat.value.capitalize()
        points = c.stats.get(stat)
        if points is None:
            problems.append(f"{title} has no points; every stat needs 1 to 6.")
            continue
        if not MIN_POINTS <= points <= MAX_POINTS:
            problems.append(f"{title} has {points} points; a stat has 1 to 6 points.")
        if race is not None and points > race.cap:
            problems.append(
                f"{title} has {points} points; "
                f"{with_article(race.name)} may have at most {race.cap}."
            )
    return problems


def _budget_problems(c: Character, rules: Rules) -> list[str]:
    if any(stat not in c.stats for stat in Stat):
        return []
    budget = BUDGETS[c.background]
    spent = sum(c.stats[stat] for stat in Stat) - len(Stat) * MIN_POINTS
    what = "The stats spend"
    if rules.rulings.magic_points == MagicPoints.BUDGET and c.magic:
        # every magic point comes out of the budget (a parameter has no free point).
        spent += sum(parameter.points for parameter in c.magic)
        what = "The stats and magic spend"
    who = BACKGROUND_NAMES[c.background]
    if spent > budget:
        return [
            f"{what} {spent} points above 1 each; {who} has {budget}, "
            f"so {_points(spent - budget)} over."
        ]
    if spent < budget:
        return [
            f"{what} {spent} points above 1 each; {who} has {budget}, "
            f"so {_points(budget - spent)} unspent."
        ]
    return []


def _points(count: int) -> str:
    """``1 is`` or ``2 are``: the count and its verb, for the budget's sentences."""
    return f"{count} is" if count == 1 else f"{count} are"


def _magic_cap_problems(c: Character, race: Race | None, rules: Rules) -> list[str]:
    """R-60 "budget": a magic parameter obeys the race cap like a stat."""
    if race is None or rules.rulings.magic_points != MagicPoints.BUDGET:
        return []
    return [
        f"{parameter.name} has {parameter.points} points; "
        f"{with_article(race.name)} may have at most {race.cap}."
        for parameter in c.magic
        if parameter.points > race.cap
    ]


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    repeated: list[str] = []
    for name in names:
        key = name.strip().casefold()
        if key in seen and name not in repeated:
            repeated.append(name)
        seen.add(key)
    return repeated


def _weapon_problems(c: Character) -> list[str]:
    problems: list[str] = []
    limits = DEFAULT_LIMITS
    for weapon in c.weapons:
        label = f"The {weapon.kind.value} weapon '{weapon.name}'"
        if not weapon.name.strip():
            problems.append(f"A {weapon.kind.value} weapon needs a name.")
        has_dice = weapon.dice_count != 0 or weapon.dice_sides != 0
        if weapon.kind == WeaponKind.RANGED and (weapon.dice_count < 1 or weapon.dice_sides < 1):
            problems.append(f"{label} has no damage dice; write its damage as NdX, like 2d6.")
        elif weapon.kind == WeaponKind.MELEE and has_dice:
            problems.append(
                f"{label} has damage dice; melee damage is a Strength roll plus the "
                "weapon's modifier, so give it a modifier instead."
            )
        if weapon.dice_count > limits.max_dice or weapon.dice_sides > limits.max_sides:
            problems.append(
                f"{label} rolls too many dice; at most {limits.max_dice} dice of "
                f"{limits.max_sides} sides."
            )
        if abs(weapon.modifier) > limits.max_modifier:
            problems.append(f"{label} has a modifier beyond ±{limits.max_modifier}.")
    for name in _duplicates([w.name for w in c.weapons]):
        problems.append(f"Two weapons are called '{name}'; give each its own name.")
    return problems


def _magic_problems(c: Character) -> list[str]:
    problems: list[str] = []
    tiers = _join([f"d{t}" for t in LADDER])
    for parameter in c.magic:
        name = parameter.name or "a magic parameter"
        if not parameter.name.strip():
            problems.append("A magic parameter needs a name.")
        if not MIN_POINTS <= parameter.points <= MAX_POINTS:
            problems.append(
                f"{name} has {parameter.points} points; a magic parameter has 1 to 6 points."
            )
            own = None
        else:
            own = die_for_points(parameter.points)
        for technique in parameter.techniques:
            if not technique.name.strip():
                problems.append(f"A technique of {name} needs a name.")
            if technique.tier not in TIER_CAPACITY:
                problems.append(
                    f"{technique.name} sits at d{technique.tier}, which is not a tier; "
                    f"the tiers are {tiers}."
                )
            elif own is not None and technique.tier > own:
                problems.append(
                    f"{technique.name} sits at d{technique.tier}, above {name}'s own d{own}."
                )
        for tier, capacity in TIER_CAPACITY.items():
            held = sum(1 for t in parameter.techniques if t.tier == tier)
            if held > capacity:
                problems.append(
                    f"{name} holds {held} techniques at d{tier}; the d{tier} tier holds {capacity}."
                )
        if own is not None and len(parameter.techniques) > own:
            problems.append(
                f"{name} holds {len(parameter.techniques)} techniques; "
                f"a d{own} holds at most {own}."
            )
    for name in _duplicates([p.name for p in c.magic]):
        problems.append(f"Two magic parameters are called '{name}'; give each its own name.")
    all_techniques = [t.name for p in c.magic for t in p.techniques]
    for name in _duplicates(all_techniques):
        problems.append(f"Two techniques are called '{name}'; give each its own name.")
    return problems


def _trait_problems(c: Character) -> list[str]:
    """A personal trait needs a name and modifiers of at most ±MAX_TRAIT_MODIFIER per stat."""
    problems: list[str] = []
    for trait in c.traits:
        name = trait.name.strip() or "a personal trait"
        if not trait.name.strip():
            problems.append("A personal trait needs a name.")
        if not trait.modifiers:
            problems.append(f"The trait {name} changes no stat; give it one, like `perception +1`.")
        for stat, value in trait.modifiers.items():
            if abs(value) > MAX_TRAIT_MODIFIER:
                problems.append(
                    f"The trait {name} gives {stat.value} {value:+d}; a personal trait gives "
                    f"at most ±{MAX_TRAIT_MODIFIER} to a stat."
                )
    for name in _duplicates([t.name for t in c.traits]):
        problems.append(f"Two personal traits are called '{name}'; give each its own name.")
    return problems


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
