"""The ``edge`` system as the core sees it: :data:`SYSTEM`, a :class:`referee.system.System`.

This module only assembles: the campaign's rulings (R-13, R-39 and the stat and
counter lists, all in ``[rulings]``), the verbs (parsers of :mod:`.tags`, resolvers
of :mod:`.handlers`), the sheet (:mod:`.application`), the roster view, the exact
odds the conformance kit checks, and the templates in ``templates/`` beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.base.errors import ConfigError
from referee.system import (
    CampaignFiles,
    Context,
    ExampleCampaign,
    OddsCase,
    approved_rows,
    verb,
)
from referee.system.base import BaseSystem
from referee.system.options import read_options
from referee.system.validation import problems_message

from . import handlers, tags, undo, who
from .application import EdgeCharacter, EdgeSheet
from .bands import Band
from .moves import Pending, Table
from .odds_cases import odds_cases
from .rulings import EdgeRulings
from .sheet import DEFAULT_COUNTERS, DEFAULT_STATS, StatLists


@dataclass(frozen=True)
class CampaignRulings(EdgeRulings):
    """Everything ``[rulings]`` sets for an ``edge`` campaign: R-13, R-39, the stat lists.

    The seed names no stats, so the campaign does (default: Apocalypse World's).
    """

    # The campaign's stats, each a number on a sheet (the seed names none).
    stats: tuple[str, ...] = field(default=DEFAULT_STATS, metadata={"length": (1, 20)})
    # The counters each character keeps besides its stats, starting at 0.
    counters: tuple[str, ...] = field(default=DEFAULT_COUNTERS, metadata={"length": (0, 20)})
    stat_min: int = field(default=-3, metadata={"range": (-10, 10)})  # the lowest stat on a sheet
    stat_max: int = field(default=3, metadata={"range": (-10, 10)})  # the highest stat on a sheet

    @property
    def lists(self) -> StatLists:
        """The stat and counter lists, names folded as tags compare them."""
        return StatLists(
            tuple(" ".join(name.split()).casefold() for name in self.stats),
            tuple(" ".join(name.split()).casefold() for name in self.counters),
            self.stat_min,
            self.stat_max,
        )


def read_rulings(table: Mapping[str, Any]) -> CampaignRulings:
    """``[rulings]`` -> the rulings; ConfigError naming every bad key, value and list."""
    rulings = read_options(CampaignRulings, table, "edge")
    problems = rulings.lists.problems()
    if problems:
        raise ConfigError(problems_message("The edge rulings in config.toml", problems, "have"))
    return rulings


_MOVE = {
    "form": 'move <character> <stat or counter> [+N/-N] [edge=<policy>] ["move name"]',
    "help": "a move: 2d6 + a stat or counter; 6- miss, 7-9 success with a cost, 10+ success",
}

VERBS = (
    verb(
        "roll",
        tags.parse_move,
        handlers.resolve_move_tag,
        tags.MOVE_USAGE,
        form="roll <character> +<stat or counter> [options as move]",
        help="a move, written the way the table says it (roll +cool)",
        example="roll Kara +cool",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.ROLL_OPTIONS,
    ),
    verb(
        "move",
        tags.parse_move,
        handlers.resolve_move_tag,
        tags.MOVE_USAGE,
        example='move Kara cool +1 edge=hit "act under fire"',
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.MOVE_OPTIONS,
        **_MOVE,
    ),
    verb(
        "policy",
        tags.parse_policy,
        handlers.resolve_policy,
        tags.POLICY_USAGE,
        form="policy <character> <up, hit, strong, always or never>",
        help="when the advantage die is spent: up (raises the band), hit, strong, always, never",
        example="policy Kara strong",
    ),
    verb(
        "edge",
        tags.answer_parser(True, tags.EDGE_USAGE),
        handlers.resolve_answer,
        tags.EDGE_USAGE,
        form="edge <character>",
        help='answers a move waiting under edge_use = "ask": the advantage replaces the lower die',
        example="edge Mara",
    ),
    verb(
        "keep",
        tags.answer_parser(False, tags.KEEP_USAGE),
        handlers.resolve_answer,
        tags.KEEP_USAGE,
        form="keep <character>",
        help='answers a move waiting under edge_use = "ask": it stands as rolled, advantage kept',
        example="keep Dax",
    ),
    verb(
        "final",
        tags.answer_parser(False, tags.FINAL_USAGE),
        handlers.resolve_answer,
        tags.FINAL_USAGE,
        form="final <character>",
        help="GM: a waiting move its player has not answered stands as rolled (as keep)",
        example="final Raider Boss",
        gm_only="settle a move its player has not answered",
    ),
    verb(
        "lower",
        tags.named_parser(tags.LOWER_USAGE),
        handlers.resolve_lower,
        tags.LOWER_USAGE,
        form="lower <character>",
        help="GM: lowers the advantage die by one (a GM move), never below 1",
        example="lower Kara",
        gm_only="lower the advantage die (it is one of the GM's moves)",
    ),
    verb(
        "raise",
        tags.named_parser(tags.RAISE_USAGE),
        handlers.resolve_raise,
        tags.RAISE_USAGE,
        form="raise <character>",
        help="raises the advantage die by one, up to 6 (the GM's, unless edge_raise = player)",
        example="raise Kara",
    ),
    verb(
        "set",
        tags.parse_set,
        handlers.resolve_set,
        tags.SET_USAGE,
        form="set <character> <advantage, a stat or a counter> <value>",
        help="GM: sets the advantage die (1-6), a stat or a counter",
        example="set Kara harm 2",
        gm_only="set the advantage die, stats and counters",
    ),
)


@dataclass(frozen=True)
class CharacterRow:
    """One approved character as the roster shows it."""

    name: str
    owner: str | None
    stats: tuple[tuple[str, int], ...]
    counters: tuple[tuple[str, int], ...]
    advantage: int
    policy: str  # "up", or "default" when the campaign's default is in force


@dataclass(frozen=True)
class RosterView:
    """What ``roster.md.j2`` receives."""

    campaign: str
    players: tuple[CharacterRow, ...]
    npcs: tuple[CharacterRow, ...]


SHEET = EdgeSheet()


def _row(record: Mapping[str, Any]) -> CharacterRow:
    character = SHEET.from_record(record["sheet"])
    return CharacterRow(
        character.name,
        record.get("owner"),
        tuple(character.stats.items()),
        tuple((k, v) for k, v in character.counters.items() if v),
        character.advantage,
        character.policy.value if character.policy else "default",
    )


class Edge(BaseSystem):
    """Seed 003: 2d6 + stat moves in three bands, and the advantage die."""

    name = "edge"
    version = "1"
    description = "2d6 + stat moves (6- miss, 7-9 cost, 10+ success) with the advantage die"
    seed = "seed 003 (RULES.md §4)"
    verbs = VERBS
    sheet = SHEET
    rulings_type = CampaignRulings
    tables = (handlers.ENCOUNTERS,)

    def read_rulings(self, table: Mapping[str, Any]) -> CampaignRulings:
        return read_rulings(table)

    def load_rules(self, rulings: CampaignRulings, campaign: CampaignFiles) -> Table:
        """The rulings and the stat lists, as every move reads them."""
        return Table(rulings, rulings.lists)

    def end_encounter(self, context: Context) -> handlers.EncounterEnd:
        """Every participant's advantage back to 1 (RULES.md §4.1)."""
        return handlers.end_encounter(context)

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Any, changes: list[list[Any]]
    ) -> Any:
        """A voided tag's undo kept within §4.1: the advantage 1-6, encounters whole."""
        return undo.undo_within_rules(table, before, undone, changes)

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the stored state has left the rules (see :mod:`.invariants`)."""
        return undo.invariants(tables, rules)

    def roster_view(
        self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> RosterView:
        return RosterView(campaign, *approved_rows(tables.get("characters", ()), _row))

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Table
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row per stored character."""
        rows: list[tuple[str, ...]] = [
            ("name", "kind", "owner", "approved", "advantage", "policy", "stats", "counters")
        ]
        for record in records:
            character: EdgeCharacter = self.sheet.from_record(record["sheet"])
            policy = character.policy or rules.rulings.default_policy
            rows.append(
                (
                    character.name,
                    character.kind,
                    str(record.get("owner") or "-"),
                    "yes" if record.get("approved") else "no",
                    str(character.advantage),
                    policy.value + ("" if character.policy else " (default)"),
                    " ".join(f"{s} {character.stats.get(s, 0):+d}" for s in rules.lists.stats),
                    " ".join(f"{k} {v}" for k, v in character.counters.items()) or "-",
                )
            )
        return rows

    def template_helpers(self) -> Mapping[str, Any]:
        return {"bands": tuple(Band)}

    def odds_cases(self) -> Iterable[OddsCase]:
        return odds_cases()

    def example_campaign(self) -> ExampleCampaign:
        return ExampleCampaign(
            {
                "characters": (
                    {
                        "name": "Kara",
                        "kind": "pc",
                        "stats": {"cool": 1, "hard": 0, "hot": -1, "sharp": 2, "weird": 0},
                        "advantage": 4,
                    },
                    # Moves waiting for an answer (R-39 "ask"), for edge, keep and final.
                    _waiting("Mara", "pc", "cool", 1, (3, 2), 4),
                    _waiting("Dax", "pc", "hard", 0, (5, 1), 3),
                    _waiting("Raider Boss", "npc", "hard", 2, (2, 2), 5),
                )
            }
        )


def _waiting(
    name: str, kind: str, stat: str, rating: int, dice: tuple[int, int], advantage: int
) -> dict[str, Any]:
    """An example character whose move, rolled on ``stat``, waits for edge or keep."""
    pending = Pending(name, "", stat, rating, 0, dice, advantage)
    return {
        "name": name,
        "kind": kind,
        "stats": {stat: rating},
        "advantage": advantage,
        "pending": pending.to_dict(),
    }


SYSTEM = Edge()
