"""One tag through the reading and resolving stages: its verdict, and what it records.

:func:`verdict_for` reads a tag with the campaign's verbs and resolves it, inside the
tag's own step budget (:mod:`referee.base.effort`); whatever a player got wrong becomes
a problem verdict, and a bug costs that tag alone. The tag's writes are kept only if it
resolves. :func:`outcome_summary` is what the ledger keeps of a verdict.
"""

from __future__ import annotations

import logging
from typing import Any

from referee.base.dice import DiceSource, recording
from referee.base.effort import close_meter, open_meter
from referee.base.errors import TagError, UserError
from referee.pipeline.failures import describe
from referee.read.tags import Tag, read_tag
from referee.resolve.dispatch import resolve_request, verbs_for
from referee.resolve.verdicts import Verdict
from referee.store.records import difference
from referee.system import Context, ParseContext, kept_facts, visibility

log = logging.getLogger(__name__)

INTERNAL_PROBLEM = (
    "The referee hit an internal error on this tag and did not resolve it. The GM has "
    "been told; nothing was rolled."
)


def verdict_for(
    tag: Tag, rid: str, context: Context, parse_context: ParseContext, dice: DiceSource
) -> Verdict:
    """Parse and resolve one tag; whatever a player got wrong becomes a problem verdict.

    The tag's writes are kept only if it resolves: a refused or crashed tag's change
    set is rolled back. Every die drawn is kept on the verdict, for the ledger. The
    searches that help a player (the nearest roll, the verb or name a slip meant) share
    the tag's step budget, ``Limits.max_tag_steps`` (see :mod:`referee.base.effort`).
    """
    recorder = recording(dice)
    context.roll_id = rid  # a system may keep it, so a later tag can name this roll
    meter = open_meter(context.limits.max_tag_steps)  # the tag's searches, bounded together
    try:
        verbs = verbs_for(context.system)
        verb, request = _read(tag.text, parse_context, verbs, context.cache)
        resolution = resolve_request(verb, request, context, recorder)
    except TagError as error:
        context.changes.rollback()
        return Verdict(tag, rid, "problem", problem=error.message, usage=error.usage)
    except UserError as error:
        context.changes.rollback()
        return Verdict(tag, rid, "problem", problem=error.message)
    except Exception as error:  # a bug must cost one tag, never the whole post or batch
        context.changes.rollback()
        log.exception(
            "internal error on post=%s tag=%d %r", context.post.fullname, tag.index, tag.text
        )
        return Verdict(
            tag, rid, "problem", problem=INTERNAL_PROBLEM, internal_error=describe(error)
        )
    finally:
        close_meter(meter)
    written = context.changes.written() if context.changes.pending else []
    if written:  # what a GM does in private stays known to the GMs (referee.system.visibility)
        table = context.table(visibility.TABLE)
        pending = context.changes.pending
        for key in visibility.after_private_tag(table, written, private=context.private):
            context.roster.hide(key, True)
        if context.changes.pending != pending:
            written = context.changes.written()
    context.changes.commit()
    return Verdict(  # every field by position: a call with keywords costs a dict a tag
        tag,
        rid,
        resolution.kind,
        resolution.result,
        resolution.chance,
        resolution.changes,
        tuple(recorder.draws),
        "",
        "",
        tuple(written) if written else (),
        resolution.tracker,
    )


def _read(
    text: str, parse_context: ParseContext, verbs: Any, cache: dict[str, Any]
) -> tuple[Any, Any]:
    """:func:`read_tag`, remembered per text for the run when the request is a frozen value.

    Players repeat their tags (``roll Kara agility``, the same attack again), and
    reading one depends only on its text, the verbs, the names a tag may hold and the
    limits; the entry keeps those three and is used only while they are the same objects.
    A refused tag is read again each time (its error is raised anew).
    """
    read = cache.get(_READ)
    if read is None or len(read) >= _READ_KEPT:
        read = cache[_READ] = {}
    known = read.get(text)
    if (
        known is not None
        and known[0] is verbs
        and known[1] is parse_context.known_names
        and known[2] is parse_context.limits
    ):
        return known[3], known[4]
    verb, request = read_tag(text, parse_context, verbs)
    if _frozen(type(request)):
        read[text] = (verbs, parse_context.known_names, parse_context.limits, verb, request)
    return verb, request


_READ = "referee.read_tags"  # the Session cache's entry of tags read this run
_READ_KEPT = 4096  # texts kept before the memo starts over
_FROZEN: dict[type, bool] = {}


def _frozen(kind: type) -> bool:
    """Whether ``kind`` is a frozen dataclass (a request a later tag may share)."""
    frozen = _FROZEN.get(kind)
    if frozen is None:
        params = getattr(kind, "__dataclass_params__", None)
        frozen = _FROZEN[kind] = params is not None and bool(params.frozen)
    return frozen


def undo_log(verdicts: tuple[Verdict, ...]) -> dict[str, list[list[Any]]]:
    """Each resolved tag's writes as field differences, by roll id (for [[void]])."""
    log_: dict[str, list[list[Any]]] = {}
    for verdict in verdicts:
        entries = [
            [table, key, difference(before, after)]
            for table, key, before, after in verdict.writes
            if table != "posts"  # a reply's text is the pipeline's, never undone
        ]
        if entries and not verdict.failed:
            log_[verdict.roll_id] = entries
    return log_


def outcome_summary(verdict: Verdict) -> dict[str, Any]:
    """The few facts of a verdict the ledger keeps beside its dice: what its result's
    ``ledger_facts()`` says (nothing for a result without it: :func:`referee.system.kept_facts`),
    its changes' ``ledger()`` and the initiative tracker's round and turn."""
    summary = kept_facts(verdict.result)
    if verdict.changes:
        summary["changes"] = [change.ledger() for change in verdict.changes]
    summary.update(kept_facts(verdict.tracker))
    return summary
