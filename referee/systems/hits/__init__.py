"""The ``hits`` dice system (RULES.md §5, seed 004): d6 pools, hits on 4+, exploding 6s.

The package holds the pure rules engine and, on the ``System`` interface, its wiring:
:mod:`.system` (the registered :data:`~.system.SYSTEM`), :mod:`.tags` (parse),
:mod:`.handlers` (rolls), :mod:`.play` (a player's choices: duels, stakes, level-ups),
:mod:`.gm` (the GM's verbs), :mod:`.views` (what verdicts show), :mod:`.application`
(sheets as the core keeps them), :mod:`.odds_cases` (for the conformance kit) and
``templates/``.

Every engine rule is a function over small frozen dataclasses that takes its
randomness as a :class:`referee.base.dice.DiceSource` and returns a frozen result carrying its
dice in draw order and an explicit change set (:class:`referee.systems.changes.Change`);
nothing mutates. The wiring reads the store through the tag's context and writes the
engine's results back, so a refused tag writes nothing.

Engine modules, by topic:

* :mod:`.rulings`: the rulings of §5 (R-23 … R-28, R-40 … R-49) with RULES.md's defaults;
* :mod:`.sheet`: the character sheet (skills, abilities, benefits, techniques and bonds by
  name and Rank) and its state, validated, as versioned JSON;
* :mod:`.rolls`: pools, the Level table, opposed, group and quick rolls, All in redo;
* :mod:`.odds`: the exact odds of every roll, exploding dice included;
* :mod:`.stress`: Stress, Wounds, knockouts, raising the stakes, the Intermission;
* :mod:`.influence`: Influence gained and spent (All in, Leave, a duel's cost);
* :mod:`.duels`: duels, Withdraw / Accept / Resist, NPC resist timers;
* :mod:`.scene`: scenes, Tension, chapters and their spends, timers;
* :mod:`.xp`: chapter XP, Levels, level-up gains and Awakening;
* :mod:`.state`: the campaign state (clock and duels) as versioned JSON;
* :mod:`.records`: reading stored JSON, every problem at once.

Where RULES.md reads one way and the seed another, the module concerned says so and
the choice is a ruling in :class:`.rulings.Rulings`.
"""
