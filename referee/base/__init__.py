"""The small base modules every layer may use: they import nothing else of referee.

* :mod:`~referee.base.errors`: the one exception tree;
* :mod:`~referee.base.limits` and :mod:`~referee.base.effort`: caps on hostile input and
  step budgets for the work a player's text can cause;
* :mod:`~referee.base.dice`: the randomness sources, the one way a rule gets a die;
* :mod:`~referee.base.names`, :mod:`~referee.base.english`,
  :mod:`~referee.base.markdown`: names as players write them, and words and Markdown
  as the referee writes them back;
* :mod:`~referee.base.posts`: Reddit's posts as plain values.

May import: the standard library and third-party packages, and other base modules.
"""
