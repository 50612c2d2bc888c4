"""The ``trikus`` system as the core sees it: :data:`SYSTEM`, a :class:`referee.system.System`.

This module only assembles: the rulings (:mod:`.rulings`), the verbs (parsers of
:mod:`.tags`, resolvers of :mod:`.handlers` and :mod:`.edits`), the sheet
(:mod:`.application`), the roster view, the exact odds the conformance kit checks,
and the templates in ``templates/`` beside it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.store.records import Undone
from referee.system import CampaignFiles, Context, ExampleCampaign, GmOption, OddsCase, verb
from referee.system.base import BaseSystem

from . import edits, gm_answers, invariants, opening, tags
from .application import TrikusSheet
from .chance import describe
from .changes import ChangeKind
from .odds_cases import odds_cases
from .party import PARTY_KEY, PARTY_TABLE, THREADS
from .policy import USAGE as POLICY_WORDS
from .rulings import Rulings
from .state import Character, LineStatus, Status, Tier

VERBS = (
    verb(
        "open",
        tags.parse_open,
        opening.resolve_open,
        tags.OPEN_USAGE,
        form='open test|fight <GM dice> <names> [allies=A,B] [difficulty=D] [vs NPC] ["stakes"]',
        help="GM: opens a test or a fight in the thread; each named player then declares",
        example='open test 7 Ola, Zed "Success: the door holds. Failure: the alarm sounds."',
        gm_only="open a test or a fight (the GM's pool is its difficulty)",
    ),
    verb(
        "declare",
        tags.parse_declare,
        opening.resolve_declare,
        tags.DECLARE_USAGE,
        form=f"declare <character> [{POLICY_WORDS}]",
        help="declares into the open test or fight round; the last declaration resolves it",
        example="declare Ola morale=2 empower",
        player_options=tuple(POLICY_WORDS.split("  ")),
    ),
    verb(
        "go",
        tags.parse_go,
        opening.resolve_go,
        tags.GO_USAGE,
        form="go [all]",
        help="GM: resolves the open test or round now (defaults for the undeclared); "
        "go all: a fight to its end",
        example="go",
        gm_only="resolve a test before every player has declared",
    ),
    verb(
        "overturn",
        tags.bare_parser("[[overturn]]"),
        gm_answers.resolve_overturn,
        "[[overturn]]",
        form="overturn",
        help="GM: after a Boom nobody claimed, turns the thread's last test, duel or fight "
        "round upside down",
        example="overturn",
        gm_only="overturn a test after a Boom",
    ),
    verb(
        "test",
        tags.parse_test,
        opening.resolve_test_tag,
        tags.TEST_USAGE,
        form=f"test <character> [vs <GM dice>] [{POLICY_WORDS}]",
        help="one player tests alone against the thread's difficulty, in one post",
        example="test Kara vs 3 line=2 negotiate=5",
        player_options=tuple(POLICY_WORDS.split("  ")),
        gm_options=(
            GmOption(
                "vs N",
                lambda r: isinstance(r, tags.Declare) and r.gm_dice is not None,
                "set a test's difficulty (the GM's pool)",
                lambda r, c: (
                    f"Test against the thread's difficulty with [[test {r.actor}]], "
                    "or ask the GM for [[difficulty 2]]."
                ),
                example="test Kara vs 1",
            ),
        ),
    ),
    verb(
        "answer",
        tags.parse_answer,
        gm_answers.resolve_answer,
        tags.ANSWER_USAGE,
        form="answer yes|no",
        help="answers the Negotiation a test waits on (the GM; in a duel between players, "
        "the player asked); the duel goes on",
        example="answer yes",
    ),
    verb(
        "difficulty",
        tags.parse_difficulty,
        gm_answers.resolve_difficulty,
        tags.DIFFICULTY_USAGE,
        form="difficulty <GM dice>|off",
        help="GM: sets the thread's standing difficulty for one-player tests",
        example="difficulty 2",
        gm_only="set the difficulty",
    ),
    verb(
        "light",
        tags.count_parser("light"),
        edits.resolve_light,
        tags.COUNT_USAGE["light"],
        form="light <character> [count]",
        help="GM: grants Light tokens (one by default)",
        example="light Kara",
        gm_only="grant Light tokens",
    ),
    verb(
        "dark",
        tags.count_parser("dark"),
        edits.resolve_dark,
        tags.COUNT_USAGE["dark"],
        form="dark <character> [count]",
        help="GM: spends Dark tokens (the player plays one of his Dark sides)",
        example="dark Zed",
        gm_only="spend Dark tokens",
    ),
    verb(
        "morale",
        tags.count_parser("morale", required=True),
        edits.resolve_morale,
        tags.COUNT_USAGE["morale"],
        form="morale <character> <count>",
        help="GM: sets a character's Morale dice",
        example="morale Kara 2",
        gm_only="edit Morale",
    ),
    verb(
        "line",
        tags.parse_line,
        edits.resolve_line,
        tags.LINE_USAGE,
        form="line <character> <N-die|#place> free|struck|lost[=refreshes]",
        help="GM: sets one of a character's lines (2-die, or #2: the second on his sheet) "
        "free, struck or lost",
        example="line Kara 2-die free",
        gm_only="edit lines",
    ),
    verb(
        "refresh",
        tags.bare_parser("[[refresh]]"),
        edits.resolve_refresh,
        "[[refresh]]",
        form="refresh",
        help="GM: forces a refresh (struck lines return; lost ones come one refresh nearer)",
        example="refresh",
        gm_only="force a refresh",
    ),
    verb(
        "undo",
        tags.bare_parser("[[undo]]"),
        edits.resolve_undo,
        "[[undo]]",
        form="undo",
        help="GM: takes back the thread's last trikus change (a test, round, GM edit...); "
        "again to go further back",
        example="undo",
        gm_only="undo a change",
    ),
    verb(
        "master",
        tags.named_parser("master"),
        edits.resolve_master,
        tags.NAMED_USAGE["master"],
        form="master <NPC name>",
        help="GM: marks an NPC a master (losing all dice to him costs the party's Master)",
        example="master Darth Vex",
        gm_only="mark a master NPC",
    ),
    verb(
        "renew",
        tags.parse_renew,
        edits.resolve_renew,
        tags.RENEW_USAGE,
        form="renew <character> <item>",
        help="GM: renews a spent renewable item",
        example="renew Kara Medpac",
        gm_only="renew an item",
    ),
    verb(
        "darkside",
        tags.parse_darkside,
        edits.resolve_darkside,
        tags.DARKSIDE_USAGE,
        form="darkside <Master> <side>",
        help="another player writes one of the party Master's Dark sides "
        "(ruling party_writes_master_dark)",
        example="darkside Ola spiteful",
    ),
    verb(
        "advance",
        tags.named_parser("advance"),
        edits.resolve_advance,
        tags.NAMED_USAGE["advance"],
        form="advance <character>",
        help="GM: advances a character one tier (his sides are written anew)",
        example="advance Zed",
        gm_only="advance a character",
    ),
    verb(
        "sides",
        tags.parse_sides,
        edits.resolve_sides,
        tags.SIDES_USAGE,
        form="sides <character> light: <sides>; dark: <sides>|hidden",
        help="after an advancement, the player writes his character's sides anew for the tier",
        example="sides Zed light: kind, curious; dark: reckless, vain",
    ),
    verb(
        "fall",
        tags.named_parser("fall"),
        edits.resolve_fall,
        tags.NAMED_USAGE["fall"],
        form="fall <character>",
        help="GM: applies a fall to the Dark Side; every lower tier advances",
        example="fall Zed",
        gm_only="apply a fall to the Dark Side",
    ),
    verb(
        "sacrifice",
        tags.parse_sacrifice,
        edits.resolve_sacrifice,
        tags.SACRIFICE_USAGE,
        form="sacrifice [names of those who fought]",
        help="GM: applies the Master's sacrifice (he dies if he fought, else falls)",
        example="sacrifice Kara",
        gm_only="apply the Master's sacrifice",
    ),
)


@dataclass(frozen=True)
class CharacterRow:
    """One approved character as the roster and ``referee characters`` show it."""

    name: str
    owner: str | None
    tier: str
    lines: str  # "2-die, 1-die struck, 1-die lost (2 refreshes)"
    morale: int
    light: int
    dark: str  # "active (used)"
    status: str
    items: str
    allies: str


def _lines(character: Character) -> str:
    shown = []
    for line in character.lines:
        if line.status is LineStatus.FREE:
            shown.append(f"{line.dice}-die")
        elif line.status is LineStatus.STRUCK:
            shown.append(f"{line.dice}-die struck")
        else:
            shown.append(f"{line.dice}-die lost ({line.refreshes_left} refreshes)")
    return ", ".join(shown)


SHEET = TrikusSheet()


def _row(record: Mapping[str, Any]) -> CharacterRow:
    c: Character = SHEET.from_record(record["sheet"])
    items = ", ".join(
        f"{i.name} ({', '.join(t.value for k, t in enumerate(i.traits) if i.knows(k))}"
        f"{'; spent' if i.spent else ''})"
        for i in c.equipment
    )
    # A Master short of Dark sides waits for the party's (party_writes_master_dark); one
    # with none keeps them off the forum (gm_blind_dark).
    due = 3 - len(c.dark_sides) if c.tier is Tier.MASTER and 0 < len(c.dark_sides) < 3 else 0
    status = c.status.value
    if c.sides_due and c.status is Status.ACTIVE:
        status += ", sides to write anew"
    elif due:
        status += f", {due} Dark side{'s' if due > 1 else ''} for the party to write"
    return CharacterRow(
        c.name,
        record.get("owner"),
        c.tier.value,
        _lines(c),
        c.morale,
        c.light,
        f"{c.dark_active} ({c.dark_used} used)",
        status,
        items or "-",
        ", ".join(c.allies) or "-",
    )


@dataclass(frozen=True)
class RosterView:
    """What ``roster.md.j2`` receives: the party and the campaign's trikus state."""

    campaign: str
    players: tuple[CharacterRow, ...]
    refreshes: int
    master_npcs: tuple[str, ...]
    fights: int  # fights in progress


