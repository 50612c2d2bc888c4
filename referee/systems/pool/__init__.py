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
* :mod:`~referee.systems.pool.odds`: the exact distribution of net successes;
* :mod:`~referee.systems.pool.odds_cases`: the rolls the conformance kit will check.

Every function is pure: randomness comes in as a :class:`~referee.base.dice.DiceSource`,
drawn in the order each module documents, and every change of state comes back as
:class:`~referee.systems.changes.Change` values for the caller to store.

**Readings of the seed** (RULES.md §2 rulings are options in
:class:`~referee.systems.pool.rulings.PoolRulings`; these are the choices this engine
makes where both are silent):

* An Ability alone is refused ("an Ability is rolled with an Attribute"); the seed
  and RULES name only Attribute + Ability and an Attribute alone. Humanity, like
  Willpower, is rolled alone.
* A modified difficulty is clamped (R-30); a difficulty asked outside 2-10 before any
  modifier is refused, and a modifier beyond +-10 is refused as a typo.
* Willpower's "one a turn" is checked against the ``turn`` key the caller gives (a
  thread's round, say) and across the actions of one declaration.
* Multiple actions: the whole declaration is planned before a die falls; an action
  left without dice refuses it (``empty_action = "refuse"``, added) or, as the seed
  reads, is skipped while the others roll (``"skip"``).
* Extended tasks: a solo task's turn is each roll; a team's turn ends when a member
  rolls again, and a named team's last turn ends once each member has rolled in it.
  A turn limit with the tally short of the target fails the task. A team's tally
  never drops below 0 (R-38 ``own``).
* Resisted rolls: the first side's dice are drawn first. R-36's tie may go to the
  second (resisting) side under ``resisted_tie = "defender"`` (added). In a
  resisted + extended contest a botching side's own tally follows R-35; two botches
  under R-35 ``end`` fail the contest with no winner. Contests have no turn limit
  (the seed gives none).
* When 1s cancel, the lowest successes go first, so a verdict shows the 10s standing.
"""
