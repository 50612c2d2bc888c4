"""The worker delivering replies exactly once: pending, sending, delivered.

See the state machine in :mod:`referee.live.worker`."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from referee.live.parts import (
    MAX_ATTEMPTS,
    OPEN_KEY,
    CycleReport,
    CycleStopped,
    Delivery,
    WorkerParts,
    iso_time,
)
from referee.live.reddit import Failure, ForumError

log = logging.getLogger(__name__)


class DeliversReplies(WorkerParts):
    """The worker delivering replies exactly once: pending, sending, delivered."""

    def _amend(self, fullnames: Iterable[str]) -> None:
        """Edit the delivered replies a post changed (a GM's [[void]]) at the next step."""
        for fullname in fullnames:
            record = self.posts.get(fullname)
            delivery = (record or {}).get("delivery")
            if record is None or not delivery:
                continue  # never sent by the bot (a batch's), or not yet: it goes out as it is
            if delivery.get("state") == Delivery.DELIVERED.value:
                self._set(fullname, record, {**delivery, "edit_pending": True})
                log.info("event=reply_amended post=%s", fullname)

    # -- delivery ------------------------------------------------------------------

    @staticmethod
    def _is_open(record: dict[str, Any]) -> bool:
        delivery = record.get("delivery")
        if not delivery:
            return False
        state = delivery.get("state")
        if state in (Delivery.PENDING.value, Delivery.SENDING.value):
            return True
        return state == Delivery.DELIVERED.value and bool(delivery.get("edit_pending"))

    def _set(self, fullname: str, record: dict[str, Any], delivery: dict[str, Any]) -> None:
        record = {**record, "delivery": delivery}
        self.posts.put(fullname, record)
        was_open = fullname in self._open
        if self._is_open(record):
            self._open[fullname] = None
        else:
            self._open.pop(fullname, None)
        if was_open != (fullname in self._open):
            self.state.put(OPEN_KEY, {"posts": list(self._open)})

    def _records(self, state: Delivery) -> list[tuple[str, dict[str, Any]]]:
        found = []
        for fullname in list(self._open):
            record = self.posts.get(fullname)
            if record and (record.get("delivery") or {}).get("state") == state.value:
                found.append((fullname, record))
        return found

    def _settle(self, report: CycleReport) -> None:
        """Look for the bot's reply below every post left "sending"."""
        sending = self._records(Delivery.SENDING)
        if not sending:
            return
        # A reply the shell left under another post (a decision, under the application,
        # where the bot's own reply to the application already is) is told by its mark.
        targets = {
            fullname: str(record.get("thread") or "")
            for fullname, record in sending
            if not record["delivery"].get("parent")
        }
        try:
            found = self._call(self.forum.find_replies, targets) if targets else {}
            for fullname, record in sending:
                delivery = record["delivery"]
                if delivery.get("parent"):
                    parent, thread = str(delivery["parent"]), str(delivery.get("thread") or "")
                    mark = str(delivery.get("mark") or record.get("reply", ""))
                    reply = self._call(self.forum.find_reply, parent, thread, mark)
                    if reply:
                        found[fullname] = reply
        except ForumError as error:
            raise CycleStopped(error) from error
        for fullname, record in sending:
            delivery = dict(record["delivery"])
            if fullname in found:
                delivery.update(state=Delivery.DELIVERED.value, reply=found[fullname])
                report.delivered += 1
                log.info("event=reply_found post=%s reply=%s", fullname, found[fullname])
            else:
                delivery["state"] = Delivery.PENDING.value
                log.info("event=reply_not_found post=%s: posting again", fullname)
            self._set(fullname, record, delivery)
        self.store.flush(sync=False)  # lost, the next cycle looks again

    def _deliver(self, report: CycleReport, *, one: bool = False) -> None:
        """Post every due reply, oldest first: all their intents in one synced flush, then
        one by one; ``one``: the oldest only (a step, so that a read can come next)."""
        now = self.clock()
        hold = float((self.state.get("ratelimit") or {}).get("until", 0.0))
        if now < hold:
            return
        due: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        for fullname, record in self._records(Delivery.PENDING):
            delivery = dict(record["delivery"])
            if float(delivery.get("retry_at", 0.0)) > now:
                continue
            attempts = int(delivery.get("attempts", 0)) + 1
            if attempts > MAX_ATTEMPTS:
                reason = f"gave up after {MAX_ATTEMPTS}"
                self._undeliverable(fullname, record, delivery, reason, report)
                continue
            due.append((fullname, record, delivery))
            sending = {**delivery, "state": Delivery.SENDING.value, "since": iso_time(now)}
            sending.pop("retry_at", None)
            self._set(fullname, record, sending)
            if one:
                break
        if not due:
            return
        # The intents, durable before any of these replies can exist: one fsync for all.
        self.store.flush()
        for number, (fullname, record, _) in enumerate(due):
            try:
                self._deliver_one(fullname, record, report)
            except CycleStopped:
                self._not_tried(due[number + 1 :])
                raise
            if float((self.state.get("ratelimit") or {}).get("until", 0.0)) > now:
                self._not_tried(due[number + 1 :])
                return  # RATELIMIT holds every reply of the account, not just this one

    def _not_tried(self, due: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> None:
        """Put replies whose intent was written but which were never posted back to pending."""
        for fullname, record, delivery in due:
            self._set(fullname, record, delivery)
        if due:  # lost, they stay "sending" and the next cycle looks for them first
            self.store.flush(sync=False)

    def _deliver_one(self, fullname: str, record: dict[str, Any], report: CycleReport) -> None:
        delivery = dict((self.posts.get(fullname) or record)["delivery"])
        # Counted as it is tried, not with the intents: a crash before its turn costs
        # a post no attempt. No fsync: a power cut can only undercount by one.
        delivery["attempts"] = int(delivery.get("attempts", 0)) + 1
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        log.info("event=replying post=%s attempt=%d", fullname, delivery["attempts"])
        text = str(record["reply"])
        try:  # under the post itself, or where the shell's decision goes (the application)
            reply = self._call(self.forum.reply, delivery.get("parent") or fullname, text)
        except ForumError as error:
            self._reply_failed(fullname, record, delivery, error, report)
            return
        delivery.update(state=Delivery.DELIVERED.value, reply=reply, edit_pending=False)
        self._set(fullname, record, delivery)
        # No fsync: if a power cut loses this, the post stays "sending" and the next
        # cycle finds the reply below it; the next intent's fsync makes it durable.
        self.store.flush(sync=False)
        report.delivered += 1
        log.info("event=replied post=%s reply=%s", fullname, reply)

    def _reply_failed(
        self,
        fullname: str,
        record: dict[str, Any],
        delivery: dict[str, Any],
        error: ForumError,
        report: CycleReport,
    ) -> None:
        failure = error.failure
        if failure is Failure.UNCERTAIN:
            # It may have landed: stay "sending"; the next cycle looks before posting.
            log.warning("event=reply_uncertain post=%s reason=%r", fullname, error.message)
            raise CycleStopped(error)
        if failure in (
            Failure.UNDELIVERABLE,
            Failure.REJECTED,
            Failure.FORBIDDEN,
            Failure.NOT_FOUND,
        ):
            self._undeliverable(fullname, record, delivery, error.message, report)
            return
        # Nothing was posted: RATELIMIT, 429, 5xx or a failed read before the POST.
        delivery["state"] = Delivery.PENDING.value
        if failure is Failure.RATELIMITED:
            wait = error.retry_after or 60.0
            until = self.clock() + wait
            delivery["retry_at"] = until
            self._set(fullname, record, delivery)
            self.state.put("ratelimit", {"until": until})
            self.store.flush(sync=False)
            log.warning(
                "event=ratelimited post=%s retry_in=%.0f reason=%r", fullname, wait, error.message
            )
            return
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        raise CycleStopped(error)

    def _undeliverable(
        self,
        fullname: str,
        record: dict[str, Any],
        delivery: dict[str, Any],
        reason: str,
        report: CycleReport,
    ) -> None:
        delivery.update(state=Delivery.UNDELIVERABLE.value, reason=reason, edit_pending=False)
        self._set(fullname, record, delivery)
        self.store.flush(sync=False)
        report.undeliverable += 1
        log.warning("event=undeliverable post=%s reason=%r", fullname, reason)
        self._tell_undeliverable(fullname, reason)

    def _edit(self, report: CycleReport, *, one: bool = False) -> None:
        """Edit delivered replies to carry the edited note; ``one``: the first only."""
        now = self.clock()
        if now < float((self.state.get("ratelimit") or {}).get("until", 0.0)):
            return
        for fullname, record in self._records(Delivery.DELIVERED):
            delivery = dict(record["delivery"])
            try:
                self._call(self.forum.edit, delivery["reply"], str(record["reply"]))
            except ForumError as error:
                if error.failure in (Failure.THROTTLED, Failure.SERVER, Failure.NETWORK):
                    raise CycleStopped(error) from error
                if error.failure is Failure.RATELIMITED:
                    self.state.put("ratelimit", {"until": now + (error.retry_after or 60.0)})
                    return
                log.warning("event=edit_failed post=%s reason=%r", fullname, error.message)
            else:
                report.edited += 1
                log.info("event=reply_edited post=%s reply=%s", fullname, delivery["reply"])
            delivery["edit_pending"] = False
            self._set(fullname, record, delivery)
            self.store.flush(sync=False)  # lost, the reply is edited again: same text
            if one:
                return

    # -- the roster ----------------------------------------------------------------
