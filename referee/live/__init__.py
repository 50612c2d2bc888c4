"""The live bot: poll Reddit, hand each new post to the pipeline once, reply exactly once.

* :mod:`~referee.live.worker`: the worker and its scheduler loop;
* :mod:`~referee.live.schedule`: the request budget and the reading pace;
* :mod:`~referee.live.reddit`: the PRAW adapter, the one place Reddit is called.
* :mod:`~referee.live.digest`: the GMs' hourly digest of problems, by private message;
* :mod:`~referee.live.status`: the heartbeat ``referee status`` reads;
* :mod:`~referee.live.operate`: the ``run`` and ``status`` commands, and the campaign
  as read-only commands open it beside a running bot;
* :mod:`~referee.live.shell_requests`: what a GM does in the shell, left as a request
  the store's writer (the bot, or the shell when no bot runs) carries out exactly once;
* :mod:`~referee.live.shell`: the shell's commands that change the campaign (approve,
  reject, revise, import, failures).

May import: :mod:`referee.pipeline` and everything below it.
"""
