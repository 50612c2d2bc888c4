"""Running the worker: the scheduler loop, one cycle from cron, signals, and retries.

:func:`serve` runs :meth:`~referee.live.worker.Worker.step` on APScheduler at the time
:meth:`~referee.live.worker.Worker.next_wake` names; :func:`run_once` runs one cycle
(``run --once``); the shell's requests are looked for every second.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from contextlib import suppress
from datetime import datetime, timezone
from types import FrameType

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers import SchedulerNotRunningError
from apscheduler.schedulers.blocking import BlockingScheduler

from referee.live.parts import (
    CycleReport,
)
from referee.live.worker import Worker

log = logging.getLogger(__name__)

REQUESTS_EVERY = 1.0  # seconds between looks for requests left by the shell (a listdir)


# -- running ---------------------------------------------------------------------------


def serve(worker: Worker, *, stop: threading.Event | None = None) -> None:
    """Run the worker's steps on a blocking APScheduler until SIGTERM or SIGINT.

    One job at a time: a step runs the task due, then adds the next step at the time
    :meth:`Worker.next_wake` names (the worker's clock is the wall clock here). On a
    signal the scheduler stops taking jobs, the step in flight finishes, and this
    returns; the caller then closes (flushes) the store.
    """
    scheduler = BlockingScheduler(
        # One step at a time; the look for the shell's requests on its own thread, so it
        # never queues behind a long step (it skips while one runs: the step takes them).
        executors={"default": ThreadPoolExecutor(max_workers=1), "shell": ThreadPoolExecutor(1)},
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
        except Exception as error:  # a bug must not stop the bot: log it, tell the GMs
            log.exception("event=step_failed: stepping again in %s s", worker.config.poll_seconds)
            worker.tell_crash(error)
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

    def take_requests() -> None:
        if stopping.is_set():
            return
        try:
            worker.take_requests(wait=False)
        except Exception as error:  # as a step's: logged, the GMs told, the bot goes on
            log.exception("event=shell_requests_failed")
            worker.tell_crash(error)

    plan(time.time())
    scheduler.add_job(take_requests, "interval", seconds=REQUESTS_EVERY, executor="shell")
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
    if report.requests:
        line = line[:-1] + f"; {count(report.requests, 'request')} from the shell taken."
    if report.roster_published:
        line = line[:-1] + "; roster published."
    if report.failure is not None:
        line = line[:-1] + f"; Reddit: {report.failure.value}, the next run picks up the rest."
    if report.skipped:
        line = "referee: backing off after Reddit's errors; nothing was read. Try again later."
    return line


def ok(report: CycleReport) -> bool:
    """Whether a cycle went without errors: ``run --once`` exits 1 otherwise.

    >>> ok(CycleReport(delivered=3)), ok(CycleReport(errors=1)), ok(CycleReport(skipped=True))
    (True, False, True)
    """
    return not (report.errors or report.undeliverable or report.failure)


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
