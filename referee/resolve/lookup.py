"""Looking things up in the thread: ``[[sheet]]``, ``[[history]]``, ``[[pending]]``, ``[[roster]]``.

Core verbs: they work for every dice system, reading a character through the
system's own ``character_rows`` (the summary ``referee characters`` prints, state
included) and its stored sheet record. What a player may not see stays out: a
character known to the GMs only is "no such character" to anyone but a GM writing in
private, the state a GM changed in private shows as last publicly known, and with
``[roster] npc_stats = "hidden"`` a player sees an NPC's name and state, not its
stats (:mod:`referee.system.visibility`). Nothing here rolls or writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, TagError
from referee.base.posts import Post, post_link
from referee.resolve.roster import fights, roster_page
from referee.store.records import HISTORY_SCAN, HISTORY_SHOWN
from referee.system import Context, ParseContext, Resolution, Verb
from referee.system.arguments import name_argument
from referee.system.visibility import TABLE as VISIBILITY
from referee.system.visibility import is_npc, public_columns, public_records

SHEET_USAGE = "[[sheet Kara Venn]]"
HISTORY_USAGE = "[[history Kara Venn]]"
PENDING_USAGE = "[[pending]]"
ROSTER_USAGE = "[[roster]]"
PENDING_STATUSES = ("awaiting approval", "needs changes", "revision requested")


@dataclass(frozen=True)
class ShowSheet:
    """``[[sheet NAME]]``: a character's sheet and current state."""

    name: str


@dataclass(frozen=True)
class ShowHistory:
    """``[[history NAME]]``: a character's last rolls, with roll ids and links."""

    name: str


@dataclass(frozen=True)
class ShowPending:
    """``[[pending]]``: the applications awaiting a GM's decision."""


@dataclass(frozen=True)
class ShowRoster:
    """``[[roster]]``: the roster (a GM's private message: the GMs' full roster)."""


def parse_sheet(rest: str, context: ParseContext) -> ShowSheet:
    """``[[sheet NAME]]``."""
    return ShowSheet(name_argument(rest, "character", SHEET_USAGE, context.limits))


def parse_history(rest: str, context: ParseContext) -> ShowHistory:
    """``[[history NAME]]``."""
    return ShowHistory(name_argument(rest, "character", HISTORY_USAGE, context.limits))


def parse_pending(rest: str, context: ParseContext) -> ShowPending:
    """``[[pending]]``, alone."""
    if rest.strip():
        raise TagError("Write [[pending]] alone: it lists every application.", PENDING_USAGE)
    return ShowPending()


def parse_roster(rest: str, context: ParseContext) -> ShowRoster:
    """``[[roster]]``, alone."""
    if rest.strip():
        raise TagError("Write [[roster]] alone; [[sheet NAME]] shows one character.", ROSTER_USAGE)
    return ShowRoster()


# -------------------------------------------------------------------------- the sheet


@dataclass(frozen=True)
class SheetResult:
    """One character as the asker may see it."""

    name: str
    owner: str | None
    approved: bool
    summary: tuple[tuple[str, str], ...]  # the system's columns (state included), as shown
    details: tuple[tuple[str, str], ...]  # the rest of the stored sheet, in words
    stats_hidden: bool  # an NPC whose stats players may not see (roster.npc_stats)
    gm_only: bool  # known to the GMs only: shown because a GM asked in private
    private_state: bool  # the GM changed its state in private: players see an older one


def _words(value: Any, inside: bool = False) -> str:
    """A sheet value in plain words: ``{"str": 2}`` -> ``str 2``; items joined by "; ".

    Within an item, a list is joined by "and", and fields left empty or false (an item
    not ``spent``) are left out.

    >>> _words([{"name": "Medpac", "traits": ["one-use", "renewable"], "spent": False}])
    'name Medpac, traits one-use and renewable'
    """
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_words(v, True)}" for k, v in value.items() if not _blank(v))
    if isinstance(value, list):
        return (" and " if inside else "; ").join(_words(item, inside) for item in value)
    if value is True:
        return "yes"
    return str(value)


