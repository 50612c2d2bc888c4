"""Stage 2, resolving: requests become verdicts, under the rules and who may do what.

* :mod:`~referee.resolve.dispatch`: the core's verbs (dice, applications, help) joined
  with the campaign system's into one table, and who may use each;
* :mod:`~referee.resolve.corrections`, :mod:`~referee.resolve.lookup`,
  :mod:`~referee.resolve.tracker_verbs`: the GM's corrections, the look-ups and the
  initiative tracker, which every system shares;
* :mod:`~referee.resolve.tracker`, :mod:`~referee.system.visibility`,
  :mod:`~referee.resolve.verdicts`: the tracker's model, who may see what, and the
  verdict values the next stage renders.

May import: :mod:`referee.read`, :mod:`referee.system`, :mod:`referee.notation`,
:mod:`referee.store` and :mod:`referee.base`; never a concrete dice system, and nothing
that renders or delivers.
"""