class Trikus(BaseSystem):
    """Seed 001: opposed d10 duels one die at a time, lines, Morale, Light and Dark."""

    name = "trikus"
    version = "1"
    description = "opposed d10 duels one die at a time: lines, Morale, Light and Dark tokens"
    seed = "seed 001 (RULES.md §3)"
    verbs = VERBS
    sheet = SHEET
    rulings_type = Rulings
    tables = (PARTY_TABLE, THREADS)

    def read_rulings(self, table: Mapping[str, Any]) -> Rulings:
        return Rulings.from_mapping(table)

    def load_rules(self, rulings: Rulings, campaign: CampaignFiles) -> Rulings:
        """The rulings are the whole rules value: trikus reads no tables."""
        return rulings

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the stored state has left the rules (see :mod:`.invariants`)."""
        return invariants.invariants(tables)

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
    ) -> Undone:
        """The core's undo of a voided tag, as it is."""
        return undone

    def end_encounter(self, context: Context) -> gm_answers.EncounterEnd:
        """The thread's open test or fight closes, with no result (RULES.md §3.7)."""
        return gm_answers.end_encounter(context)

    def roster_view(
        self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> RosterView:
        rows = tuple(_row(r) for r in tables.get("characters", ()) if r.get("approved"))
        empty: Mapping[str, Any] = {"refreshes": 0, "master_npcs": [], "fights": {}}
        party = next((r for r in tables.get(PARTY_TABLE, ()) if "refreshes" in r), empty)
        return RosterView(
            campaign,
            rows,
            int(party["refreshes"]),
            tuple(party["master_npcs"]),
            len(party["fights"]),
        )

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Rulings
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row per stored character."""
        rows: list[tuple[str, ...]] = [
            (
                "name",
                "owner",
                "approved",
                "tier",
                "lines",
                "morale",
                "light",
                "dark",
                "status",
                "items",
            )
        ]
        for record in records:
            row = _row(record)
            rows.append(
                (
                    row.name,
                    str(row.owner or "-"),
                    "yes" if record.get("approved") else "no",
                    row.tier,
                    row.lines,
                    str(row.morale),
                    str(row.light),
                    row.dark,
                    row.status,
                    row.items,  # the traits found so far, as the roster shows them
                )
            )
        return rows

    def private_fields(self, rules: Rulings) -> tuple[str, ...]:
        """Sheet fields no view shows (``[[sheet]]``): the items as stored, whose traits
        their owner may not have found yet ("Nie wszystkie muszą być znane właścicielowi";
        the items column shows the found ones), and Dark sides under ``gm_blind_dark``,
        should a sheet written before the ruling still name them."""
        return ("equipment", "dark_sides") if rules.gm_blind_dark else ("equipment",)

    def template_helpers(self) -> Mapping[str, Any]:
        return {"change_kinds": ChangeKind, "chance": describe}

    def odds_cases(self) -> Iterable[OddsCase]:
        return odds_cases()

    def example_campaign(self) -> ExampleCampaign:
        return ExampleCampaign(
            {
                "characters": (
                    {
                        "name": "Kara",
                        "tier": "advanced",
                        "light_sides": ["bold", "clever"],
                        "dark_sides": ["greedy", "vain"],
                        "equipment": [
                            {"name": "Medpac", "traits": ["one-use", "renewable"], "spent": True}
                        ],
                        "light": 1,
                        "morale": 1,
                    },
                    {
                        "name": "Ola",
                        "tier": "master",
                        "light_sides": ["wise"],
                        "dark_sides": ["proud"],  # the party writes two (the ruling below)
                        "morale": 2,
                    },
                    {
                        "name": "Zed",
                        "tier": "beginner",
                        "light_sides": ["kind", "curious", "loyal"],
                        "dark_sides": ["reckless"],
                        "dark_active": 1,
                    },
                )
            },
            rulings={"party_writes_master_dark": True},
        )


SYSTEM = Trikus()

__all__ = ["PARTY_KEY", "SYSTEM"]