def _blank(value: Any) -> bool:
    """Whether a field says nothing worth a word (0 says something)."""
    return value is None or value is False or value in ("", [], {})


_SUMMARY_KEYS = frozenset({"name", "kind", "version", "stats"})


_SHOWN_ABOVE = frozenset({"name", "owner", "approved"})  # the verdict's first line says them
_GM_ONLY = (
    "{name} is known to the GMs only: ask by private message to the bot, or make it "
    "public first with [[reveal {name}]]."
)


def _details(sheet: Mapping[str, Any], shown: set[str]) -> tuple[tuple[str, str], ...]:
    """The sheet's fields the summary does not already show, in words."""
    return tuple(
        (label, _words(value))
        for key, value in sheet.items()
        if (label := str(key).replace("_", " ")) not in shown
        and key not in _SUMMARY_KEYS
        and value not in (None, False, "", [], {})
    )


def resolve_sheet(request: ShowSheet, context: Context, dice: DiceSource) -> Resolution:
    system = context.system
    key = context.roster.key(request.name)
    record = dict(context.roster.record(key))
    seen = context.table(VISIBILITY).get(key) or {}
    if seen.get("hidden") and not context.sees_hidden:
        raise Forbidden(_GM_ONLY.format(name=record["name"]))
    private_state = "public_sheet" in seen and not context.sees_hidden
    if private_state:
        record = public_records([record], {key: seen})[0]
    stats_hidden = context.npc_stats == "hidden" and is_npc(record) and not context.sees_hidden
    header, *rows = system.character_rows([record], context.rules) if system else [("name",)]
    row = rows[0] if rows else (record["name"],)
    columns = public_columns(header) if stats_hidden else range(len(header))
    summary = tuple(
        (header[i], row[i]) for i in columns if i < len(row) and header[i] not in _SHOWN_ABOVE
    )
    labels = {label for label, _ in summary}
    # A system may keep some of a sheet from every view under its rulings (trikus's
    # gm_blind_dark hides Dark sides even from the GM): their labels are left out too.
    private = getattr(system, "private_fields", None)
    if callable(private):
        labels |= {str(field).replace("_", " ") for field in private(context.rules)}
    details = () if stats_hidden else _details(record.get("sheet") or {}, labels)
    return Resolution(
        "records_sheet",
        SheetResult(
            str(record["name"]),
            record.get("owner"),
            bool(record.get("approved")),
            summary,
            details,
            stats_hidden,
            bool(seen.get("hidden")),
            private_state,
        ),
    )


# ------------------------------------------------------------------------ the history


@dataclass(frozen=True)
class HistoryLine:
    """One roll of a character, as ``[[history]]`` lists it."""

    roll_id: str
    link: str
    kind: str
    tag: str
    result: str
    author: str
    when: str
    void: str = ""  # the GM's reason, if a GM voided it
    gone: str = ""  # "deleted" or "removed" when the post is gone (the roll stands)


@dataclass(frozen=True)
class HistoryResult:
    """A character's last rolls, newest first."""

    name: str
    lines: tuple[HistoryLine, ...]
    scanned: int  # posts looked through
    complete: bool  # False when older posts were not looked at (the shell reads them all)


def resolve_history(request: ShowHistory, context: Context, dice: DiceSource) -> Resolution:
    key = context.roster.key(request.name)
    name = str(context.roster.record(key)["name"])
    if key in context.roster.hidden and not context.sees_hidden:
        raise Forbidden(_GM_ONLY.format(name=name))
    posts = context.changes.table("posts")  # tracked: it keeps the newest-first order
    voids = context.table("voids")
    lines: list[HistoryLine] = []
    scanned = 0
    complete = True
    for fullname in posts.newest():
        if scanned >= HISTORY_SCAN:
            complete = False
            break
        scanned += 1
        record = posts.get(fullname) or {}
        if record.get("private") and not context.sees_hidden:
            continue
        tags = record.get("tags", [])
        for entry in reversed(record.get("rolls", [])):
            if key not in entry.get("names", ()):
                continue
            void = voids.get(str(entry["id"])) or {}
            index = int(str(entry["id"]).rpartition("-")[2] or 1) - 1
            post = Post(fullname, str(record.get("thread", "")), "", "", 0.0)
            lines.append(
                HistoryLine(
                    str(entry["id"]),
                    post_link(post),
                    str(entry.get("kind", "")),
                    str(tags[index]) if 0 <= index < len(tags) else "",
                    str(entry.get("result", "")),
                    str(record.get("author", "")),
                    _when(record),
                    str(void.get("reason", "")),
                    str(record.get("gone", "")),
                )
            )
        if len(lines) >= HISTORY_SHOWN:
            break
    return Resolution(
        "records_history", HistoryResult(name, tuple(lines[:HISTORY_SHOWN]), scanned, complete)
    )


