"""``hits`` characters as the core keeps them: the application sheet, the stored record, checks.

A player applies with a code block of ``key: value`` lines under ``[[apply]]``::

    ```
    name: Kara Venn
    primary: body            # 4 dice
    secondary: mind          # 3 dice; talent and spirit are 2
    skill: Swordsmanship 2   # a source of dice, by name and Rank
    ability: Stormcalling 1
    benefit: Fearless 1
    technique: Fire Lance 1
    bond: Old Sergeant Bram 1
    ```

The attributes may be written out instead (``body: 4``, ``talent: 2``...). A player's
character starts at the campaign's Level (``start_level``), with full Health; play
state (XP, Stress, Wounds, Influence...) is the referee's to keep. A GM importing an
NPC (``kind = "npc"``) may also give ``level`` and any attributes.

Skills, Abilities and Benefits are sources of dice a roll or a duel names; Techniques
and Bonds are listed so the sheet is whole and level-up gains can name them.

The store keeps one versioned JSON record per character (:func:`.sheet.character_to_dict`
plus ``kind``); a shipped or example sheet may be written in the short form above (as
TOML or JSON), and :meth:`HitsSheet.from_record` fills in the rest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.base.english import with_article
from referee.base.errors import RuleViolation, UserError
from referee.base.limits import DEFAULT_LIMITS, Limits, is_visible, read_int
from referee.read.sheets import read_key_values
from referee.systems.changes import find_name

from .records import FORMAT_VERSION
from .rulings import Rulings
from .sheet import (
    MAX_RANK,
    TRAIT_FIELDS,
    Attribute,
    Character,
    Standing,
    TraitKind,
    character_from_dict,
    character_problems,
    character_to_dict,
    creation_problems,
    edit_counter,
    grown_problems,
    with_rank,
)

MAX_SHEET_LINES = 60
_TRAIT_LINE = re.compile(r"^(.*?\S)\s+([0-9]{1,3})$")
_KINDS = ("pc", "npc")

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below) with one `key: value` per "
    "line: `name: Kara Venn`, `primary: body`, `secondary: mind` (or each attribute: "
    "`body: 4`, `talent: 2`, `spirit: 2`, `mind: 3`), then any `skill: Swordsmanship 2`, "
    "`ability: ...`, `benefit: ...`, `technique: ...` or `bond: ...` lines (a name and a Rank)."
)


_LISTED = frozenset(kind.value for kind in TraitKind)  # a trait a line, as many as it has


def _pairs(value: object) -> list[list[Any]]:
    """Traits as [name, Rank] pairs, from a list of pairs or a {name: Rank} table."""
    if isinstance(value, Mapping):
        return [[str(name), rank] for name, rank in value.items()]
    if isinstance(value, (list, tuple)):
        return [list(item) if isinstance(item, (list, tuple)) else item for item in value]
    raise RuleViolation("Traits are a table of name = Rank, or a list of [name, Rank] pairs.")


def full_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A short-form sheet (an application, a shipped or example sheet) as a whole record.

    >>> full_record({"name": "Kara", "primary": "body", "secondary": "mind"})["attributes"]
    {'body': 4, 'talent': 2, 'spirit': 2, 'mind': 3}
    """
    if "version" in record:
        return dict(record)
    attributes = dict(record.get("attributes", {}))
    for attribute in Attribute:
        if attribute.value in record:
            attributes[attribute.value] = record[attribute.value]
    if "primary" in record or "secondary" in record:
        try:
            primary = Attribute(str(record.get("primary", "")).casefold())
            secondary = Attribute(str(record.get("secondary", "")).casefold())
        except ValueError:
            raise RuleViolation(
                "primary and secondary each name an attribute: body, talent, spirit or mind."
            ) from None
        if primary == secondary:
            raise RuleViolation(f"{primary.value} cannot be both primary and secondary.")
        attributes = {a.value: 2 for a in Attribute}
        attributes[primary.value], attributes[secondary.value] = 4, 3
    kind = str(record.get("kind", "pc"))
    level = record.get("level", 1)
    whole: dict[str, Any] = {
        "version": FORMAT_VERSION,
        "name": record.get("name", ""),
        "attributes": attributes,
        "level": level,
        "xp": record.get("xp", 0),
        "stress": record.get("stress", 0),
        "wounds": record.get("wounds", 0),
        "influence": record.get("influence", 0),
        "player": kind == "pc",
        "standing": record.get("standing", Standing.ACTIVE.value),
        "stakes": list(record.get("stakes", [])),
        "lost_wagers": list(record.get("lost_wagers", [])),
        "legend": record.get("legend", False),
        "saved": {"tiers": 0, "ranks": 0, "benefits": 0, **dict(record.get("saved", {}))},
        "unchosen_levels": record.get("unchosen_levels", 0),
        "advantage": record.get("advantage", 0),
        "disadvantage": record.get("disadvantage", 0),
    }
    for field_name in TRAIT_FIELDS.values():
        whole[field_name] = _pairs(record.get(field_name, []))
    body = attributes.get("body", 0)
    if "health" in record:
        whole["health"] = record["health"]
    elif isinstance(body, int) and isinstance(level, int):
        whole["health"] = 2 * (body + level)  # a new character has full Health
    else:
        whole["health"] = 0
    return whole


