"""The base a dice system derives from: working defaults for everything but its rules.

A system written on :class:`BaseSystem` gives its ``name``, its ``verbs`` (each made
with :func:`verb`) and its ``sheet`` (a :class:`~referee.system.SheetFormat`); every
other member of :class:`~referee.system.System` has a default that works, and the
system overrides one only when its rules need it:

* ``version`` "1", ``description`` and ``seed`` empty;
* ``rulings_type`` :class:`NoRulings` (no options), read from ``[rulings]`` by
  :func:`~referee.system.options.read_options`; ``load_rules`` returns the rulings;
* no tables of its own; ``templates`` the folder ``templates`` beside the module that
  defines the system's class (if there is one);
* ``seed_store`` reads the data folder's ``characters.toml``
  (:func:`~referee.system.seeding.seed_characters`);
* no ``invariants`` beyond the core's, and a voided tag's undo as the core makes it;
* ``end_encounter`` resets nothing;
* ``roster_view`` and ``character_rows`` show the stored sheets as they are
  (:class:`SheetRoster`, rendered by the core's ``roster.md.j2`` unless the system
  ships its own);
* no ``odds_cases``; ``example_campaign`` holds the sheet's ``sample`` character;
* no ``template_helpers``.

What the ledger keeps of a verdict, beside its dice and its changes, is what the
result's ``ledger_facts()`` returns (:func:`kept_facts`); a result without it keeps
nothing more.

May import: :mod:`referee.store` and :mod:`referee.base` only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from referee.base.limits import DEFAULT_LIMITS
from referee.store.records import Undone
from referee.system.interface import (
    CampaignFiles,
    Context,
    ExampleCampaign,
    OddsCase,
    Parser,
    Resolver,
    Verb,
    approved_rows,
)
from referee.system.options import read_options
from referee.system.roster import SheetFormat
from referee.system.seeding import seed_characters


@dataclass(frozen=True)
class NoRulings:
    """The rulings of a system that has none: ``[rulings]`` must be empty."""


def verb(name: str, parse: Parser, resolve: Resolver, usage: str = "", **fields: Any) -> Verb:
    """A :class:`~referee.system.Verb`; ``usage`` is the form a problem verdict shows
    (by default the verb's example, in brackets), ``fields`` the rest of the verb.

    >>> roll = verb("flip", lambda rest, context: rest, lambda r, c, d: None,
    ...             form="flip <character>", help="flips a coin", example="flip Kara")
    >>> roll.usage, verb("flip", roll.parse, roll.resolve, "[[flip NAME]]", form="",
    ...                  help="", example="flip Kara").usage
    ('[[flip Kara]]', '[[flip NAME]]')
    """
    return Verb(name, parse, resolve, usage_text=usage, **fields)


def kept_facts(result: Any) -> dict[str, Any]:
    """What the ledger keeps of a result: its ``ledger_facts()`` (JSON values), else nothing.

    >>> class Total:
    ...     def ledger_facts(self):
    ...         return {"total": 3}
    >>> kept_facts(Total()), kept_facts("no facts")
    ({'total': 3}, {})
    """
    facts = getattr(result, "ledger_facts", None)
    return dict(facts()) if callable(facts) else {}


@dataclass(frozen=True)
class SheetRoster:
    """The default roster view: the approved characters' stored sheets as table rows.

    ``header`` names the columns (name, owner, then the sheets' fields); ``players``
    and ``npcs`` hold one row of strings per character (see :func:`sheet_rows`).
    """

    campaign: str
    header: tuple[str, ...]
    players: tuple[tuple[str, ...], ...]
    npcs: tuple[tuple[str, ...], ...]


def sheet_fields(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The fields of the stored sheets (but the name), in the order they first appear."""
    found: dict[str, None] = {}
    for record in records:
        found.update(dict.fromkeys(key for key in record.get("sheet", {}) if key != "name"))
    return list(found)


def sheet_rows(records: Iterable[Mapping[str, Any]]) -> list[tuple[str, ...]]:
    """``referee characters`` from the stored sheets alone: a header row (name, owner,
    approved, then every field of the sheets), then one row of strings per character.

    >>> sheet_rows([{"name": "Kara", "owner": "ann", "approved": True,
    ...              "sheet": {"name": "Kara", "kind": "pc", "skills": {"fight": 2}}}])
    [('name', 'owner', 'approved', 'kind', 'skills'), ('Kara', 'ann', 'yes', 'pc', 'fight 2')]
    """
    records = list(records)
    fields = sheet_fields(records)
    rows: list[tuple[str, ...]] = [("name", "owner", "approved", *fields)]
    for record in records:
        name, owner, *cells = _row(record, fields)
        rows.append((name, owner, _cell(bool(record.get("approved"))), *cells))
    return rows


def _row(record: Mapping[str, Any], fields: list[str]) -> tuple[str, ...]:
    """A stored character as roster cells: its name, its owner ("-": the GM's), its fields."""
    sheet = record.get("sheet", {})
    name = str(record.get("name") or sheet.get("name", "?"))
    owner = str(record.get("owner") or "-")
    return (name, owner, *(_cell(sheet.get(field)) for field in fields))


def _cell(value: Any) -> str:
    """A stored JSON value in a few words: ``yes``, ``3``, ``fight 2, climb 1``, ``-``."""
    if value is None or value == "" or value == [] or value == {}:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_cell(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(item) for item in value)
    return str(value)


class BaseSystem:
    """A dice system with every member's default: derive, give ``name``, ``verbs`` and
    ``sheet``, override what the rules need. See the module docstring for the defaults."""

    # Required: a subclass sets these three.
    name: str  # as config.toml names it: [campaign] system = "coin"
    verbs: tuple[Verb, ...]  # in the order help lists them
    sheet: SheetFormat

    version = "1"  # recorded in every ledger row: bump it when the rules read dice anew
    description = ""  # one line for `referee systems`
    seed = ""  # the rule text it implements
    rulings_type: type = NoRulings  # a frozen dataclass; every field has a default
    tables: tuple[str, ...] = ()  # the store tables the system owns besides "characters"
    named_tables: tuple[str, ...] = ()  # of those, tables keyed by names players write
    table_sheets: Mapping[str, Any] = MappingProxyType({})  # of those, tables of sheets

    @property
    def templates(self) -> Path | None:
        """The folder ``templates`` beside the module that defines the system, if any."""
        module = sys.modules.get(type(self).__module__)
        file = getattr(module, "__file__", None)
        if not file:
            return None
        folder = Path(file).resolve().parent / "templates"
        return folder if folder.is_dir() else None

    def read_rulings(self, table: Mapping[str, Any]) -> Any:
        """``[rulings]`` read into :attr:`rulings_type`; unknown keys refused, naming the known."""
        return read_options(self.rulings_type, table, self.name)

    def load_rules(self, rulings: Any, campaign: CampaignFiles) -> Any:
        """The rules value: the rulings themselves."""
        return rulings

    def seed_store(self, campaign: CampaignFiles, rules: Any, store: Any) -> None:
        """The data folder's ``characters.toml`` sheets, each read into the store once."""
        seed_characters(self.sheet, campaign.data_dir, rules, store)

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """No invariants beyond the core's."""
        return []

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
    ) -> Undone:
        """The core's undo, as it is."""
        return undone

    def end_encounter(self, context: Context) -> Any:
        """Nothing of the system's to reset."""
        return False

    def roster_view(self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> Any:
        """The approved characters' sheets, the players' and the GM's (a :class:`SheetRoster`)."""
        approved = [record for record in tables.get("characters", ()) if record.get("approved")]
        fields = sheet_fields(approved)
        players, npcs = approved_rows(approved, lambda record: _row(record, fields))
        return SheetRoster(campaign, ("name", "owner", *fields), players, npcs)

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Any
    ) -> list[tuple[str, ...]]:
        """``referee characters``: the stored sheets as they are (:func:`sheet_rows`)."""
        return sheet_rows(records)

    def odds_cases(self) -> Iterable[OddsCase]:
        """No odds of its own (a system that rolls dice lists every kind of roll)."""
        return ()

    def example_campaign(self) -> ExampleCampaign:
        """The sheet's ``sample`` character (a player's), if the sheet has one."""
        sample = str(getattr(self.sheet, "sample", "")).strip()
        if not sample:
            return ExampleCampaign({})
        character = self.sheet.from_record(self.sheet.parse(sample, DEFAULT_LIMITS, "pc"))
        return ExampleCampaign({"characters": (self.sheet.to_record(character),)})

    def template_helpers(self) -> Mapping[str, Any]:
        """No filters or globals of its own."""
        return {}