def _when(record: Mapping[str, Any]) -> str:
    """When the post was written (UTC, to the minute); when it was refereed for older records."""
    created = record.get("created")
    if isinstance(created, (int, float)) and created > 0:
        moment = datetime.fromtimestamp(created, tz=timezone.utc)
        return moment.strftime("%Y-%m-%d %H:%M")
    return str(record.get("refereed_at", ""))[:16].replace("T", " ")


# ------------------------------------------------------------------- the applications


@dataclass(frozen=True)
class PendingApplication:
    """An application awaiting a GM's decision."""

    name: str
    owner: str
    version: int
    status: str
    link: str
    problems: int  # problems the rules found in its latest version


@dataclass(frozen=True)
class PendingResult:
    """Every application awaiting a decision, oldest first."""

    applications: tuple[PendingApplication, ...]


def pending_applications(applications: Any, posts: Any) -> tuple[PendingApplication, ...]:
    """The applications table's undecided entries, each linked to its latest version."""
    found = []
    for application in applications.values():
        if application.get("status") not in PENDING_STATUSES:
            continue
        versions = application.get("versions") or [{}]
        latest = versions[-1]
        fullname = str(latest.get("post") or application.get("post") or "")
        thread = str((posts.get(fullname) or {}).get("thread", "")) if fullname else ""
        found.append(
            PendingApplication(
                str(application.get("name", "?")),
                str(application.get("owner", "?")),
                len(versions),
                str(application["status"]),
                post_link(Post(fullname, thread, "", "", 0.0)) if fullname else "",
                len(latest.get("problems") or ()),
            )
        )
    return tuple(found)


def resolve_pending(request: ShowPending, context: Context, dice: DiceSource) -> Resolution:
    found = pending_applications(context.table("applications"), context.table("posts"))
    return Resolution("records_pending", PendingResult(found))


# ------------------------------------------------------------------------- the roster


def resolve_roster(request: ShowRoster, context: Context, dice: DiceSource) -> Resolution:
    system = context.system
    if system is None:
        raise TagError("This campaign has no dice system, so it has no roster.", ROSTER_USAGE)
    gm = context.sees_hidden
    applications = (
        pending_applications(context.table("applications"), context.table("posts")) if gm else ()
    )
    page = roster_page(
        system,
        context.campaign_name,
        context.table,
        gm=gm,
        npc_stats=context.npc_stats,
        rules=context.rules,
        applications=applications,
    )
    return Resolution("records_roster", replace(page, fights=tuple(fights(context))))


LOOKUP_VERBS = (
    Verb(
        "sheet",
        parse_sheet,
        resolve_sheet,
        form="sheet <character>",
        help="shows a character's sheet and current state",
        example="sheet Kara",
        usage_text=SHEET_USAGE,
    ),
    Verb(
        "history",
        parse_history,
        resolve_history,
        form="history <character>",
        help="lists a character's last rolls, with roll ids and links",
        example="history Kara",
        usage_text=HISTORY_USAGE,
    ),
    Verb(
        "pending",
        parse_pending,
        resolve_pending,
        form="pending",
        help="lists the applications awaiting a GM's decision",
        example="pending",
        usage_text=PENDING_USAGE,
    ),
    Verb(
        "roster",
        parse_roster,
        resolve_roster,
        form="roster",
        help="shows the roster (a GM's private message: the GMs' full roster)",
        example="roster",
        usage_text=ROSTER_USAGE,
    ),
)
