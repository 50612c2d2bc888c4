"""The worker keeping the pace: turn timers fired on time, their notices sent exactly once.

Each idle poll the worker asks :meth:`KeepsPace._pace_due` when the timers next need it
(:class:`~referee.pipeline.pace.PaceKeeper` reads the store; no request to Reddit, so a
quiet campaign costs nothing more), and sleeps until then at most. When a timer is due,
the task ``pace`` fires it (the store changes and the notices to send land in one batch)
and sends the waiting notices one a step, after any ready reply: verdicts go first, and
every request is paid from the same budget. A notice is delivered like a reply::

    pending ──intent flushed (fsync)──► sending ──sent──► gone (deleted)
       ▲  │ RATELIMIT: retry_at            │ no answer, 5xx, crash
       │  └────────────────                ▼
       │                     settle: look for its mark among the bot's newest comments
       └──── not found ───── or sent messages; found ─► gone
    locked thread, unknown user, other refusals, too many attempts ─► dropped (the GMs
    are told in their digest)

Private messages with only ``[[catchup]]``, ``[[remind ...]]`` or ``[[away ...]]`` are
a player's to send (see :mod:`referee.live.reading`).
"""

from __future__ import annotations

import logging
from typing import Any

from referee.base.posts import Post
from referee.live.notices import find_sent
from referee.live.parts import MAX_ATTEMPTS, CycleReport, CycleStopped, WorkerParts, iso_time
from referee.live.reddit import Failure, ForumError
from referee.pipeline.pace import PaceKeeper
from referee.resolve.pace_state import NOTICES, PENDING

log = logging.getLogger(__name__)

SENDING = "sending"
# Failures after which a notice can never be sent (the thread locked, the user gone).
REFUSED = (Failure.UNDELIVERABLE, Failure.REJECTED, Failure.FORBIDDEN, Failure.NOT_FOUND)
# Failures after which it may have been sent after all: look before sending again.
MAYBE_SENT = (Failure.UNCERTAIN, Failure.NETWORK, Failure.SERVER)


