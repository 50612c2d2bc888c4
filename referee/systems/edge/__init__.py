"""The ``edge`` system (seed 003, RULES.md §4): 2d6 + stat moves in three bands, the advantage die.

**Inert until wired.** This package is the pure rules engine only: nothing registers
it, no tag reaches it and no store holds its state yet. The wiring (tags, templates,
store, GM verbs by post, the demo campaign) comes later, on the ``System`` interface.

The package, by topic:

* :mod:`~referee.systems.edge.rulings`: R-13 and R-39 as one frozen dataclass of options;
* :mod:`~referee.systems.edge.sheet`: stat and counter lists, sheets, per-character state;
* :mod:`~referee.systems.edge.bands`: the bands and when a policy spends the advantage;
* :mod:`~referee.systems.edge.moves`: rolling a move, both readings, R-39 "ask";
* :mod:`~referee.systems.edge.verbs`: lowering, raising, setting and resetting the
  advantage, the policy, stats and counters (GM verbs refuse players with the reason);
* :mod:`~referee.systems.edge.odds`: the exact odds of each band.

Every function is pure: randomness comes in as a :class:`~referee.dice.DiceSource`
(two d6 a move, first then second) and every change of state comes back as
:class:`~referee.systems.changes.Change` values for the caller to store.
"""
