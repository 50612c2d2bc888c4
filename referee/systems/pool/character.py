"""``pool`` characters as the core keeps them: the application sheet, the stored record, checks.

A player applies with a code block of ``key: value`` lines under ``[[apply]]``::

    ```
    name: Kara Venn
    dexterity: 3
    wits: 2
    stealth: 4
    brawl: 2
    willpower: 6
    humanity: 7
    ```

Traits are the campaign's Attributes and Abilities (``[rulings] attributes`` and
``abilities``; a trait left out is 0, "never learned"), each 0-5; Willpower and
Humanity are 1-10. Willpower points, the free-botch flag and the GM's counters are
play state: a new character starts with every Willpower point, his free botch
unspent and no counters.

One :class:`PoolCharacter` is the approved sheet and its state together; the store
keeps it as one versioned JSON record (:meth:`PoolSheet.to_record`).

>>> form = PoolSheet()
>>> kara = form.from_record(form.parse("name: Kara\\ndexterity: 3\\nstealth: 4\\nwillpower: 6"))
>>> kara.sheet.traits, kara.state.willpower_points
({'dexterity': 3, 'stealth': 4}, 6)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from referee.base.errors import UserError
from referee.base.limits import DEFAULT_LIMITS, Limits, read_int
from referee.read.sheets import read_key_values
from referee.system.validation import check_version
from referee.systems.changes import Change, apply_changes, find_name

from .rolls import Actor, Table
from .sheet import HUMANITY, WILLPOWER, Sheet, State, TraitLists, sheet_problems, state_problems

RECORD_VERSION = 1
MAX_SHEET_LINES = 60
_KINDS = ("pc", "npc")

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below) with one `key: value` per "
    "line: `name: Kara Venn`, then each Attribute and Ability you have with its rating 0-5 "
    "(`dexterity: 3`, `stealth: 4`; one left out is 0), `willpower: 6` and `humanity: 7` "
    "(1-10)."
)


@dataclass(frozen=True)
class PoolCharacter:
    """An approved sheet and what play has changed on it."""

    sheet: Sheet
    state: State
    kind: str = "pc"  # "pc" (a player's) or "npc" (a GM's)

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def actor(self) -> Actor:
        """The character as the rules engine reads it."""
        return Actor(self.sheet, self.state)

    def changed(self, changes: tuple[Change, ...]) -> PoolCharacter:
        """The character with the engine's changes to it (sheet and state) applied.

        Each change's ``before`` is checked against now (ValueError if stale).

        >>> kara = PoolCharacter(Sheet("Kara", willpower=5), State(5))
        >>> spent = Change("character", "Kara", "willpower_points", 5, 4)
        >>> kara.changed((spent,)).state.willpower_points
        4
        """
        return replace(
            self,
            sheet=apply_changes(self.sheet, "sheet", self.name, changes),
            state=apply_changes(self.state, "character", self.name, changes),
        )


def _number(value: str, what: str, limits: Limits) -> int:
    return read_int(value, what, -limits.max_sheet_number, limits.max_sheet_number)


class PoolSheet:
    """The :class:`~referee.system.SheetFormat` of ``pool``."""

    form = SHEET_FORM
    # A legal sheet in this format (`referee new` writes it beside a new campaign).
    sample = """\
