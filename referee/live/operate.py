"""The live bot's commands: ``referee run`` (with its log file) and ``referee status``,
and the campaign as the shell's read-only commands open it beside a running bot.

:mod:`referee.cli` dispatches to these; they print for whoever runs the bot and
return the command's exit code (0, or 1: errors in the cycle, the bot not running or
looking stuck).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from datetime import datetime, timezone
from logging.handlers import RotatingFileHandler
from pathlib import Path

from referee.base.errors import ConfigError
from referee.live.reddit import open_forum
from referee.live.service import ok, run_once, serve, summary
from referee.live.shell_requests import request_folder, waiting
from referee.live.status import heartbeat_path, read_heartbeat, stuck
from referee.live.worker import Worker
from referee.pipeline.campaign import Campaign, Config, find_config, load_config
from referee.pipeline.failures import FailureLog
from referee.pipeline.flow import Referee
from referee.store.store import writer_running

EXIT_OK, EXIT_ERRORS = 0, 1


def reading(args: argparse.Namespace, config: Config | None = None) -> Campaign:
    """The campaign for a command that only reads it: while the live bot holds the store,
    its last committed state (no lock, nothing written), saying how recent that is."""
    config = config or load_config(find_config(args.campaign))
    if not writer_running(config.store_path):
        return Campaign(config)
    campaign = Campaign(config, read_only=True)
    at = campaign.store.committed_at
    when = datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    print(
        f"referee: the live bot is running; this is the campaign as of its last write, "
        f"{when} UTC ({max(0.0, time.time() - at):.0f} s ago).",
        file=sys.stderr,
    )
    return campaign


# The live bot's --log-file: rotated at this size, this many old files kept.
LOG_FILE_BYTES = 10 * 1024 * 1024
LOG_FILES_KEPT = 5


def _log_to_file(path: Path) -> logging.Handler:
    """Add a rotating file to the referee's log (the standard library's rotation)."""
    try:
        handler = RotatingFileHandler(
            path, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILES_KEPT, encoding="utf-8"
        )
    except OSError as exc:
        raise ConfigError(
            f"Cannot write the log file {path}: {exc.strerror}. Check that its folder exists "
            "and this user may write there, or leave out --log-file."
        ) from exc
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger("referee").addHandler(handler)
    return handler


def run(args: argparse.Namespace) -> int:
    # The live bot's log is its output: one key=value line per step of every post. Both
    # the level and the file are the run's own: a caller in the same process (a test, a
    # tool calling main) finds the referee's logging as it was.
    logger = logging.getLogger("referee")
    level = logger.level
    logger.setLevel(logging.INFO)
    handler = _log_to_file(args.log_file) if args.log_file else None
    try:
        return _run(args)
    finally:
        logger.setLevel(level)
        if handler is not None:
            logger.removeHandler(handler)
            handler.close()


def _run(args: argparse.Namespace) -> int:
    with Campaign.open(args.campaign) as campaign:
        config = campaign.config.reddit
        if not config.subreddits and not config.threads:
            raise ConfigError(
                f"Nothing to watch: set [reddit] subreddits or threads in {campaign.config.path}."
            )
        forum = open_forum(config)
        worker = Worker(Referee(campaign), forum, config)
        if args.once:
            report = run_once(worker)
            print(summary(report))
            return EXIT_OK if ok(report) else EXIT_ERRORS
        serve(worker)
    return EXIT_OK


STORE_FILES = (".ledger.jsonl", ".index")  # beside store.json: the store's other files


def status(args: argparse.Namespace) -> int:
    config = load_config(find_config(args.campaign))
    store_path = config.store_path
    running = writer_running(store_path)
    beat = read_heartbeat(heartbeat_path(store_path))
    if beat.get("left_out") and not running:
        print(
            f"referee: the host left this campaign out: {beat['left_out']} Fix that, then "
            "`referee host --reload HOST.toml`; its other campaigns run meanwhile.",
            file=sys.stderr,
        )
        return EXIT_ERRORS
    with reading(args, config) as campaign:
        failures = len(FailureLog(campaign.store))
        rows = len(campaign.store.ledger)
    now = time.time()
    files = [store_path, *(store_path.with_name(store_path.stem + e) for e in STORE_FILES)]
    size = sum(path.stat().st_size for path in files if path.exists())
    print(
        f"bot: {'running' if running else 'not running'}"
        + (f" (pid {beat['pid']})" if running and beat.get("pid") else "")
    )
    last = beat.get("last_read_at")
    if last:
        print(f"last successful read: {_when(float(last))} ({now - float(last):.0f} s ago)")
        print(f"replies waiting: {beat.get('replies_waiting', 0)}")
        print(
            f"budget: {float(beat.get('budget_per_minute', 0)):.0f} requests a minute; "
            f"{beat.get('requests_sent', 0)} sent since it started; reading every "
            f"{float(beat.get('interval', 0)):.0f} s"
        )
    else:
        print("last successful read: none recorded yet")
    print(f"failures: {failures}" + (" (`referee failures` lists them)" if failures else ""))
    requests = len(waiting(request_folder(store_path)))
    if requests:
        print(
            f"requests from the shell waiting: {requests} (the bot takes them within seconds; "
            "with no bot running, its next start or the next command that changes the "
            "campaign does)"
        )
    print(f"store: {size / 1e6:.1f} MB, {rows} ledger rows")
    if not running:
        print(
            "referee: no bot is running on this campaign; start it with `referee run` "
            "(or its service).",
            file=sys.stderr,
        )
        return EXIT_ERRORS
    poll = float(beat.get("poll_seconds") or config.reddit.poll_seconds)
    if not last or stuck(last_read_at=float(last), poll_seconds=poll, now=now):
        print(
            "referee: the bot looks stuck: no successful read for too long. Its log says "
            "why (event=back_off: Reddit is failing; otherwise restart it).",
            file=sys.stderr,
        )
        return EXIT_ERRORS
    return EXIT_OK


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
