"""The GM's corrections, never by deleting: void a roll; revive, rename, remove, reveal an NPC.

* ``[[void ROLLID reason]]`` marks a verdict void. Nothing recorded is rewritten: the
  void is a ledger row of its own (so ``referee verify`` still passes), the voided
  row and its dice stay, the state the voided tag changed is taken back out field
  by field (:func:`referee.store.records.undo`: a later change to the same field is kept),
  and the bot's reply to the voided post is edited to say it is void and why.
* ``[[revive NAME]]`` puts an NPC back as it entered play (alive and unhurt, in any
  system: the sheet it entered with is kept beside it), keeping its current name.
* ``[[rename OLD -> NEW]]`` renames a character; ``[[remove NAME]]`` takes an NPC out
  of play (its record is kept in the ``removed`` table; the name is free again).
* ``[[reveal NAME]]`` makes a character known to the GMs only (or its privately
  changed state) public (:mod:`referee.system.visibility`).

Every one is a GM's tag, resolved like any other: its writes form the tag's change
set, and its verdict is a ledger row.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, RuleViolation, TagError, UnknownName
from referee.base.markdown import escape_markdown
from referee.base.posts import Post, post_link
from referee.resolve import tracker
from referee.resolve.tracker_verbs import TABLE as INITIATIVE
from referee.store.entries import character_key
from referee.store.records import undo
from referee.system import Context, ParseContext, Resolution, Verb, refuse_look_alike
from referee.system.arguments import collapse, name_argument
from referee.system.visibility import TABLE as VISIBILITY
from referee.system.visibility import is_npc

VOID_USAGE = "[[void kx9f2a-1 rolled in the wrong thread]]"
REVIVE_USAGE = "[[revive Trooper 1]]"
RENAME_USAGE = "[[rename Trooper 1 -> Sergeant Vok]]"
REMOVE_USAGE = "[[remove Trooper 1]]"
REVEAL_USAGE = "[[reveal Shadow Agent]]"
VOIDS = "voids"  # roll id -> the void: reason, by whom, in which post
REMOVED = "removed"  # the records of NPCs taken out of play, by key (#2, #3... if reused)
INITIAL_SHEET = "initial_sheet"  # a GM's character's sheet as it entered play (for revive)
_ROLL_ID = re.compile(r"[0-9a-z]{1,16}-[0-9]{1,3}")
_POST_KINDS = ("t1_", "t3_", "t4_", "cli_")  # where a roll id's post may be
_RENAME = re.compile(r"\s*(?:->|→|=>|\bto\b)\s*")


@dataclass(frozen=True)
class VoidRoll:
    """``[[void ROLLID reason]]``."""

    roll_id: str
    reason: str


@dataclass(frozen=True)
class Correct:
    """``[[revive NAME]]``, ``[[remove NAME]]``, ``[[reveal NAME]]``, ``[[rename OLD -> NEW]]``."""

    action: str  # revive, remove, reveal or rename
    name: str
    new_name: str = ""  # rename only


def parse_void(rest: str, context: ParseContext) -> VoidRoll:
    """``void <roll id> <reason>``: the roll id as its verdict shows it, then why."""
    words = collapse(rest).split(" ", 1)
    roll = words[0].casefold().strip("^()")
    if not _ROLL_ID.fullmatch(roll):
        raise TagError(
            f"'{escape_markdown(words[0], 30)}' is not a roll id; copy it from the end of "
            "the verdict, like kx9f2a-1.",
            VOID_USAGE,
        )
    reason = words[1] if len(words) == 2 else ""
    if not reason.strip():
        raise TagError("Say why the roll is void, after its id.", VOID_USAGE)
    if len(reason) > 300:
        raise TagError("Keep the reason under 300 characters.", VOID_USAGE)
    return VoidRoll(roll, reason.strip())


def _correction_parser(action: str, usage: str) -> Any:
    def parse(rest: str, context: ParseContext) -> Correct:
        if action != "rename":
            return Correct(action, name_argument(rest, "character", usage, context.limits))
        parts = _RENAME.split(collapse(rest), maxsplit=1)
        if len(parts) != 2:
            raise TagError("Write the old name, an arrow, then the new name.", usage)
        old = name_argument(parts[0], "character", usage, context.limits)
        return Correct(action, old, name_argument(parts[1], "new", usage, context.limits))

    return parse


# -------------------------------------------------------------------------------- void


@dataclass(frozen=True)
class VoidResult:
    """A voided roll: what was taken back, and what was left as it is now."""

    roll_id: str
    reason: str
    link: str
    undone: tuple[str, ...]  # records whose changes were taken back, by name
    kept: tuple[str, ...]  # fields changed again since, left for the GM to set

    def ledger_facts(self) -> dict[str, Any]:
        """What the void's own ledger row keeps."""
        return {"voids": self.roll_id, "reason": self.reason}