name: Nova Quill
dexterity: 3
perception: 3
wits: 2
alertness: 2
stealth: 3
willpower: 5
humanity: 7
"""

    def parse(self, text: str, limits: Limits = DEFAULT_LIMITS, kind: str = "pc") -> dict[str, Any]:
        """A sheet's text as a record of ``kind``; UserError naming every line it cannot read.

        Trait names are kept as written (folded); validation matches them against the
        campaign's lists, so a misspelt trait is reported with the others.
        """
        record: dict[str, Any] = {"kind": kind, "traits": {}}

        def read_line(key: str, value: str) -> None:
            if key in record["traits"] or key in record:
                raise UserError(f"{key} is given twice.")
            rating = _number(value, key, limits)
            if key in (WILLPOWER, HUMANITY):
                record[key] = rating
            else:
                record["traits"][key] = rating

        record["name"] = read_key_values(text, SHEET_FORM, MAX_SHEET_LINES, limits, read_line)
        return record

    def from_record(self, record: Mapping[str, Any]) -> PoolCharacter:
        """A stored, shipped or parsed record -> the character; UserError if it is malformed.

        A record without play state (a shipped or parsed sheet) starts fresh: every
        Willpower point, the free botch unspent, no counters.
        """
        # A shipped or parsed sheet has no version yet: it is read as the current one.
        check_version({"version": RECORD_VERSION, **record}, RECORD_VERSION, "pool character")
        try:
            sheet = Sheet(
                name=str(record["name"]),
                traits={str(k): v for k, v in dict(record.get("traits", {})).items()},
                willpower=record.get(WILLPOWER, 1),
                humanity=record.get(HUMANITY, 7),
            )
            turn, acted = record.get("willpower_turn"), record.get("acted_turn")
            state = State(
                willpower_points=record.get("willpower_points", sheet.willpower),
                free_botch_used=bool(record.get("free_botch_used", False)),
                willpower_turn=None if turn is None else str(turn),
                counters={str(k): v for k, v in dict(record.get("counters", {})).items()},
                acted_turn=None if acted is None else str(acted),
            )
            return PoolCharacter(sheet, state, str(record.get("kind", "pc")))
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(
                f"A pool character needs a name, traits, willpower and humanity ({error})."
            ) from error

    def to_record(self, character: PoolCharacter) -> dict[str, Any]:
        """The character as the store keeps it (Willpower points and counters included)."""
        sheet, state = character.sheet, character.state
        return {
            "version": RECORD_VERSION,
            "name": sheet.name,
            "kind": character.kind,
            "traits": dict(sheet.traits),
            WILLPOWER: sheet.willpower,
            HUMANITY: sheet.humanity,
            "willpower_points": state.willpower_points,
            "free_botch_used": state.free_botch_used,
            "willpower_turn": state.willpower_turn,
            "counters": dict(state.counters),
            **({"acted_turn": state.acted_turn} if state.acted_turn else {}),
        }

    def validate(self, character: PoolCharacter, rules: Table) -> list[str]:
        """Every way the character breaks the campaign's lists and ranges, each a sentence."""
        lists = rules.traits
        sheet, problems = _known_traits(character.sheet, lists)
        problems += [p for p in sheet_problems(sheet, lists) if p not in problems]
        if character.kind not in _KINDS:
            problems.append(f"kind is {character.kind!r}: a character is a pc or an npc.")
        problems += state_problems(character.state, sheet)
        return problems

    def amend(self, character: PoolCharacter, amendment: str) -> tuple[PoolCharacter, str]:
        """``[[approve with dexterity 3]]``: set one rating (checked by the validation after)."""
        words = amendment.split()
        if len(words) >= 2 and re.fullmatch(r"[+-]?[0-9]{1,3}", words[-1]):
            trait = " ".join(words[:-1]).casefold()
            value = int(words[-1])
            sheet = character.sheet
            if trait == WILLPOWER:
                sheet = replace(sheet, willpower=value)
                state = replace(character.state, willpower_points=value)
                return replace(character, sheet=sheet, state=state), f"{trait} {value}"
            if trait == HUMANITY:
                return replace(character, sheet=replace(sheet, humanity=value)), f"{trait} {value}"
            sheet = replace(sheet, traits={**sheet.traits, trait: value})
            return replace(character, sheet=sheet), f"{trait} {value}"
        raise UserError(
            f"'{amendment[:40]}' is not an amendment. Write a trait and a rating: dexterity 3."
        )


def _known_traits(sheet: Sheet, lists: TraitLists) -> tuple[Sheet, list[str]]:
    """The sheet without traits the campaign lacks, and a sentence for each of those.

    A sheet names each trait as the campaign spells it, so that rolls and the GM's
    edits find it; a short or misspelt name is refused with the name it means.
    """
    known = (*lists.attributes, *lists.abilities)
    traits = {name: value for name, value in sheet.traits.items() if name in known}
    problems: list[str] = []
    for typed in sheet.traits:
        if typed in known:
            continue
        try:
            meant = find_name(typed, known, "trait")
        except UserError as error:
            problems.append(error.message)
        else:
            problems.append(f"'{typed}': write the trait's full name, {meant}.")
            traits.setdefault(meant, sheet.traits[typed])  # its rating is checked too
    return replace(sheet, traits=traits), problems
