"""The live bot: poll Reddit, hand each new post to the pipeline once, reply exactly once.

* :mod:`~referee.live.worker`: the worker and its scheduler loop;
* :mod:`~referee.live.schedule`: the request budget and the reading pace;
* :mod:`~referee.live.reddit`: the PRAW adapter, the one place Reddit is called.

May import: :mod:`referee.pipeline` and everything below it.
"""
