"""The ``hits`` dice system (RULES.md §5, seed 004): d6 pools, hits on 4+, exploding 6s.

This package is the system's pure rules engine and nothing else: no tags, templates,
store or Reddit. Every rule is a function over small frozen dataclasses that takes its
randomness as a :class:`referee.dice.DiceSource` and returns a frozen result carrying its
dice in draw order and an explicit change set (:class:`referee.systems.changes.Change`,
shared by every system, so the core can apply it); nothing mutates.

The package is **inert**: no core module imports it and it is registered nowhere. It will
be wired behind the ``System`` plug-in interface (issue 11, ``referee/system.py``): tags,
templates, the store and the GM verbs in posts come then, on top of these modules.

Modules, by topic:

* :mod:`.rulings`: the rulings of §5 (R-23 … R-28, R-40 … R-49) with RULES.md's defaults;
* :mod:`.sheet`: the character sheet and its state, validated, as versioned JSON;
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
