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
from referee.base.errors import TagError, ToldGMs, UserError
from referee.base.posts import post_link
from referee.pipeline.failures import describe
from referee.read.tags import Tag, read_tag
from referee.resolve import pace_state
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
        verb, request = read_tag(tag.text, parse_context, verbs)
        resolution = resolve_request(verb, request, context, recorder)
    except TagError as error:
        context.changes.rollback()
        return Verdict(tag, rid, "problem", problem=error.message, usage=error.usage)
    except ToldGMs as error:
        context.changes.rollback()
        _tell_gms_privately(context, tag, error.gm_reason)
        return Verdict(tag, rid, "problem", problem=error.message)
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
    return Verdict(
        tag,
        rid,
        resolution.kind,
        result=resolution.result,
        chance=resolution.chance,
        changes=resolution.changes,
        draws=tuple(recorder.draws),
        writes=tuple(written),
        tracker=resolution.tracker,
    )


def _tell_gms_privately(context: Context, tag: Tag, reason: str) -> None:
    """Queue the whole reason of a refusal the thread was told little of, for the GMs.

    It goes to the post's author when a GM wrote it (the GM who asked), else to each GM,
    by private message (the ``gm_reason`` notice); the worker sends it once.
    """
    post = context.post
    author = post.author.casefold()
    to = [post.author] if author in context.gms else sorted(context.gms)
    for gm in to:
        pace_state.queue_notice(
            context.table(pace_state.NOTICES),
            f"gm_reason:{post.fullname}:{tag.index}:{gm.casefold()}",
            {
                "channel": "message",
                "to": gm,
                "subject": "Why the referee refused your tag",
                "thread": post.thread,
                "template": "gm_reason",
                "data": {"reason": reason, "tag": tag.text, "link": post_link(post)},
                "due": post.created,
            },
        )
    context.changes.commit()


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
