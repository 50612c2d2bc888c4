"""Resolve one tag against a campaign with given dice, as the pipeline would (for tests).

A system's tests (and the conformance kit) use it to check a verb end to end: the
campaign's verb table, the GM-only refusal, the resolver and the change set, without
rendering or recording anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from referee.base.dice import DiceSource, FixedDice
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.session import Session
from referee.read.tags import read_tag
from referee.resolve.dispatch import resolve_request, verbs_for
from referee.system import Context, ParseContext, Resolution


def tag_context(
    campaign: Campaign,
    author: str = "gm",
    *,
    thread: str = "t3_thread",
    body: str = "",
    session: Session | None = None,
    post: str = "t1_test",
) -> Context:
    """The context a post ``post`` by ``author`` in ``thread`` resolves in (GMs: config's
    ``gms``)."""
    session = session or Session(campaign, campaign.config.gms)
    return session.context(Post(post, thread, author, body, 1.0))


def resolve_tag(context: Context, text: str, dice: DiceSource | Iterable[int] = ()) -> Resolution:
    """Parse ``text`` with the campaign's verbs and resolve it; UserError as the pipeline sees it.

    ``dice`` is a source, or faces for :class:`~referee.base.dice.FixedDice`. The tag's
    writes are kept when it resolves and undone when it raises.
    """
    source = cast(DiceSource, dice) if hasattr(dice, "roll") else FixedDice(dice)
    try:
        verb, request = read_tag(
            text, ParseContext(context.known_names, context.limits), verbs_for(context.system)
        )
        resolution = resolve_request(verb, request, context, source)
    except BaseException:
        context.changes.rollback()
        raise
    context.changes.commit()
    return resolution


def parse(text: str, system: Any = None, names: Iterable[str] = ()) -> Any:
    """The request ``text`` parses to under ``system``'s verbs (the core's alone if None)."""
    context = ParseContext(frozenset(name.casefold() for name in names))
    return read_tag(text, context, verbs_for(system))[1]
