"""The live bot in a process of its own, stepped on a clock its driver gives it.

``python -m referee.testing.soak_bot CAMPAIGN_DIR`` opens the campaign and its Reddit
(praw_* environment variables, as ``referee run`` does) and makes the same
:class:`~referee.live.worker.Worker`, but instead of APScheduler on the wall clock it
takes its time from its driver (:mod:`referee.testing.soak`), one JSON line at a time
on stdin, and answers each on stdout::

    driver: {"now": T}                 first line: the time the worker starts at
    bot:    {"wake": W, "pid": P}      when it next has something to do
    driver: {"now": T}                 the time is T: take one step (Worker.step)
    bot:    {"wake": W}
    driver: {"stop": true}             close the campaign (flushing it) and exit 0
    bot:    {"stopped": true}

So days of play run in minutes, and the driver may SIGKILL the process at any point,
as a crash or a power cut would, and start another on the same campaign. A step that
raises is logged and told to the GMs, as :func:`~referee.live.service.serve` does.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from referee.live.reddit import open_forum
from referee.live.worker import Worker
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee

log = logging.getLogger("referee.testing.soak_bot")


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the worker in ``argv[0]``'s campaign, one step per line from stdin."""
    folder = Path((argv if argv is not None else sys.argv[1:])[0])
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.getLogger("referee").addHandler(handler)
    logging.getLogger("referee").setLevel(logging.INFO)
    now = [float(json.loads(sys.stdin.readline())["now"])]

    def clock() -> float:
        return now[0]

    with Campaign.open(folder) as campaign:
        config = campaign.config.reddit
        worker = Worker(Referee(campaign, clock=clock), open_forum(config), config, clock=clock)
        _say({"wake": worker.next_wake(), "pid": os.getpid()})
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("stop"):
                break
            now[0] = float(message["now"])
            try:
                worker.step()
            except Exception as error:  # as serve does: a bug must not stop the bot
                log.exception("event=step_failed")
                worker.tell_crash(error)
            _say({"wake": worker.next_wake()})
    _say({"stopped": True})
    return 0


if __name__ == "__main__":
    sys.exit(main())