def _roll_post(context: Context, roll_id: str) -> tuple[str, dict[str, Any]]:
    """The fullname and record of the post that made ``roll_id``; UnknownName if none."""
    posts = context.table("posts")
    base = roll_id.rpartition("-")[0]
    for kind in _POST_KINDS:
        record = posts.get(kind + base)
        if record is not None and roll_id in record.get("roll_ids", ()):
            return kind + base, record
    raise UnknownName(
        f"No roll {roll_id} was recorded in this campaign; copy the id from the end of "
        "the verdict (after 'roll')."
    )


def resolve_void(request: VoidRoll, context: Context, dice: DiceSource) -> Resolution:
    return Resolution("records_void", void_roll(context, request.roll_id, request.reason))


def is_void(context: Context, roll_id: str) -> bool:
    """Whether ``roll_id`` has been voided (by ``[[void]]`` or a system's undo)."""
    return context.table(VOIDS).get(roll_id) is not None


# Names what undoing one record's changes took back, given those changes (``[path, old,
# new]`` each, :func:`referee.store.records.difference`); an empty result names nothing (the
# record held only bookkeeping).
Describe = Callable[[list[list[Any]]], tuple[str, ...]]


def void_roll(
    context: Context,
    roll_id: str,
    reason: str,
    labels: Mapping[str, str | Describe] | None = None,
) -> VoidResult:
    """Void one roll: take its writes back out field by field, record the void, note it
    under the voided post's reply. The one mechanism behind ``[[void]]`` and a system's
    undo verb (trikus ``[[undo]]``); ``labels`` names, per table, what a record's undone
    changes were for the verdict where the record has no name of its own: a fixed label
    (``{"trikus_party": "the party"}``) or a function of the changes.
    """
    voids = context.table(VOIDS)
    if voids.get(roll_id) is not None:
        raise RuleViolation(f"Roll {roll_id} is already void.")
    fullname, record = _roll_post(context, roll_id)
    if record.get("private") and not context.private:
        raise Forbidden(
            f"Roll {roll_id} was a secret roll; void it by private message, so the "
            "table does not learn of it."
        )
    entry: dict[str, Any] = next((e for e in record.get("rolls", ()) if e.get("id") == roll_id), {})
    if entry.get("kind") == "records_void":
        raise RuleViolation(
            f"Roll {roll_id} is itself a void; a void stands. Make the change again "
            "with the tag that made it."
        )
    undone: list[str] = []
    kept: list[str] = []
    for table_name, key, changes in (record.get("undo") or {}).get(roll_id, ()):
        table = context.table(table_name)
        before = table.get(key)
        undone_record = undo(copy.deepcopy(before), changes)
        # A system whose state a plain field-by-field undo could take outside its rules
        # (edge: an advantage of 9) keeps it within them.
        if context.system is not None:
            undone_record = context.system.undo_within_rules(
                table_name, before, undone_record, changes
            )
        if undone_record.record is None:
            table.delete(key)
        else:
            table.put(key, undone_record.record)
        named = (undone_record.record or {}).get("name")
        label = (labels or {}).get(table_name)
        if named or label is None or isinstance(label, str):
            said: tuple[str, ...] = (str(named or label or key),)
        else:
            said = label(changes)
        undone += said
        where = said[0] if said else str(key)
        kept += [f"{where}: {field}" for field in undone_record.kept]
    if undone:  # sheets and names changed under the roster's caches
        context.roster.forget()
        context.cache.clear()
    link = post_link(Post(fullname, str(record.get("thread", "")), "", "", 0.0))
    voids.put(
        roll_id,
        {"reason": reason, "by": context.post.author, "in": context.post.fullname},
    )
    gm = escape_markdown(context.post.author)
    note = (
        f"**Roll {roll_id} is void** (the GM, u&#47;{gm}): "
        f"{escape_markdown(reason, 300)}. Its dice stay in the ledger; what it "
        "changed was undone."
    )
    context.table("posts").put(
        fullname, {**record, "reply": str(record.get("reply", "")).rstrip("\n") + f"\n\n{note}\n"}
    )
    return VoidResult(roll_id, reason, link, tuple(dict.fromkeys(undone)), tuple(kept))


