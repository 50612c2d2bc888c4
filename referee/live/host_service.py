"""Running a host: one thread per account, signals, reload, and ``referee host``.

:func:`serve_host` steps each account of a :class:`~referee.live.host.Host` in a
thread of its own (an account's campaigns take turns; accounts do not wait for one
another), each at the time :meth:`~referee.live.host.AccountHost.next_wake` names,
and lets every campaign take its shell requests each second. Signals::

    SIGHUP           read the host file again: campaigns added are opened, those
                     taken out are flushed and closed, the others go on untouched
                     (``referee host --reload HOST.toml`` sends it)
    SIGTERM, SIGINT  stop: every account's step in flight finishes, then every
                     campaign's store is flushed and closed
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading
import time
from pathlib import Path
from types import FrameType

from referee.base.errors import ConfigError
from referee.live.host import AccountHost, Host
from referee.live.host_config import load_host

log = logging.getLogger(__name__)

REQUESTS_EVERY = 1.0  # seconds between looks for requests left by the shell
EXIT_OK = 0


def pid_path(host_file: Path) -> Path:
    """Where a running host keeps its process id (for ``--reload``)."""
    return host_file.with_name(host_file.name + ".pid")


def serve_host(host: Host, *, stop: threading.Event, reload: threading.Event) -> None:
    """Step every account until ``stop`` is set; re-read the host file when ``reload`` is.

    Returns after every account's step in flight has finished; the caller closes the host.
    """
    threads: dict[str, threading.Thread] = {}

    def loop(account: AccountHost) -> None:
        looked = 0.0
        while not stop.is_set() and host.accounts.get(account.account.name) is account:
            try:
                account.step()
                now = time.time()
                if now - looked >= REQUESTS_EVERY:
                    looked = now
                    account.take_requests()
                wake = account.next_wake()
            except Exception:  # a bug must not stop the host: log it, try again soon
                log.exception("event=host_step_failed account=%s", account.account.name)
                wake = time.time() + REQUESTS_EVERY
            stop.wait(min(REQUESTS_EVERY, max(0.0, wake - time.time())))

    def start_threads() -> None:
        for name, account in host.accounts.items():
            thread = threads.get(name)
            if thread is None or not thread.is_alive():
                threads[name] = threading.Thread(
                    target=loop, args=(account,), name=f"account-{name}", daemon=True
                )
                threads[name].start()

    start_threads()
    while not stop.is_set():
        if reload.is_set():
            reload.clear()
            try:
                host.reload()
            except ConfigError as error:
                log.error(
                    "event=reload_refused reason=%r: the host goes on as it was", error.message
                )
            start_threads()
        stop.wait(0.2)
    for thread in threads.values():
        thread.join()


def host(args: argparse.Namespace) -> int:
    """``referee host HOST.toml``: serve every campaign of the host file (or ``--reload`` it)."""
    path: Path = args.host_file.resolve()
    load_host(path)  # a broken host file stops here, before anything is opened or told
    if args.reload:
        return _send_reload(path)  # a broken host file stops here, before anything is opened
    logging.getLogger("referee").setLevel(logging.INFO)
    stop, reload = threading.Event(), threading.Event()

    def on_stop(signum: int, frame: FrameType | None) -> None:
        log.info("event=stopping signal=%s: finishing every step", signal.Signals(signum).name)
        stop.set()

    def on_hup(signum: int, frame: FrameType | None) -> None:
        reload.set()

    previous = {
        sig: signal.signal(sig, handler)
        for sig, handler in (
            (signal.SIGTERM, on_stop),
            (signal.SIGINT, on_stop),
            (signal.SIGHUP, on_hup),
        )
    }
    running = Host(path)
    pid_path(path).write_text(f"{os.getpid()}\n", encoding="utf-8")
    try:
        serve_host(running, stop=stop, reload=reload)
    finally:
        running.close()
        pid_path(path).unlink(missing_ok=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        log.info("event=stopped")
    return EXIT_OK


def _send_reload(path: Path) -> int:
    try:
        pid = int(pid_path(path).read_text(encoding="utf-8").strip())
        os.kill(pid, signal.SIGHUP)
    except (OSError, ValueError) as error:
        raise ConfigError(
            f"No running host for {path} ({error}); start it with `referee host {path}`."
        ) from error
    print(f"referee: asked the host (pid {pid}) to read {path.name} again.")
    return EXIT_OK
