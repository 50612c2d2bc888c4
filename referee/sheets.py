"""The plain-text character sheet players post with ``[[apply]]``.

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
    tough: 3                     # wounds survived: PCs 3; a GM sets it for tough NPCs
    weapon: blaster pistol, ranged, 2d6
    weapon: stun baton, melee, +1, subdue
    magic: Force 2
    technique: Telekinesis d4
    technique: Mind Trick d6
    ```

:func:`parse_sheet` turns it into the sheet record the rules read; every line it
cannot read is reported at once with the line number and the right form.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import UserError
from .limits import DEFAULT_LIMITS, Limits
from .systems import stepped

FENCE = re.compile(r"^[ \t]{0,3}(```+|~~~+)[^\n]*\n(.*?)^[ \t]{0,3}\1[ \t]*$", re.M | re.S)
_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(.*?)\s*$")
_DIE = re.compile(r"^d(\d+)$", re.I)

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below) with one `key: value` per "
    "line: name, race, background, strength, agility, endurance, perception, armour, "
    "weapon (name, ranged, 2d6 / name, melee, +1, subdue), magic (name points) and "
    "technique (name d4)."
)
_SCALARS = {"name", "race", "background", "armour", "armor", "named", "kind"}
_STATS = {"strength", "agility", "endurance", "perception", "str", "agi", "end", "per"}
MAX_SHEET_LINES = 80


def sheet_block(body: str) -> str | None:
    """The first fenced code block of a post, the sheet of an application."""
    match = FENCE.search(body)
    return match.group(2) if match else None


def _points(value: str) -> int | str:
    """Points as a number, or a die written as d4-d20 turned into points."""
    die = _DIE.match(value)
    if die and int(die.group(1)) in stepped.LADDER:
        return stepped.LADDER.index(int(die.group(1))) + 1
    return int(value) if value.lstrip("-").isdigit() else value


def _weapon(value: str, line: int, problems: list[str]) -> dict[str, Any] | None:
    parts = [part.strip() for part in value.split(",") if part.strip()]
    if len(parts) < 2 or parts[1].casefold() not in ("ranged", "melee"):
        problems.append(
            f"Line {line}: write a weapon as `weapon: name, ranged, 2d6` or "
            f"`weapon: name, melee, +1, subdue`."
        )
        return None
    weapon: dict[str, Any] = {"name": parts[0], "kind": parts[1].casefold()}
    for extra in parts[2:]:
        word = extra.casefold()
        if word == "subdue":
            weapon["subdue"] = True
        elif re.fullmatch(r"\d+d\d+([+-]\d+)?", word):
            weapon["damage"] = word
        elif re.fullmatch(r"[+-]?\d+", word):
            weapon["modifier"] = int(word)
        else:
            problems.append(
                f"Line {line}: '{extra}' is not a damage roll (2d6), a modifier (+1) or `subdue`."
            )
    return weapon


def parse_sheet(
    text: str, *, owner_kind: str = "pc", limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """A sheet's text as a sheet record; UserError naming every line it cannot read.

    >>> record = parse_sheet("name: Orla Vex\\nagility: d8\\nweapon: knife, melee, +1")
    >>> record["stats"], record["weapons"]
    ({'agility': 3}, [{'name': 'knife', 'kind': 'melee', 'modifier': 1}])
    """
    problems: list[str] = []
    record: dict[str, Any] = {"kind": owner_kind, "stats": {}, "weapons": [], "magic": []}
    lines = text.splitlines()
    if len(lines) > MAX_SHEET_LINES:
        raise UserError(
            f"This sheet has {len(lines)} lines; a sheet may have at most {MAX_SHEET_LINES}."
        )
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _LINE.match(line)
        if match is None:
            problems.append(f"Line {number} is not `key: value`.")
            continue
        key, value = match.group(1).strip().casefold().replace(" ", "_"), match.group(2)
        if len(value) > limits.max_name_chars * 2:
            problems.append(f"Line {number} is too long.")
        elif key in _STATS:
            record["stats"][key] = _points(value)
        elif key in _SCALARS:
            key = "armour" if key == "armor" else key
            if key == "armour":
                record[key] = _points(value)
            elif key == "named":
                record[key] = value.casefold() in ("yes", "true", "1")
            else:
                record[key] = value
        elif key in ("tough", "survives", "wounds_survived"):
            record["wounds_survived"] = int(value) if value.isdigit() else value
        elif key == "weapon":
            weapon = _weapon(value, number, problems)
            if weapon:
                record["weapons"].append(weapon)
        elif key == "magic":
            name, _, points = value.rpartition(" ")
            if not name or not points.isdigit():
                problems.append(f"Line {number}: write magic as `magic: Force 2` (name, points).")
            else:
                record["magic"].append(
                    {"name": name.strip(), "points": int(points), "techniques": []}
                )
        elif key == "technique":
            name, _, tier = value.rpartition(" ")
            if not record["magic"]:
                problems.append(f"Line {number}: put a `magic:` line before its techniques.")
            elif not name or not _DIE.match(tier):
                problems.append(f"Line {number}: write a technique as `technique: Telekinesis d4`.")
            else:
                record["magic"][-1]["techniques"].append(
                    {"name": name.strip(), "tier": tier.casefold()}
                )
        else:
            problems.append(f"Line {number}: '{match.group(1)}' is not a sheet field.")
    if problems:
        raise UserError(" ".join(problems) + " " + SHEET_FORM)
    return record