# ------------------------------------------------------------- revive, rename, remove


@dataclass(frozen=True)
class CorrectionResult:
    """A GM's correction of a character, in words for the verdict."""

    action: str
    name: str
    new_name: str = ""
    detail: str = ""  # what else the table should know

    def ledger_facts(self) -> dict[str, Any]:
        """What the correction's ledger row keeps."""
        return {"action": self.action, "character": self.name, "to": self.new_name}


def _npc(context: Context, name: str, doing: str) -> tuple[str, dict[str, Any]]:
    key = context.roster.key(name)
    record = context.roster.record(key)
    if not is_npc(record):
        raise Forbidden(
            f"{record['name']} is u/{record['owner']}'s character; a GM may {doing} only "
            "the GM's own characters."
        )
    return key, record


def resolve_correct(request: Correct, context: Context, dice: DiceSource) -> Resolution:
    return _ACTIONS[request.action](request, context)


def _revive(request: Correct, context: Context) -> Resolution:
    key, record = _npc(context, request.name, "revive")
    initial = record.get(INITIAL_SHEET)
    if not isinstance(initial, dict):
        raise RuleViolation(
            f"{record['name']} entered play before referee kept NPCs' first sheets, so it "
            "cannot be revived; create it again with [[npc ...]] under a new name, or "
            "[[remove]] it first and create it under its own."
        )
    sheet = {**initial, "name": record["name"]}
    if context.system is not None:  # the system reads it back, so a bad sheet is refused here
        sheet = context.system.sheet.to_record(context.system.sheet.from_record(sheet))
    context.table("characters").put(key, {**record, "sheet": sheet})
    context.roster.forget()
    return Resolution(
        "records_correction",
        CorrectionResult("revive", str(record["name"]), detail="as it entered play"),
    )


def _rename(request: Correct, context: Context) -> Resolution:
    key = context.roster.key(request.name)
    record = context.roster.record(key)
    new_key = character_key(request.new_name)
    characters = context.table("characters")
    if new_key != key and (new_key in characters or new_key in context.table("applications")):
        raise RuleViolation(f"{request.new_name} is taken; choose another name.")
    refuse_look_alike(context, request.new_name, renaming=str(record["name"]))
    sheet = dict(record.get("sheet") or {})
    sheet["name"] = request.new_name
    if context.system is not None:
        character = context.system.sheet.from_record(sheet)
        if getattr(character, "name", None) != request.new_name:
            raise RuleViolation(f"This campaign's sheets cannot take the name {request.new_name}.")
        sheet = context.system.sheet.to_record(character)
    renamed = {**record, "name": request.new_name, "sheet": sheet}
    if INITIAL_SHEET in renamed:
        renamed[INITIAL_SHEET] = {**renamed[INITIAL_SHEET], "name": request.new_name}
    characters.delete(key)
    characters.put(new_key, renamed)
    visibility = context.table(VISIBILITY)
    seen = visibility.get(key)
    if seen is not None:
        visibility.delete(key)
        visibility.put(new_key, seen)
    orders = _rename_in_initiative(context, str(record["name"]), request.new_name)
    context.roster.forget()
    detail = f"renamed in {_orders(orders)} too" if orders else ""
    return Resolution(
        "records_correction",
        CorrectionResult("rename", str(record["name"]), request.new_name, detail),
    )


