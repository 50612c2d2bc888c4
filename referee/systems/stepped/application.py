"""Stepped's plain-text character sheet, as players post it under ``[[apply]]``.

A sheet is a fenced code block of ``key: value`` lines, so Reddit shows it as typed
and the tag finder never reads tags inside it::

    ```
    name: Orla Vex
    race: human
    background: experienced      # noncombatant 3, experienced 5, soldier 7 points
    strength: 2                  # points (1-6) or a die (d4-d20)
    agility: d8
    endurance: 2
    perception: 2
    armour: 1
    weapon: blaster pistol, ranged, 2d6
    weapon: stun baton, melee, +1, subdue
    magic: Force 2
    technique: Telekinesis d4
    technique: Mind Trick d6
    trait: Keen eyes, perception +1  # a personal trait: name, then stat ±N (GM approves)
    ```

:func:`parse_sheet` turns it into the sheet record the rules read; every line it
cannot read is reported at once with the line number and the right form. (The core
finds the code block: :func:`referee.read.sheets.sheet_block`.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.base.errors import UnknownName, UserError
from referee.base.limits import DEFAULT_LIMITS, Limits, is_visible, read_int
from referee.base.names import normalise_name

from .checks import validate_character
from .rulings import Rules
from .sheet import character_from_record, character_to_record
from .traits import LADDER, MAX_TRAIT_MODIFIER, Character, Kind, parse_stat

_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(.*?)\s*$")
_DIE = re.compile(r"^d([0-9]+)$", re.I)
_TRAIT_MODIFIER = re.compile(r"^([A-Za-z]+)\s*([+-]?\s*[0-9]+)$")
_DAMAGE = re.compile(r"([0-9]+)d([0-9]+)(?:([+-][0-9]+))?")
_NAMES = {"name", "race", "kind"}  # free text that must show something

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below) with one `key: value` per "
    "line: name, race, background, strength, agility, endurance, perception, armour, "
    "weapon (name, ranged, 2d6 / name, melee, +1, subdue), magic (name points) and "
    "technique (name d4) and trait (name, perception +1)."
)
_SCALARS = {"name", "race", "background", "armour", "armor", "named", "kind"}
_STATS = {"strength", "agility", "endurance", "perception", "str", "agi", "end", "per"}
_FULL_STAT = {"str": "strength", "agi": "agility", "end": "endurance", "per": "perception"}
_LISTED = {"weapon", "magic", "technique", "trait"}  # keys a sheet may give on several lines
# Keys naming the same field: a sheet gives each field once.
_ONE_FIELD = {
    **_FULL_STAT,
    "armor": "armour",
    "tough": "wounds_survived",
    "survives": "wounds_survived",
}
_KEYS = {
    *_STATS,
    *_SCALARS,
    "tough",
    "survives",
    "wounds_survived",
    "weapon",
    "magic",
    "technique",
    "trait",
}
MAX_SHEET_LINES = 80


def _points(value: str, what: str, limits: Limits) -> int:
    """Points as a number, or a die written as d4-d20 turned into points."""
    die = _DIE.match(value)
    if die and len(die.group(1)) <= 2 and int(die.group(1)) in LADDER:
        return LADDER.index(int(die.group(1))) + 1
    if die:
        dice = ", ".join(f"d{sides}" for sides in LADDER)
        raise UserError(f"{what} is a die from {dice}, not '{value[:24]}'.")
    return _sheet_number(value, what, limits)


def _sheet_number(value: str, what: str, limits: Limits) -> int:
    return read_int(value, what, -limits.max_sheet_number, limits.max_sheet_number)


def _name_problem(value: str, line: int, what: str) -> str | None:
    if is_visible(value):
        return None
    return f"Line {line}: the {what} shows nothing but invisible characters; write letters."


def _weapon(value: str, line: int, problems: list[str], limits: Limits) -> dict[str, Any] | None:
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if len(parts) < 2 or parts[1].casefold() not in ("ranged", "melee"):
        problems.append(
            f"Line {line}: write a weapon as `weapon: name, ranged, 2d6` or "
            f"`weapon: name, melee, +1, subdue`."
        )
        return None
    if (problem := _name_problem(parts[0], line, "weapon's name")) is not None:
        problems.append(problem)
    weapon: dict[str, Any] = {"name": parts[0], "kind": parts[1].casefold()}
    for extra in parts[2:]:
        word = extra.casefold()
        damage = _DAMAGE.fullmatch(word)
        try:
            if word == "subdue":
                weapon["subdue"] = True
            elif damage is not None:
                count, sides, bonus = damage.groups()
                read_int(count, "The number of damage dice", 1, limits.max_sheet_number)
                read_int(sides, "A damage die's sides", 1, limits.max_sides)
                if bonus:
                    _sheet_number(bonus, "The damage bonus", limits)
                weapon["damage"] = word
            elif re.fullmatch(r"[+-]?[0-9]+", word):
                weapon["modifier"] = _sheet_number(word, "A weapon's modifier", limits)
            else:
                problems.append(
                    f"Line {line}: '{extra[:40]}' is not a damage roll (2d6), a modifier (+1) "
                    "or `subdue`."
                )
        except UserError as error:
            problems.append(f"Line {line}: {error.message}")
    return weapon


def _trait(value: str, line: int, problems: list[str]) -> dict[str, Any] | None:
    """``Keen eyes, perception +1, agility -1`` as a trait record; problems for what is wrong."""
    form = "write a trait as `trait: Keen eyes, perception +1` (a name, then stat ±N)"
    name, *changes = [part.strip() for part in value.split(",")]
    if not name or not changes:
        problems.append(f"Line {line}: {form}.")
        return None
    if (problem := _name_problem(name, line, "trait's name")) is not None:
        problems.append(problem)
    modifiers: dict[str, int] = {}
    for change in changes:
        found = _TRAIT_MODIFIER.match(change)
        if found is None:
            problems.append(f"Line {line}: '{change[:40]}' is not a stat and a number; {form}.")
            continue
        try:
            stat = parse_stat(found.group(1)).value
            if stat in modifiers:
                raise UserError(f"the trait changes {stat} twice; give it once.")
            number = found.group(2).replace(" ", "")
            modifiers[stat] = read_int(
                number, f"The trait's {stat} modifier", -MAX_TRAIT_MODIFIER, MAX_TRAIT_MODIFIER
            )
        except UserError as error:
            problems.append(f"Line {line}: {error.message}")
    return {"name": name, "modifiers": modifiers}


def parse_sheet(
    text: str, *, owner_kind: str = "pc", limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """A sheet's text as a sheet record; UserError naming every line it cannot read.

    >>> record = parse_sheet("name: Orla Vex\\nagility: d8\\nweapon: knife, melee, +1")
    >>> record["stats"], record["weapons"]
    ({'agility': 3}, [{'name': 'knife', 'kind': 'melee', 'modifier': 1}])
    """
    problems: list[str] = []
    record: dict[str, Any] = {
        "kind": owner_kind,
        "stats": {},
        "weapons": [],
        "magic": [],
        "traits": [],
    }
    lines = text.splitlines()
    if len(lines) > MAX_SHEET_LINES:
        raise UserError(
            f"This sheet has {len(lines)} lines; a sheet may have at most {MAX_SHEET_LINES}."
        )
    given: dict[str, int] = {}  # a field written once -> its line
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            problems.append(f"Line {number} is not `key: value`.")
            continue
        key, value = match.group(1).strip().casefold().replace(" ", "_"), match.group(2)
        field = _ONE_FIELD.get(key, key)
        if field in given:
            problems.append(
                f"Line {number}: {field.replace('_', ' ')} is given on line {given[field]} "
                "already; write it once."
            )
            continue
        if key in _KEYS and key not in _LISTED:
            given[field] = number
        try:
            _read_line(record, key, value, number, problems, limits)
        except UserError as error:
            problems.append(f"Line {number}: {error.message}")
            continue
        if key not in _KEYS:
            problems.append(f"Line {number}: '{match.group(1)}' is not a sheet field.")
    if problems:
        raise UserError(" ".join(problems) + " " + SHEET_FORM)
    return record


def _read_line(
    record: dict[str, Any],
    key: str,
    value: str,
    number: int,
    problems: list[str],
    limits: Limits,
) -> None:
    """Put one ``key: value`` line into ``record``; UserError (or a problem) if it is wrong."""
    what = _FULL_STAT.get(key, key).replace("_", " ").capitalize()
    if key == "name":  # kept as it shows, so it is keyed as it shows
        value = normalise_name(value)
    if len(value) > limits.max_name_chars * 2:
        problems.append(f"Line {number} is too long.")
    elif key in _NAMES and (problem := _name_problem(value, number, key)) is not None:
        problems.append(problem)
    elif key in _STATS:
        record["stats"][key] = _points(value, what, limits)
    elif (problem := _player_may_not(record, key, value, number)) is not None:
        problems.append(problem)
    elif key in _SCALARS:
        key = "armour" if key == "armor" else key
        if key == "armour":
            record[key] = _points(value, "Armour", limits)
        elif key == "named":
            record[key] = value.casefold() in ("yes", "true", "1")
        else:
            record[key] = value
    elif key in ("tough", "survives", "wounds_survived"):
        record["wounds_survived"] = _sheet_number(value, "Wounds survived", limits)
    elif key == "weapon":
        weapon = _weapon(value, number, problems, limits)
        if weapon:
            record["weapons"].append(weapon)
    elif key == "trait":
        trait = _trait(value, number, problems)
        if trait:
            record["traits"].append(trait)
    elif key == "magic":
        name, _, points = value.rpartition(" ")
        if not name or not re.fullmatch(r"[0-9]+", points):
            problems.append(f"Line {number}: write magic as `magic: Force 2` (name, points).")
        elif (problem := _name_problem(name, number, "magic's name")) is not None:
            problems.append(problem)
        else:
            record["magic"].append(
                {
                    "name": name.strip(),
                    "points": _sheet_number(points, "Magic points", limits),
                    "techniques": [],
                }
            )
    elif key == "technique":
        name, _, tier = value.rpartition(" ")
        if not record["magic"]:
            problems.append(f"Line {number}: put a `magic:` line before its techniques.")
        elif not name or not _DIE.match(tier):
            problems.append(f"Line {number}: write a technique as `technique: Telekinesis d4`.")
        elif (problem := _name_problem(name, number, "technique's name")) is not None:
            problems.append(problem)
        else:
            record["magic"][-1]["techniques"].append(
                {"name": name.strip(), "tier": tier.casefold()}
            )


def _player_may_not(record: dict[str, Any], key: str, value: str, number: int) -> str | None:
    """A player's sheet line that sets what only a GM sets (the wound track, the kind), or None.

    A player's sheet is a PC's: it survives 3 wounds, and `tough: 3` or `kind: pc` say
    no more than that, so they pass.
    """
    if record.get("kind") != "pc":
        return None
    if key in ("tough", "survives", "wounds_survived") and value.strip() != "3":
        return (
            f"Line {number}: a player character always survives 3 wounds; only a GM sets "
            "tough (2 or 3) on an NPC. Remove this line."
        )
    if key == "kind" and value.strip().casefold() != "pc":
        return (
            f"Line {number}: a player's sheet is always a player character's; only a GM "
            "makes NPCs (with [[npc]]). Remove this line."
        )
    return None


def amend(character: Character, amendment: str) -> tuple[Character, str]:
    """Apply one GM amendment of ``[[approve with ...]]``; the new character, in words.

    >>> from referee.systems.stepped import Character, Kind
    >>> amend(Character("Brute", Kind.NPC, {}), "tough 2")[1]
    'survives 2 wounds'
    """
    words = amendment.split()
    head = words[0].casefold()
    if amendment.casefold() == "named":
        return replace(character, named=True), "named"
    if amendment.casefold() in ("not named", "unnamed"):
        return replace(character, named=False), "not named"
    if head in ("tough", "survives", "capacity") and len(words) == 2:
        survived = read_int(words[1], "Wounds survived", 0, DEFAULT_LIMITS.max_sheet_number)
        if character.kind == Kind.PC:
            raise UserError(
                f"{character.name} is a player character and always survives 3 wounds; "
                "tough (2 or 3) is for NPCs."
            )
        return replace(character, wounds_survived=survived), f"survives {survived} wounds"
    if head in ("forbid", "move"):
        target = " ".join(words[1:])
        tier = 0  # the die tier a moved technique goes to
        if head == "move":
            target, _, tier_word = target.rpartition(" to ")
            digits = tier_word.casefold().lstrip("d")
            tier = int(digits) if re.fullmatch("[0-9]{1,2}", digits) else 0
            if tier not in LADDER:
                raise UserError(
                    f"Move a technique to a die tier, like `move {target or 'X'} to d8`."
                )
        magic = []
        found = False
        for parameter in character.magic:
            techniques = []
            for technique in parameter.techniques:
                if technique.name.casefold() != target.casefold():
                    techniques.append(technique)
                    continue
                found = True
                if head == "move":  # forbidding drops the technique
                    techniques.append(replace(technique, tier=tier))
            magic.append(replace(parameter, techniques=tuple(techniques)))
        if not found:
            raise UnknownName(f"{character.name} has no technique called '{target}'.")
        words_out = f"moved {target} to d{tier}" if head == "move" else f"forbade {target}"
        return replace(character, magic=tuple(magic)), words_out
    raise UserError(
        f"'{amendment}' is not an amendment. Use: named, not named, tough N, "
        "move TECHNIQUE to dX, forbid TECHNIQUE, force."
    )


class SteppedSheet:
    """Stepped's :class:`~referee.system.SheetFormat`: the ``[[apply]]`` text, records, rules."""

    form = SHEET_FORM
    # A legal sheet in this format (`referee new` writes it beside a new campaign).
    sample = """\
name: Orla Vex
race: human
background: experienced
strength: 2
agility: d8
endurance: 2
perception: 2
armour: 1
weapon: blaster pistol, ranged, 2d6
weapon: stun baton, melee, +1, subdue
"""

    def parse(self, text: str, limits: Limits = DEFAULT_LIMITS, kind: str = "pc") -> dict[str, Any]:
        """A sheet's text -> a record; a player's (``kind="pc"``) may not set tough or kind."""
        record = parse_sheet(text, owner_kind=kind, limits=limits)
        record.setdefault("kind", kind)
        return record

    def from_record(self, record: Mapping[str, Any]) -> Character:
        return character_from_record(record)

    def to_record(self, character: Character) -> dict[str, Any]:
        return character_to_record(character)

    def validate(self, character: Character, rules: Rules) -> list[str]:
        return validate_character(character, rules)

    def amend(self, character: Character, amendment: str) -> tuple[Character, str]:
        return amend(character, amendment)
