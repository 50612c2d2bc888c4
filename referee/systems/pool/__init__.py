"""The ``pool`` system (seed 000, RULES.md §2): Storyteller d10 pools against a difficulty.

**Inert until wired.** This package is the pure rules engine only: nothing registers
it, no tag reaches it and no store holds its state yet. The wiring (tags, templates,
store, GM verbs by post, the demo campaign) comes later, on the ``System`` interface.

The package, by topic:

* :mod:`~referee.systems.pool.rulings`: R-29..R-38 as one frozen dataclass of options;
* :mod:`~referee.systems.pool.sheet`: trait lists, sheets, per-character state, validation;
* :mod:`~referee.systems.pool.rolls`: building and rolling a pool, multiple actions;
* :mod:`~referee.systems.pool.contests`: extended tasks, teamwork, resisted rolls and
  resisted + extended contests, sessions (the free botch);
* :mod:`~referee.systems.pool.edits`: the GM's edits of traits, Willpower points, counters;
* :mod:`~referee.systems.pool.odds`: the exact distribution of net successes.

Every function is pure: randomness comes in as a :class:`~referee.dice.DiceSource`,
drawn in the order each module documents, and every change of state comes back as
:class:`~referee.systems.changes.Change` values for the caller to store.
"""