class HitsSheet:
    """The :class:`~referee.system.SheetFormat` of ``hits``."""

    form = SHEET_FORM
    # A legal sheet in this format (`referee new` writes it beside a new campaign).
    sample = """\
name: Orin Sall
primary: mind
secondary: spirit
skill: Cartography 2
bond: Nova Quill 1
"""

    def parse(self, text: str, limits: Limits = DEFAULT_LIMITS, kind: str = "pc") -> dict[str, Any]:
        """A sheet's text as a short-form record of ``kind``; UserError naming every bad line."""
        record: dict[str, Any] = {"kind": kind}
        traits: dict[str, dict[str, int]] = {f: {} for f in TRAIT_FIELDS.values()}

        def read_line(key: str, value: str) -> None:
            self._line(record, traits, key, " ".join(value.split()), kind, limits)

        record["name"] = read_key_values(
            text, SHEET_FORM, MAX_SHEET_LINES, limits, read_line, repeatable=_LISTED
        )
        record.update({field: list(map(list, found.items())) for field, found in traits.items()})
        return record

    def _line(
        self,
        record: dict[str, Any],
        traits: dict[str, dict[str, int]],
        key: str,
        value: str,
        kind: str,
        limits: Limits,
    ) -> None:
        """Read one ``key: value`` line into ``record`` (or ``traits``); UserError if bad."""
        if key in ("primary", "secondary"):
            record[key] = find_name(value, [a.value for a in Attribute], "attribute")
        elif key in {a.value for a in Attribute}:
            record[key] = read_int(value, key, 0, limits.max_sheet_number)
        elif key == "level":
            if kind == "pc":
                raise UserError(
                    "a player's character starts at the campaign's Level; leave `level` out "
                    "(a GM sets it with [[approve with level 3]])."
                )
            record["level"] = read_int(value, "level", 1, 6)
        elif key in {k.value for k in TraitKind}:
            match = _TRAIT_LINE.match(value)
            if match is None:
                raise UserError(
                    f"write {with_article(key)}'s name, then its Rank: `{key}: Swordsmanship 2`."
                )
            name, rank = match.group(1), read_int(match.group(2), "a Rank", 0, MAX_RANK)
            if len(name) > limits.max_name_chars or not is_visible(name):
                raise UserError(
                    f"{with_article(key)}'s name has 1 to {limits.max_name_chars} characters."
                )
            found = traits[TRAIT_FIELDS[TraitKind(key)]]
            if name.casefold() in {n.casefold() for n in found}:
                raise UserError(f"the {key} {name} is listed twice.")
            found[name] = rank
        else:
            known = "name, primary, secondary, body, talent, spirit, mind, " + ", ".join(
                k.value for k in TraitKind
            )
            raise UserError(f"'{key[:30]}' is not a key; the keys are {known}.")

    def from_record(self, record: Mapping[str, Any]) -> Character:
        """A stored, shipped or parsed record -> the character; UserError if it is malformed."""
        if not isinstance(record, Mapping):
            raise UserError("A hits character is a table of keys and values.")
        if str(record.get("kind", "pc")) not in _KINDS:
            raise UserError(f"kind is {record.get('kind')!r}: a character is a pc or an npc.")
        return character_from_dict(full_record(record))

    def to_record(self, character: Character) -> dict[str, Any]:
        """The character as the store keeps it, its play state included."""
        return {**character_to_dict(character), "kind": "pc" if character.player else "npc"}

    def validate(self, character: Character, rules: Any) -> list[str]:
        """Every way the character breaks §5, each a sentence.

        A player's character at the campaign's starting Level must have the creation
        array (4, 3, 2, 2); later Levels have raised attributes, so only the ranges hold.
        """
        rulings: Rulings = rules.rulings
        problems = [p[0].upper() + p[1:] + "." for p in character_problems(character)]
        if character.player:
            attributes = character.attributes
            if character.level == rulings.start_level:
                problems += [p[0].upper() + p[1:] + "." for p in creation_problems(attributes)]
            elif character.level > rulings.start_level:
                # Approved above the start ([[approve with level 3]]): the array still holds,
                # plus at most what the Levels between could add.
                levels = character.level - rulings.start_level
                grown = grown_problems(attributes, levels)
                problems += [p[0].upper() + p[1:] + "." for p in grown]
            if character.level < rulings.start_level:
                problems.append(
                    f"Level is {character.level}; this campaign starts characters at Level "
                    f"{rulings.start_level} (approve with level {rulings.start_level})."
                )
        return problems

    def amend(self, character: Character, amendment: str) -> tuple[Character, str]:
        """``[[approve with level 3]]``, ``body 4`` or ``skill Swordsmanship 3``."""
        words = amendment.split()
        if len(words) >= 2 and re.fullmatch(r"[0-9]{1,5}", words[-1]):
            value = int(words[-1])
            head = words[0].casefold()
            if head in {k.value for k in TraitKind} and len(words) >= 3:
                name = " ".join(words[1:-1])
                current = dict((n.casefold(), r) for n, r in character.traits(TraitKind(head)))
                changed = with_rank(
                    character, TraitKind(head), name, value - current.get(name.casefold(), 0)
                )
                return changed, f"{head} {name} {value}"
            counter = " ".join(words[:-1]).casefold()
            try:
                changed = edit_counter(character, counter, value)
            except RuleViolation as error:
                raise UserError(error.message) from None
            if counter in ("level", "body"):  # a new character's Health follows them
                changed = replace(changed, health=changed.max_health)
            return changed, f"{counter} {value}"
        raise UserError(
            f"'{amendment[:40]}' is not an amendment. Write a counter and a value (level 3, "
            "body 4) or a trait, its name and Rank (skill Swordsmanship 3)."
        )
