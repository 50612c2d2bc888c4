"""``trikus`` characters as the core keeps them: the application sheet, the stored record, checks.

A player applies with a code block of ``key: value`` lines under ``[[apply]]``::

    ```
    name: Kara Venn
    tier: advanced
    light: loyal, brave          # Light sides: Beginner 3, Advanced 2, Master 1
    dark: vain, reckless         # Dark sides: Beginner 1, Advanced 2, Master 3
    item: Vibroblade (offensive, defensive)   # one line per item, 1-3 traits
    ally: R4 droid               # one line per ally (each adds a die in a fight)
    ```

A trait written ``?sith`` is one the owner does not know yet (the GM writes those,
with ``[[approve with item Amulet (helpful, ?sith)]]``). Lines, Morale, tokens and
status are play state: a new character starts with every line free and nothing else.

The store keeps one versioned record per character: :meth:`Character.to_dict
<.state.Character.to_dict>` (sheet and state together) plus ``kind``. The owner is
the campaign's fact (the store entry's ``owner``), filled into ``Character.player``
when the party is read (:mod:`.party`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from referee.base.english import with_article
from referee.base.errors import StoreError, UserError
from referee.base.limits import DEFAULT_LIMITS, Limits, is_visible
from referee.read.sheets import read_key_values
from referee.system.validation import check_version
from referee.systems.trikus.state import (
    STATE_VERSION,
    Character,
    Item,
    Line,
    Status,
    Tier,
    Trait,
)

MAX_SHEET_LINES = 40
MAX_ITEMS = 20
_ITEM = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<traits>[^()]*)\)$")
_TRAITS = ", ".join(t.value for t in Trait)

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below), one `key: value` a line: "
    "`name: Kara Venn`, `tier: beginner` (or advanced, master), `light: brave, loyal, kind` "
    "and `dark: vain` (Light and Dark sides: a beginner writes 3 and 1, an advanced 2 and 2, "
    "a master 1 and 3; `dark: hidden` where the ruling `gm_blind_dark` hides them from the GM), "
    "then optionally `item: Vibroblade (offensive, defensive)` and "
    "`ally: R4 droid`, one line each."
)


def parse_item(text: str, limits: Limits = DEFAULT_LIMITS) -> Item:
    """``Name (trait, ?trait)`` -> an item; UserError naming the traits. ``?`` marks a hidden one.

    >>> parse_item("Amulet (helpful, ?sith)")
    Item(name='Amulet', traits=(<Trait.HELPFUL: 'helpful'>, <Trait.SITH: 'sith'>), \
known=(True, False), spent=False)
    """
    match = _ITEM.match(" ".join(text.split()))
    if match is None:
        raise UserError(f"Write an item as `Name (trait, trait)`; the traits are {_TRAITS}.")
    name = match.group("name").strip()
    if not is_visible(name) or len(name) > limits.max_name_chars:
        raise UserError(f"An item's name has 1 to {limits.max_name_chars} characters.")
    words = [w.strip().casefold() for w in match.group("traits").split(",") if w.strip()]
    if not 1 <= len(words) <= 3:
        raise UserError(f"{name} has 1 to 3 pips, each a trait ({_TRAITS}).")
    traits, known = [], []
    for word in words:
        try:
            traits.append(Trait(word.lstrip("?").strip()))
        except ValueError:
            raise UserError(
                f"{name}: '{word[:30]}' is not a trait; the traits are {_TRAITS}."
            ) from None
        known.append(not word.startswith("?"))
    return Item(name, tuple(traits), tuple(known))


def _list(value: str) -> list[str]:
    return [" ".join(part.split()) for part in value.split(",") if part.strip()]


class TrikusSheet:
    """The :class:`~referee.system.SheetFormat` of ``trikus``."""

    form = SHEET_FORM
    # A legal sheet in this format (`referee new` writes it beside a new campaign).
    sample = """\
