"""The worker telling the GMs what went wrong: one private message an hour at most.

A post the referee could not handle, a reply that can never be posted, a roster wiki
page the bot may not write, a step that crashed (a store that cannot be written, say):
each becomes one line of the GMs' digest, kept in the worker table so a restart does
not lose it. When the digest holds something and the last one went out at least
``DIGEST_EVERY`` seconds ago, the worker sends it by private message to each GM (the
watched subreddits' moderators and ``[campaign] gms``, the bot left out), one message
each; a problem is told once (its key is remembered), however often it recurs. Every
line says what to do about it. The hour is recorded before the first message goes, so a
bot killed while sending tells those lines again an hour later at the soonest.
"""

from __future__ import annotations

import logging
from typing import Any

from referee.live.parts import CycleReport, WorkerParts, iso_time
from referee.live.reddit import ForumError

log = logging.getLogger(__name__)

DIGEST_KEY = "digest"  # the worker table's record of the digest
DIGEST_EVERY = 3600.0  # seconds: one digest an hour at most, never a flood
TOLD_KEPT = 1000  # keys of problems told already, newest kept: each is told once
DIGEST_LINES = 30  # lines of one message; the rest are counted, `referee failures` has them
SUBJECT = "referee: {count} for the GMs of {campaign}"


class TellsGMs(WorkerParts):
    """The worker's digest of problems for the GMs, and its sending."""

    _digest: dict[str, Any]

    def _load_digest(self) -> None:
        saved = self.state.get(DIGEST_KEY) or {}
        self._digest = {
            "items": dict(saved.get("items") or {}),
            "told": list(saved.get("told") or []),
            "sent_at": float(saved.get("sent_at") or 0.0),
        }

    def _tell(self, key: str, line: str) -> None:
        """Keep ``line`` for the GMs' next digest, unless ``key`` was told or kept already."""
        if key in self._digest["items"] or key in self._digest["told"]:
            return
        self._digest["items"][key] = line
        try:
            self.state.put(DIGEST_KEY, self._digest)
        except Exception:  # the store itself may be what failed: the digest is in memory
            log.exception("event=digest_unsaved key=%s", key)

    def tell_crash(self, error: BaseException) -> None:
        """A step crashed (a bug, or the store could not be written): tell the GMs."""
        name = type(error).__name__
        self._tell(
            f"crash:{name}:{str(error)[:100]}",
            f"The bot hit an error and carried on: {name}: {str(error)[:300]}. If it says "
            "the disk is full or a file cannot be written, free space or fix the campaign "
            "folder's permissions; otherwise send the bot's log around that time to the "
            "maintainer. Posts are read again after it, none is lost.",
        )

    def _collect_failures(self) -> None:
        """Add the failed posts not told yet (``referee batch``'s too)."""
        for failure in self.referee.failures:
            key = f"failure:{failure.post}" + (f"#{failure.tag + 1}" if failure.tag else "")
            where = f"tag {failure.tag + 1} of " if failure.tag is not None else ""
            self._tell(
                key,
                f"The referee could not handle {where}u/{failure.author}'s post "
                f"{failure.post} ({failure.error[:200]}). Whoever runs the bot sees it with "
                f"`referee failures`; once the cause is fixed, `referee failures --retry "
                f"{failure.post}` referees it and replaces the bot's notice.",
            )

    def _tell_undeliverable(self, fullname: str, reason: str) -> None:
        self._tell(
            f"undeliverable:{fullname}",
            f"The reply to {fullname} could not be posted and will not be tried again "
            f"({reason[:200]}). Its rolls are in the ledger (`referee history`); if the "
            "thread is locked or archived, tell the player the result yourself.",
        )

    def _tell_wiki(self, page: str, failure: str) -> None:
        self._tell(
            f"wiki:{page}",
            f"The roster wiki page {page} could not be written ({failure}). Make the bot a "
            "moderator with wiki permission (or a wiki contributor) of the first subreddit; "
            "it tries again by itself.",
        )

    def _tell_notice(self, key: str, notice: dict[str, Any], reason: str) -> None:
        where = (
            f"to u/{notice.get('to')}"
            if notice.get("channel") == "message"
            else f"in thread {notice.get('thread')}"
        )
        self._tell(
            f"notice:{key}",
            f"A {notice.get('template', 'notice')} notice {where} could not be sent and will "
            f"not be tried again ({reason[:200]}). If the thread is locked or archived, or the "
            "player's account is gone, tell them yourself.",
        )

    def _digest_due(self, now: float) -> float:
        if not self._digest["items"]:
            return float("inf")
        return max(now, self._digest["sent_at"] + DIGEST_EVERY)

    def _send_digest(self, report: CycleReport) -> None:
        """Send the digest to each GM by private message, then remember its lines as told."""
        items: dict[str, str] = self._digest["items"]
        gms = sorted(name for name in self.referee.gms if name and name != self.bot)
        now = self.clock()
        self._digest["sent_at"] = now  # sent or not, the next try is an hour on
        if not gms:
            log.warning(
                "event=digest_unsent problems=%d: no GM to tell; list the GMs in "
                "[campaign] gms or watch a subreddit whose moderators they are",
                len(items),
            )
            self.state.put(DIGEST_KEY, self._digest)
            return
        count = f"{len(items)} problem" + ("s" if len(items) != 1 else "")
        subject = SUBJECT.format(count=count, campaign=self.referee.campaign.config.name)
        lines = [f"* {line}" for line in list(items.values())[:DIGEST_LINES]]
        if len(items) > DIGEST_LINES:
            lines.append(f"* and {len(items) - DIGEST_LINES} more: `referee failures` lists them.")
        text = (
            f"Since the last digest ({iso_time(now)} UTC now), the referee bot met:\n\n"
            + "\n".join(lines)
            + "\n\nAt most one such message an hour; `referee status` shows the bot's state."
        )
        # The hour starts before the first message goes: a bot killed once Reddit took
        # one finds it started, and sends no second digest within it.
        self.state.put(DIGEST_KEY, self._digest)
        self.store.flush(sync=False)
        sent = 0
        for name in gms:
            try:
                self._call(self.forum.message, name, subject, text)
                sent += 1
            except ForumError as error:
                log.warning(
                    "event=digest_failed to=%s failure=%s reason=%r: trying again in an hour",
                    name,
                    error.failure.value,
                    error.message,
                )
        if sent:
            told = [*self._digest["told"], *items][-TOLD_KEPT:]
            self._digest = {"items": {}, "told": told, "sent_at": now}
            report.digests += sent
            log.info("event=digest_sent gms=%d problems=%d", sent, len(items))
        self.state.put(DIGEST_KEY, self._digest)
