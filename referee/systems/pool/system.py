"""The ``pool`` system as the core sees it: :data:`SYSTEM`, a :class:`referee.system.System`.

This module only assembles: the campaign's rulings (R-29..R-38 and the trait lists,
all in ``[rulings]``), the verbs (parsers of :mod:`.tags`, resolvers of
:mod:`.handlers` and :mod:`.gm`), the sheet (:mod:`.character`), the roster view,
the exact odds the conformance kit checks, and the templates in ``templates/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
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

from . import gm, handlers, invariants, odds, tags, who
from .character import PoolCharacter, PoolSheet
from .contests import Contest, Task
from .odds_cases import odds_cases
from .rolls import Die, Face, PoolRoll, Table
from .rulings import PoolRulings
from .sheet import DEFAULT_ABILITIES, DEFAULT_ATTRIBUTES, TraitLists
from .threads import CAMPAIGN, THREADS, SessionState, ThreadState


@dataclass(frozen=True)
class CampaignRulings(PoolRulings):
    """Everything ``[rulings]`` sets for a ``pool`` campaign: R-29..R-38 and the trait lists.

    The seed names no traits, so the campaign does (default: the Storyteller family's).
    """

    # The campaign's Attributes, each rated 0-5 on a sheet (the seed names none).
    attributes: tuple[str, ...] = field(default=DEFAULT_ATTRIBUTES, metadata={"length": (1, 30)})
    # The campaign's Abilities, each rated 0-5 on a sheet (one left out is 0).
    abilities: tuple[str, ...] = field(default=DEFAULT_ABILITIES, metadata={"length": (0, 80)})

    @property
    def lists(self) -> TraitLists:
        """The trait lists, names folded as tags compare them."""
        return TraitLists(
            tuple(" ".join(name.split()).casefold() for name in self.attributes),
            tuple(" ".join(name.split()).casefold() for name in self.abilities),
        )


def read_rulings(table: Mapping[str, Any]) -> CampaignRulings:
    """``[rulings]`` -> the rulings; ConfigError naming every bad key, value and list."""
    rulings = read_options(CampaignRulings, table, "pool")
    problems = rulings.lists.problems()
    if problems:
        raise ConfigError(problems_message("The pool rulings in config.toml", problems, "have"))
    return rulings


VERBS = (
    verb(
        "roll",
        tags.parse_roll,
        handlers.resolve_roll,
        tags.ROLL_USAGE,
        form="roll [<character>] <attribute>[+<ability>] or <N> [+N/-N] [diff N] [willpower] "
        "[reflexive] [on <task>]",
        help="a d10 pool against a difficulty (default 6): successes, 1s cancel, botches",
        example="roll Kara dexterity+stealth diff 7",
        claims=tags.claims,
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.ROLL_OPTIONS,
    ),
    verb(
        "act",
        tags.parse_act,
        handlers.resolve_act,
        tags.ACT_USAGE,
        form="act <character> [N or <attribute>]: <pool> [options], <pool> [options], ...",
        help="several actions in one turn: N actions lose N, N+1, ... dice (reflexive ones none)",
        example="act Dax 2: dexterity+brawl, dexterity+dodge",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.ACT_OPTIONS,
    ),
    verb(
        "resist",
        tags.parse_resist,
        handlers.resolve_resist,
        tags.RESIST_USAGE,
        form="resist <character> <pool> [options] vs <opponent> [<pool> [options]]",
        help="a resisted roll: the higher net wins the surplus; name only the opponent and "
        "his side rolls when it is declared",
        example="resist Kara dexterity+stealth vs Guard perception+alertness",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.RESIST_OPTIONS,
    ),
    verb(
        "difficulty",
        tags.parse_difficulty,
        gm.resolve_difficulty,
        tags.DIFFICULTY_USAGE,
        form="difficulty <2-10 or off> [no willpower]",
        help="GM: the thread's standing difficulty (and whether Willpower may be spent)",
        example="difficulty 7",
        aliases=("diff",),
        gm_only="set the standing difficulty",
    ),
    verb(
        "success",
        tags.parse_success,
        gm.resolve_success,
        tags.SUCCESS_USAGE,
        form="success <character> [on <task>]",
        help="GM: an automatic success, no roll (one success on a task)",
        example="success Kara",
        gm_only="grant an automatic success",
    ),
    verb(
        "session",
        tags.parse_session,
        gm.resolve_session,
        tags.SESSION_USAGE,
        form="session (or chapter)",
        help="GM: a new session or chapter starts; every free botch comes back (R-33)",
        example="session",
        aliases=("chapter",),
        gm_only="start a session",
    ),
    verb(
        "task",
        tags.parse_task,
        gm.resolve_task,
        tags.TASK_USAGE,
        form="task <name> target N [turns N] [team [<character>, ...]]",
        help="GM: opens an extended task; rolls on it add their net successes to its tally",
        example="task the vault target 10 turns 5",
        gm_only="open an extended task",
    ),
    verb(
        "teamwork",
        tags.parse_teamwork,
        gm.resolve_teamwork,
        tags.TEAMWORK_USAGE,
        form="teamwork <task>[: <character>, ...]",
        help="GM: several characters roll on one task, onto one tally (R-37)",
        example="teamwork the vault",
        gm_only="allow teamwork",
    ),
    verb(
        "contest",
        tags.parse_contest,
        gm.resolve_contest,
        tags.CONTEST_USAGE,
        form="contest [<name>:] <character> vs <character> target N",
        help="GM: opens a resisted + extended contest; each resisted roll's surplus accrues",
        example="contest arm wrestling: Kara vs Guard target 5",
        gm_only="open a contest",
    ),
    verb(
        "close",
        tags.parse_close,
        gm.resolve_close,
        tags.CLOSE_USAGE,
        form="close <task or contest>",
        help="GM: closes a task or contest of the thread, whatever its tally",
        example="close the vault",
        gm_only="close a task or contest",
    ),
    verb(
        "set",
        tags.parse_set,
        gm.resolve_set,
        tags.SET_USAGE,
        form="set <character> <trait, willpower, humanity or points> <N, +N or -N>[, ...]",
        help="GM: edits ratings and Willpower points (points come back this way)",
        example="set Kara points 4",
        gm_only="edit traits, Willpower points and Humanity",
    ),
    verb(
        "counter",
        tags.parse_counter,
        gm.resolve_counter,
        tags.COUNTER_USAGE,
        form="counter <character> <counter> <N, +N, -N, a note, or clear>",
        help="GM: a free-form counter on the roster (health, blood, notes)",
        example="counter Kara health -1",
        gm_only="keep counters",
    ),
)


@dataclass(frozen=True)
class CharacterRow:
    """One approved character as the roster shows it."""

    name: str
    owner: str | None
    traits: tuple[tuple[str, int], ...]  # rated above 0, in the campaign's order
    willpower: int
    points: int
    humanity: int
    free_botch_used: bool
    counters: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class ThreadRow:
    """A thread's open tasks and contests, and its standing difficulty."""

    thread: str
    difficulty: int | None
    tasks: tuple[Task, ...]
    contests: tuple[Contest, ...]


@dataclass(frozen=True)
class RosterView:
    """What ``roster.md.j2`` receives."""

    campaign: str
    players: tuple[CharacterRow, ...]
    npcs: tuple[CharacterRow, ...]
    session: int  # sessions the GM started
    threads: tuple[ThreadRow, ...]


SHEET = PoolSheet()


def _row(record: Mapping[str, Any], lists: TraitLists) -> CharacterRow:
    character: PoolCharacter = SHEET.from_record(record["sheet"])
    sheet, state = character.sheet, character.state
    order = (*lists.attributes, *lists.abilities)
    traits = [(t, sheet.traits[t]) for t in order if sheet.traits.get(t)]
    traits += [(t, v) for t, v in sheet.traits.items() if t not in order and v]
    return CharacterRow(
        sheet.name,
        record.get("owner"),
        tuple(traits),
        sheet.willpower,
        state.willpower_points,
        sheet.humanity,
        state.free_botch_used,
        tuple(state.counters.items()),
    )


def _dice(roll: PoolRoll) -> str:
    """Every die, marked: a success in bold, a 1 as ~~1~~, a cancelled success struck."""
    return ", ".join(_die(die) for die in roll.dice)


def _die(die: Die) -> str:
    if die.face is Face.SUCCESS:
        return f"~~{die.value}~~" if die.cancelled else f"**{die.value}**"
    if die.face is Face.ONE:
        return "~~1~~" if die.cancelled else "*1*"
    return str(die.value)


def _bands(roll: PoolRoll, labels: tuple[str, ...]) -> tuple[tuple[str, Fraction], ...]:
    """The exact chance of each band ``roll`` could have fallen in (see odds.band_chances)."""
    return odds.band_chances(roll.distribution, labels)


def roster_view(campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> RosterView:
    """The approved characters, the session, and each thread's open tasks and contests."""
    lists = CampaignRulings().lists  # the order traits are shown in; others follow
    players, npcs = approved_rows(tables.get("characters", ()), lambda r: _row(r, lists))
    sessions = list(tables.get(CAMPAIGN, ()))
    session = SessionState.from_dict(sessions[0]) if sessions else SessionState()
    threads = []
    for record in tables.get(THREADS, ()):
        state = ThreadState.from_dict(record)
        if state.open_tasks or state.open_contests:
            threads.append(ThreadRow("", state.difficulty, state.open_tasks, state.open_contests))
    return RosterView(
        campaign,
        players,
        npcs,
        session.number,
        tuple(threads),
    )


class Pool(BaseSystem):
    """Seed 000: Storyteller d10 pools, botches, Willpower, multiple, extended, resisted and
    team actions."""

    name = "pool"
    version = "1"
    description = "d10 pools against a difficulty: successes, 1s cancel, botches, Willpower"
    seed = "seed 000 (RULES.md §2)"
    verbs = VERBS
    sheet = SHEET
    rulings_type = CampaignRulings
    tables = (THREADS, CAMPAIGN)

    def read_rulings(self, table: Mapping[str, Any]) -> CampaignRulings:
        return read_rulings(table)

    def load_rules(self, rulings: CampaignRulings, campaign: CampaignFiles) -> Table:
        """The rulings and the trait lists, as every roll reads them."""
        return Table(rulings, rulings.lists)

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Any, changes: list[list[Any]]
    ) -> Any:
        """A voided roll's undo; a later action's turn stands without a word to the GM."""
        kept = tuple(f for f in undone.kept if f not in ("sheet.acted_turn",))
        return invariants.undo_within_rules(table, before, replace(undone, kept=kept), changes)

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the stored state has left the rules (see :mod:`.invariants`)."""
        return invariants.invariants(tables, rules)

    def end_encounter(self, context: Context) -> handlers.EncounterEnd:
        """The thread's standing difficulty and half-declared resisted rolls are dropped."""
        return handlers.end_encounter(context)

    def roster_view(
        self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> RosterView:
        return roster_view(campaign, tables)

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Table
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row per stored character."""
        rows: list[tuple[str, ...]] = [
            (
                "name",
                "kind",
                "owner",
                "approved",
                "willpower",
                "humanity",
                "free botch",
                "traits",
                "counters",
            )
        ]
        for record in records:
            character: PoolCharacter = self.sheet.from_record(record["sheet"])
            row = _row(record, rules.traits)
            rows.append(
                (
                    row.name,
                    character.kind,
                    str(record.get("owner") or "-"),
                    "yes" if record.get("approved") else "no",
                    f"{row.points}/{row.willpower}",
                    str(row.humanity),
                    "used" if row.free_botch_used else "-",
                    " ".join(f"{t} {v}" for t, v in row.traits) or "-",
                    " ".join(f"{k} {v}" for k, v in row.counters) or "-",
                )
            )
        return rows

    def template_helpers(self) -> Mapping[str, Any]:
        return {"pool_dice": _dice, "pool_bands": _bands}

    def odds_cases(self) -> Iterable[OddsCase]:
        return odds_cases()

    def example_campaign(self) -> ExampleCampaign:
        kara = {"dexterity": 3, "stealth": 4, "brawl": 2, "dodge": 2, "strength": 2}
        guard = {"perception": 2, "alertness": 2, "strength": 3}
        return ExampleCampaign(
            {
                "characters": (
                    {"name": "Kara", "kind": "pc", "traits": kara, "willpower": 5},
                    {"name": "Guard", "kind": "npc", "traits": guard, "willpower": 3},
                    # Kara has rolled by the time act is tried: one action a turn.
                    {"name": "Dax", "kind": "pc", "traits": kara, "willpower": 4},
                )
            }
        )


SYSTEM = Pool()