name: Pawel
tier: beginner
light: honest, quick, stubborn
dark: jealous
item: Vibroblade (offensive, defensive)
"""

    def parse(self, text: str, limits: Limits = DEFAULT_LIMITS, kind: str = "pc") -> dict[str, Any]:
        """A sheet's text as a record; UserError naming every line it cannot read."""
        if kind != "pc":
            raise UserError(
                "A trikus campaign keeps only player characters: the GM's side is a pool of "
                "dice set when the GM opens a test or a fight."
            )
        record: dict[str, Any] = {"kind": "pc", "equipment": [], "allies": []}
        record["name"] = read_key_values(
            text,
            SHEET_FORM,
            MAX_SHEET_LINES,
            limits,
            lambda key, value: self._read(record, key, value, limits),
            required=("tier",),
            repeatable=frozenset({"item", "equipment", "ally", "allies"}),
        )
        return record

    def _read(self, record: dict[str, Any], key: str, value: str, limits: Limits) -> None:
        if key == "tier":
            try:
                record["tier"] = Tier(value.strip().casefold()).value
            except ValueError:
                raise UserError("tier is beginner, advanced or master.") from None
        elif key in ("dark", "dark sides") and value.strip().casefold() == "hidden":
            record["dark_sides"] = []  # gm_blind_dark: the player keeps them off the forum
        elif key in ("light", "dark", "light sides", "dark sides"):
            names = _list(value)
            if any(len(n) > limits.max_name_chars for n in names):
                raise UserError(f"a side is at most {limits.max_name_chars} characters.")
            record[f"{key.split()[0]}_sides"] = names
        elif key in ("item", "equipment"):
            if len(record["equipment"]) >= MAX_ITEMS:
                raise UserError(f"a sheet lists at most {MAX_ITEMS} items.")
            item = parse_item(value, limits)
            record["equipment"].append(
                {"name": item.name, "traits": [t.value for t in item.traits], "known": item.known}
            )
        elif key in ("ally", "allies"):
            names = _list(value)
            if any(len(n) > limits.max_name_chars or not is_visible(n) for n in names):
                raise UserError(f"an ally's name has 1 to {limits.max_name_chars} characters.")
            record["allies"].extend(names)
        else:
            raise UserError(
                f"'{key[:30]}' is not part of a trikus sheet (name, tier, light, dark, item, ally)."
            )

    def from_record(self, record: Mapping[str, Any]) -> Character:
        """A stored, shipped or parsed record -> the character; StoreError/UserError if malformed.

        A record without play state (a new sheet) starts with every line free.
        """
        # A shipped or parsed sheet has no version yet: it is read as the current one.
        check_version({"version": STATE_VERSION, **record}, STATE_VERSION, "trikus character")
        try:
            tier = Tier(record.get("tier"))
            full = Character.from_dict({**record, "version": STATE_VERSION, "player": ""})
        except (StoreError, KeyError):
            full = None
        except ValueError as error:
            raise UserError(f"tier is beginner, advanced or master ({error}).") from error
        if full is not None:
            return replace(full, player=str(record.get("player", "")))
        try:
            equipment = tuple(
                Item(
                    str(i["name"]),
                    tuple(Trait(t) for t in i["traits"]),
                    tuple(bool(k) for k in i.get("known", ())),
                    bool(i.get("spent", False)),
                )
                for i in record.get("equipment", ())
            )
            return Character(
                name=str(record["name"]),
                player=str(record.get("player", "")),
                tier=tier,
                lines=tuple(Line(dice) for dice in tier.lines),
                morale=int(record.get("morale", 0)),
                light=int(record.get("light", 0)),
                dark_active=int(record.get("dark_active", 0)),
                light_sides=tuple(str(s) for s in record.get("light_sides", ())),
                dark_sides=tuple(str(s) for s in record.get("dark_sides", ())),
                equipment=equipment,
                allies=tuple(str(a) for a in record.get("allies", ())),
                status=Status(record.get("status", "active")),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise UserError(
                f"A trikus character needs a name, a tier and lists of sides ({error!r})."
            ) from error

    def to_record(self, character: Character) -> dict[str, Any]:
        """The character as the store keeps it (lines, Morale, tokens and status included)."""
        return {**character.to_dict(), "kind": "pc"}

    def validate(self, character: Character, rules: Any) -> list[str]:
        """Every way the sheet breaks §3.1/§3.5, each a sentence (the sides' counts by tier)."""
        problems: list[str] = []
        light, dark = character.tier.sides
        tier = with_article(character.tier.value, capital=True)
        blind = bool(getattr(rules, "gm_blind_dark", False))
        if len(character.light_sides) != light:
            problems.append(
                f"{tier} writes {light} Light side(s), not {len(character.light_sides)}."
            )
        if blind and character.dark_sides:
            problems.append(
                "This campaign hides Dark sides from the GM (gm_blind_dark), and the GM reads "
                "every post: write `dark: hidden` and keep your Dark sides in your own notes."
            )
        elif not blind:
            party_writes = getattr(rules, "party_writes_master_dark", False)
            others = ""
            if character.tier is Tier.MASTER and party_writes:
                dark, others = 1, " (the other players write the other two with [[darkside]])"
            if len(character.dark_sides) != dark:
                problems.append(
                    f"{tier} writes {dark} Dark side(s) here, not {len(character.dark_sides)}"
                    f"{others}."
                )
        for what, names in (
            ("Light sides", character.light_sides),
            ("Dark sides", character.dark_sides),
            ("allies", character.allies),
            ("items", tuple(i.name for i in character.equipment)),
        ):
            if len({n.casefold() for n in names}) != len(names):
                problems.append(f"The {what} name one thing twice.")
        return problems

    def amend(self, character: Character, amendment: str) -> tuple[Character, str]:
        """``[[approve with ...]]``: ``tier advanced``, ``item Name (traits)`` or ``ally Name``."""
        word, _, rest = amendment.strip().partition(" ")
        word, rest = word.casefold(), rest.strip()
        if word == "tier" and rest:
            try:
                tier = Tier(rest.casefold())
            except ValueError:
                raise UserError("tier is beginner, advanced or master.") from None
            lines = tuple(Line(d) for d in tier.lines)
            return replace(character, tier=tier, lines=lines), f"tier {tier.value}"
        if word == "item" and rest:
            item = parse_item(rest)
            kept = tuple(
                i for i in character.equipment if i.name.casefold() != item.name.casefold()
            )
            return replace(character, equipment=(*kept, item)), f"item {item.name}"
        if word == "ally" and rest:
            return replace(character, allies=(*character.allies, " ".join(rest.split()))), (
                f"ally {rest}"
            )
        raise UserError(
            f"'{amendment[:40]}' is not an amendment. Write `tier advanced`, "
            "`item Amulet (helpful, ?sith)` or `ally R4 droid`."
        )