class KeepsPace(WorkerParts):
    """The worker's part that fires turn timers and sends notices."""

    _keeper: PaceKeeper
    _pace_next: float | None  # when the next timer is due; None: to be read again

    def _load_pace(self) -> None:
        self._keeper = PaceKeeper(self.referee, self.forum.username)
        self._pace_next = None

    def _note_post(self, post: Post) -> None:
        """A post read and refereed: its author's newest there; the timers may have moved."""
        self._keeper.saw(post)
        self._pace_next = None

    def _timers_changed(self) -> None:
        """Posts or messages were refereed: the timers are read again when next asked."""
        self._pace_next = None

    def _notices(self) -> list[tuple[str, dict[str, Any]]]:
        return list(self.store.table(NOTICES).items())

    def _notices_sending(self) -> bool:
        return any(n.get("state") == SENDING for _, n in self._notices())

    def _pace_due(self, now: float) -> float:
        """When the task ``pace`` next has work: a timer, or a notice waiting to be sent."""
        if self._pace_next is None:
            self._pace_next = self._keeper.next_due(now)
        waiting = [
            float(n.get("retry_at", 0.0)) for _, n in self._notices() if n.get("state") == PENDING
        ]
        if waiting:
            hold = float((self.state.get("ratelimit") or {}).get("until", 0.0))
            return min(self._pace_next, max(min(waiting), hold))
        return self._pace_next

    def _keep_pace(self, report: CycleReport, *, one: bool = False) -> None:
        """Fire the timers due, then send the waiting notices (one, for a step)."""
        now = self.clock()
        if self._pace_next is not None and self._pace_next <= now:
            queued = self._keeper.fire(now, self.referee.gms)
            self._pace_next = None
            report.timers += 1
            if queued:
                log.info("event=notices_queued keys=%s", ",".join(queued))
        self._send_notices(report, one=one)

    def _send_notices(self, report: CycleReport, *, one: bool) -> None:
        now = self.clock()
        if now < float((self.state.get("ratelimit") or {}).get("until", 0.0)):
            return
        table = self.store.table(NOTICES)
        for key, notice in self._notices():
            if notice.get("state") != PENDING or float(notice.get("retry_at", 0.0)) > now:
                continue
            attempts = int(notice.get("attempts", 0)) + 1
            if attempts > MAX_ATTEMPTS:
                self._drop(key, notice, f"gave up after {MAX_ATTEMPTS} attempts")
                continue
            # Due before the store was restored from a backup: it may have been sent since
            # the backup was made; the next step looks for it first.
            look = float(notice.get("due", 0.0)) <= self._restored_at and not notice.get("looked")
            sending = {
                **notice,
                "state": SENDING,
                "attempts": attempts - look,
                "since": iso_time(now),
                "text": notice.get("text") or self._keeper.text(key, notice),
                "parent": notice.get("parent") or self._parent(notice),
            }
            sending.pop("retry_at", None)
            table.put(key, sending)
            if look:
                log.info("event=notice_restored key=%s: looking for it before sending", key)
                continue
            self.store.flush()  # the intent, durable before the notice can exist
            self._send(key, sending, report)
            if one:
                return

    def _parent(self, notice: dict[str, Any]) -> str:
        """Where a notice in a thread goes: below the bot's reply that began the turn, or
        (no such reply) at the top of the thread."""
        if notice.get("channel") != "thread":
            return ""
        anchor = str(notice.get("anchor") or "")
        delivery = (self.posts.get(anchor) or {}).get("delivery") or {} if anchor else {}
        if delivery.get("state") == "delivered" and delivery.get("reply"):
            return str(delivery["reply"])
        return str(notice["thread"])

    def _send(self, key: str, notice: dict[str, Any], report: CycleReport) -> None:
        table = self.store.table(NOTICES)
        log.info("event=notice_sending key=%s attempt=%d", key, notice["attempts"])
        try:
            if notice.get("channel") == "thread":
                sent = self._call(self.forum.reply, notice["parent"], notice["text"])
            else:
                subject = str(notice.get("subject") or "referee")
                self._call(self.forum.message, notice["to"], subject, notice["text"])
                sent = f"to u/{notice['to']}"
        except ForumError as error:
            failure = error.failure
            if failure in REFUSED:
                self._drop(key, notice, error.message)
                return
            if failure in MAYBE_SENT:
                log.warning("event=notice_uncertain key=%s reason=%r", key, error.message)
                raise CycleStopped(error) from error  # stays "sending": looked for first
            retry = {**notice, "state": PENDING}
            if failure is Failure.RATELIMITED:
                until = self.clock() + (error.retry_after or 60.0)
                retry["retry_at"] = until
                self.state.put("ratelimit", {"until": until})
            table.put(key, retry)
            self.store.flush(sync=False)
            if failure is not Failure.RATELIMITED:
                raise CycleStopped(error) from error
            return
        table.delete(key)
        # No fsync: lost, the notice stays "sending" and is found by its mark.
        self.store.flush(sync=False)
        report.notices += 1
        log.info("event=notice_sent key=%s where=%s", key, sent)

    def _drop(self, key: str, notice: dict[str, Any], reason: str) -> None:
        self.store.table(NOTICES).delete(key)
        self.store.flush(sync=False)
        log.warning("event=notice_dropped key=%s reason=%r", key, reason)
        self._tell_notice(key, notice, reason)

    def _settle_notices(self, report: CycleReport) -> None:
        """Look for every notice left "sending" (a crash, a lost answer) on Reddit."""
        sending = [(k, n) for k, n in self._notices() if n.get("state") == SENDING]
        if not sending:
            return
        marks = {k: (str(n.get("channel")), self._keeper.mark(k)) for k, n in sending}
        try:
            found = self._call(find_sent, self.forum, marks)
        except ForumError as error:
            raise CycleStopped(error) from error
        table = self.store.table(NOTICES)
        for key, notice in sending:
            if key in found:
                table.delete(key)
                report.notices += 1
                log.info("event=notice_found key=%s", key)
            else:
                table.put(key, {**notice, "state": PENDING, "looked": True})
                log.info("event=notice_not_found key=%s: sending it", key)
        self.store.flush(sync=False)  # lost, the next cycle looks again
