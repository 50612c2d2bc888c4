"""The ``edge`` system (seed 003, RULES.md §4): 2d6 + stat moves in three bands, the advantage die.

The package holds the pure rules engine and, on the ``System`` interface, its wiring:
:mod:`~referee.systems.edge.system` (the registered :data:`SYSTEM`),
:mod:`~referee.systems.edge.tags` (parse), :mod:`~referee.systems.edge.handlers`
(resolve against the store), :mod:`~referee.systems.edge.application` (sheets as the
core keeps them) and ``templates/``.

The rules engine, by topic:

* :mod:`~referee.systems.edge.rulings`: R-13 and R-39 as one frozen dataclass of options;
* :mod:`~referee.systems.edge.sheet`: stat and counter lists, sheets, per-character state;
* :mod:`~referee.systems.edge.bands`: the bands and when a policy spends the advantage;
* :mod:`~referee.systems.edge.moves`: rolling a move, both readings, R-39 "ask";
* :mod:`~referee.systems.edge.verbs`: lowering, raising, setting and resetting the
  advantage, the policy, stats and counters (GM verbs refuse players with the reason);
* :mod:`~referee.systems.edge.odds`: the exact odds of each band;
* :mod:`~referee.systems.edge.odds_cases`: the moves the conformance kit will check.

Every function is pure: randomness comes in as a :class:`~referee.base.dice.DiceSource`
(two d6 a move, first then second) and every change of state comes back as
:class:`~referee.systems.changes.Change` values for the caller to store.

**Readings of the seed** (R-13 and R-39 are options in
:class:`~referee.systems.edge.rulings.EdgeRulings`; these are the choices this engine
makes where RULES.md and the seed are silent):

* The seed lets the player replace "the value of a die he rolled"; RULES.md says the
  lower one, which is always the better choice. On a double, the first die is replaced.
* Policies: RULES.md's ``up``, ``hit``, ``strong`` and ``never``, plus the issue's
  ``always`` (spend it whenever it raises the total at all, even within a band; never
  when the lower die already shows as much). ``default_policy`` (added) is the policy
  a new character starts with.
* Under R-39 ``"ask"`` a roll whose tag names a policy is decided by it at once; only
  a roll without one waits for ``edge`` or ``keep``. Settling refuses if the advantage
  changed in between (the GM lowered it), since the choice offered no longer exists.
* A stat left off a sheet, or a counter never set, counts 0. Stats are -3..+3 unless
  the campaign's list says otherwise; counters -99..99.
"""