def _rename_in_initiative(context: Context, old: str, new: str) -> int:
    """Rename ``old`` in every thread's initiative order holding it; how many there were."""
    orders = context.table(INITIATIVE)
    renamed = 0
    for thread, record in list(orders.items()):
        order = tracker.from_record(record)
        moved = tracker.rename(order, old, new)
        if moved != order:
            orders.put(thread, tracker.to_record(moved, thread))
            renamed += 1
    return renamed


def _orders(count: int) -> str:
    return "the initiative order" if count == 1 else f"{count} threads' initiative orders"


def _remove(request: Correct, context: Context) -> Resolution:
    key, record = _npc(context, request.name, "remove")
    removed = context.table(REMOVED)
    slot, number = key, 1
    while slot in removed:
        number += 1
        slot = f"{key}#{number}"
    removed.put(slot, {**record, "removed_by": context.post.author, "in": context.post.fullname})
    context.table("characters").delete(key)
    context.table(VISIBILITY).delete(key)
    context.roster.forget()
    return Resolution(
        "records_correction",
        CorrectionResult(
            "remove", str(record["name"]), detail="its record is kept; the name is free again"
        ),
    )


def _reveal(request: Correct, context: Context) -> Resolution:
    key = context.roster.key(request.name)  # a GM sees every name
    record = context.roster.record(key)
    visibility = context.table(VISIBILITY)
    seen = visibility.get(key)
    if seen is None:
        raise RuleViolation(f"{record['name']} is already public.")
    visibility.delete(key)
    context.roster.hide(key, False)
    detail = "now public" if seen.get("hidden") else "its current state is now public"
    return Resolution(
        "records_correction", CorrectionResult("reveal", str(record["name"]), detail=detail)
    )


_ACTIONS = {"revive": _revive, "rename": _rename, "remove": _remove, "reveal": _reveal}


CORRECTION_VERBS = (
    Verb(
        "void",
        parse_void,
        resolve_void,
        form="void <roll id> <reason>",
        help="GM: marks a roll void (its dice stay in the ledger; its changes are undone)",
        example="void kx9f2a-1 rolled in the wrong thread",
        gm_only="void a roll",
        usage_text=VOID_USAGE,
    ),
    Verb(
        "revive",
        _correction_parser("revive", REVIVE_USAGE),
        resolve_correct,
        form="revive <npc>",
        help="GM: puts an NPC back as it entered play",
        example="revive Trooper 1",
        gm_only="revive an NPC",
        usage_text=REVIVE_USAGE,
    ),
    Verb(
        "rename",
        _correction_parser("rename", RENAME_USAGE),
        resolve_correct,
        form="rename <character> -> <new name>",
        help="GM: renames a character",
        example="rename Trooper 1 -> Sergeant Vok",
        gm_only="rename a character",
        usage_text=RENAME_USAGE,
    ),
    Verb(
        "remove",
        _correction_parser("remove", REMOVE_USAGE),
        resolve_correct,
        form="remove <npc>",
        help="GM: takes an NPC out of play (its record is kept)",
        example="remove Trooper 1",
        gm_only="remove an NPC",
        usage_text=REMOVE_USAGE,
    ),
    Verb(
        "reveal",
        _correction_parser("reveal", REVEAL_USAGE),
        resolve_correct,
        form="reveal <character>",
        help="GM: makes a character known to the GMs only, or its private state, public",
        example="reveal Shadow Agent",
        gm_only="reveal a character",
        usage_text=REVEAL_USAGE,
    ),
)
