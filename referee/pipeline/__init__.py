"""One post through the stages, exactly once: read, resolve, render, record.

* :mod:`~referee.pipeline.flow`: the :class:`~referee.pipeline.flow.Referee` that takes a
  post through each stage once and records what it said;
* :mod:`~referee.pipeline.campaign`: a campaign on disk (config, secret, system, store);
* :mod:`~referee.pipeline.failures`: posts the referee could not handle;
* :mod:`~referee.pipeline.batch`: a saved thread refereed offline, as the bot would.

May import: every stage (:mod:`referee.read`, :mod:`referee.resolve`,
:mod:`referee.render`), :mod:`referee.system`, :mod:`referee.store`,
:mod:`referee.notation` and :mod:`referee.base`; never a concrete dice system (a
campaign finds its system through the registry in :mod:`referee.system`).
"""
