"""Running the worker: the scheduler loop, one cycle from cron, signals, and retries.

:func:`serve` runs :meth:`~referee.live.worker.Worker.step` on APScheduler at the time
:meth:`~referee.live.worker.Worker.next_wake` names; :func:`run_once` runs one cycle
(``run --once``); :func:`retry_failure` referees a failed post again after a fix.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import suppress
from datetime import datetime, timezone
from types import FrameType

from referee.base.errors import ConfigError
from referee.live.parts import (
    CycleReport,
    Delivery,
)
from referee.live.worker import Worker
from referee.pipeline.flow import Outcome, Referee

log = logging.getLogger(__name__)


def retry_failure(referee: Referee, fullname: str) -> Outcome:
    """Referee a failed post again, after a fix; the bot then corrects its reply.

    The failure notice the bot already posted is edited into the new reply (or, if it
    was never posted, the new reply is posted instead), through the same delivery
    states as every reply. If the post fails again, it stays recorded as failed and
    its reply is left as it is. Raises :class:`ConfigError` for a post that did not fail.
    """
    failure = referee.failures.get(fullname)
    if failure is None:
        raise ConfigError(f"No failed post {fullname}; `referee failures` lists them.")
    if failure.tag is not None:
        raise ConfigError(
            f"{fullname} is one tag of post {failure.post}, whose other tags stand and are "
            "public, so it is not refereed again in place. Once the bug is fixed, ask "
            f"u/{failure.author} to write the tag again in a new reply, then "
            f"`referee failures --forget {fullname}`."
        )
    record = referee.posts.get(fullname) or {}
    delivery = record.get("delivery")
    if record.get("failed"):
        referee.posts.delete(fullname)  # a stub: the post was never refereed
    referee.failures.clear(fullname)
    outcome = referee.referee(failure.as_post(), private=failure.private)
    new = referee.posts.get(fullname)
    if delivery and new is not None:
        delivery = dict(delivery)
        if not outcome.failed and delivery.get("state") in (
            Delivery.DELIVERED.value,
            Delivery.SENDING.value,
        ):
            delivery["edit_pending"] = True
        referee.posts.put(fullname, {**new, "delivery": delivery})
    log.info("event=retried post=%s failed=%s", fullname, outcome.failed)
    return outcome


# -- running ---------------------------------------------------------------------------


def serve(worker: Worker, *, stop: threading.Event | None = None) -> None:
    """Run the worker's steps on a blocking APScheduler until SIGTERM or SIGINT.

    One job at a time: a step runs the task due, then adds the next step at the time
    :meth:`Worker.next_wake` names (the worker's clock is the wall clock here). On a
    signal the scheduler stops taking jobs, the step in flight finishes, and this
    returns; the caller then closes (flushes) the store.
    """
    from apscheduler.executors.pool import ThreadPoolExecutor
    from apscheduler.schedulers import SchedulerNotRunningError
    from apscheduler.schedulers.blocking import BlockingScheduler

    scheduler = BlockingScheduler(
        executors={"default": ThreadPoolExecutor(max_workers=1)},  # one job at a time
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        timezone=timezone.utc,
    )
    stopping = stop or threading.Event()

    def plan(at: float) -> None:
        # A new job each time (not one job modified): the scheduler drops a spent date
        # job by its id while this one may already be adding the next.
        when = datetime.fromtimestamp(max(at, time.time()), tz=timezone.utc)
        with suppress(SchedulerNotRunningError):
            scheduler.add_job(run_step, "date", run_date=when)

    def run_step() -> None:
        if stopping.is_set():
            return
        wake = time.time() + worker.config.poll_seconds
        try:
            worker.step()
            wake = worker.next_wake()
        except Exception:  # a bug must not stop the bot: log it, try again after a poll
            log.exception("event=step_failed: stepping again in %s s", worker.config.poll_seconds)
        finally:
            if not stopping.is_set():
                plan(wake)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            return
        stopping.set()
        log.info("event=stopping signal=%s: finishing the step", signal.Signals(signum).name)
        with suppress(SchedulerNotRunningError):
            scheduler.shutdown(wait=False)

    plan(time.time())
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        log.info(
            "event=started poll_seconds=%s active_seconds=%.1f budget_per_minute=%.0f",
            worker.config.poll_seconds,
            worker.pace.active,
            worker.budget.per_minute,
        )
        scheduler.start()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    with worker.lock:  # wait for the step in flight
        pass
    log.info("event=stopped")


def summary(report: CycleReport) -> str:
    """``referee run --once``'s one line: what the cycle read, refereed, posted and missed.

    >>> report = CycleReport(new_posts=4, messages=1, refereed=3, tags=5, delivered=4, refusals=1)
    >>> summary(report).split("; ")
    ['referee: read 4 new posts and 1 message', '5 tags in 4 posts', '4 replies posted', \
'1 refusal', '0 errors.']
    """
    posts = report.refereed + report.messages

    def count(number: int, word: str, plural: str = "") -> str:
        return f"{number} {word if number == 1 else plural or word + 's'}"

    errors = report.errors + report.undeliverable + (1 if report.failure else 0)
    line = (
        f"referee: read {count(report.new_posts, 'new post')} and "
        f"{count(report.messages, 'message')}; "
        f"{count(report.tags, 'tag')} in {count(posts, 'post')}; "
        f"{count(report.delivered, 'reply', 'replies')} posted; "
        f"{count(report.refusals, 'refusal')}; {count(errors, 'error')}."
    )
    if report.roster_published:
        line = line[:-1] + "; roster published."
    if report.failure is not None:
        line = line[:-1] + f"; Reddit: {report.failure.value}, the next run picks up the rest."
    if report.skipped:
        line = "referee: backing off after Reddit's errors; nothing was read. Try again later."
    return line


def run_once(worker: Worker) -> CycleReport:
    """One full cycle (every source), for cron; SIGTERM and SIGINT wait for it to end."""
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()
        log.info("event=stopping signal=%s: finishing the cycle", signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        return worker.cycle(full=True)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
