"""What refereeing a campaign's posts keeps from one post to the next: the session.

The change set every tag writes through, the roster parsed once, and the system's
per-run memo; :meth:`Session.context` makes the context a post's tags resolve in.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.store.changes import ChangeSet
from referee.system import Context, Roster, visibility


class Session:
    """What resolving a campaign's tags keeps from post to post: the change set, roster, cache.

    Every write a tag makes goes through the change set: kept when the tag resolves,
    undone when it fails (see :mod:`referee.store.changes`).
    """

    def __init__(
        self, campaign: Campaign, gms: Iterable[str] = (), limits: Limits = DEFAULT_LIMITS
    ) -> None:
        self.campaign = campaign
        self.gms = frozenset(name.casefold() for name in gms)
        self.limits = limits
        self.changes = ChangeSet(campaign.store.table)
        named = (self.changes.table(name) for name in campaign.system.named_tables)
        self.roster = Roster(
            self.changes.table("characters"),
            campaign.system.sheet,
            named,
            self.changes.table(visibility.TABLE),
        )
        self.changes.on_rollback(self.roster.forget)
        self.cache: dict[str, Any] = {}  # the system's per-run memo (parsed crafts...)

    def forget(self) -> None:
        """Drop every cache and pending change (the store undid a failed post's writes)."""
        self.changes.commit()
        self.roster.forget()
        self.cache.clear()

    def context(self, post: Post, private: bool = False) -> Context:
        """The context a post's tags resolve in (``private``: a GM's private message)."""
        context = Context(
            self.roster,
            self.changes,
            self.campaign.rules,
            post,
            self.limits,
            system=self.campaign.system,
            gms=self.gms,
            files=self.campaign.files,
            cache=self.cache,
            private=private,
            npc_stats=self.campaign.config.npc_stats,
            campaign_name=self.campaign.config.name,
            next_by=self.campaign.config.next_by,
            pace=self.campaign.config.pace,
        )
        self.roster.finds_hidden = context.by_gm
        self.roster.sees_hidden = context.sees_hidden
        return context
