"""The ``trikus`` dice system (seed 001, RULES.md §3): opposed d10 duels, one die at a time.

The package holds the pure rules engine and, on the ``System`` interface, its wiring:
:mod:`.system` (the registered :data:`~.system.SYSTEM`), :mod:`.tags` (parse),
:mod:`.handlers` (tests and fights by post: open, declare, go, answer, overturn) and
:mod:`.edits` (the GM's verbs over the state), :mod:`.party` (the party in the store:
characters, the campaign record, each thread's pending test), :mod:`.application`
(sheets as the core keeps them), :mod:`.odds_cases` and ``templates/``.

The rules engine, by topic:

* :mod:`.rulings`: every ruling of §3 as one frozen value, read from config.toml;
* :mod:`.state`: characters, the party and a fight's pools (§3.7), versioned JSON,
  and the check of a new character;
* :mod:`.policy`: the declared policy of §3.6, parsed and checked against a sheet;
* :mod:`.duel`: the die-by-die duel (control per player-GM pair, voids, Light,
  escape, Negotiation, Boom) as a state machine;
* :mod:`.opposed`: a test from declarations to outcomes and a change set, team
  cancellations, pending Negotiations and overturning after a Boom;
* :mod:`.combat`: fight rounds, attack and defend, Combat Difficulty, pools, allies;
* :mod:`.resources`: Morale, tokens, Catastrophe, refresh, falls, the Master's
  sacrifice, advancement, equipment, and the GM's verbs over the state;
* :mod:`.changes`: change sets and how they apply;
* :mod:`.odds`: each player's exact chance of success under his policy.
"""
