"""The dice-system interface: everything a system gives the core, and nothing more.

A campaign plays one dice system, named in ``config.toml`` (``[campaign] system``).
The core knows no system: it finds tags, rolls HMAC dice, keeps the ledger and the
store, runs the application and approval flow, renders and delivers. Everything a
system's rules decide comes through one :class:`System` value, found by name in the
registry (:mod:`referee.system.registry`: the built-ins, plus any installed package that
declares an entry point in the group ``referee.systems``)::

    [project.entry-points."referee.systems"]
    mysystem = "my_package.system:SYSTEM"

What a system provides (each member of :class:`System` says what it is for):

* **who it is**: ``name``, ``version`` (recorded in every ledger row, so a ledger
  stays verifiable after the system changes), a one-line ``description`` and the
  ``seed`` (rule text) it implements;
* **its verbs**: a table of :class:`Verb`, each with the parser from tag text to a
  request (raising :class:`~referee.base.errors.TagError` with the right form on bad input),
  the resolver from request to :class:`Resolution`, a form, a one-line help and an
  example that resolves in the system's example campaign. ``gm_only`` verbs are
  refused to players by the core, with the reason, before the resolver runs; so are
  a verb's ``gm_options`` (:class:`GmOption`: a difficulty, Advantage, bonus dice... that
  only a GM may set), while ``player_options`` names what a player may write;
* **its sheet** (:class:`SheetFormat`): the application format players post under
  ``[[apply]]``, the parser, validation that returns every problem at once, the
  character value, GM amendments, and how the character is stored: its JSON record,
  whose first version (from the approved sheet) is the character's initial state;
* **its rulings**: a frozen dataclass of options with defaults, read from the
  campaign's ``[rulings]`` table; unknown keys are refused listing the known ones
  (:func:`referee.system.options.read_options` does this for any such dataclass);
* **its rules value**: :meth:`System.load_rules` builds it once per campaign from the
  rulings and the campaign's files (race tables, scale tables...);
* **its state**: the system names the store tables it owns (``tables``); a verb reads
  and writes them only through ``context.table(name)`` and ``context.roster``, whose
  writes form the tag's change set: the core keeps it when the tag resolves and
  undoes it when the tag fails, so a refused or crashed tag leaves no half-change.
  Per character state lives in the character's record; per thread state (an
  encounter, a standing difficulty, a pending test) in a table keyed by thread; per
  campaign state (a scene, a chapter, timers) in a table keyed by a fixed key.
  Records are JSON values; a system that changes their shape bumps ``version`` and
  reads the old shape. A test opened by a GM and resolved from several players'
  declarations is such state: a thread's pending test, declared into by tag after tag
  and resolved by the tag that completes it (or the GM's);
* **its initiative**: a system that rolls initiative names that verb ``init`` and returns
  the totals in :attr:`Resolution.initiative`; the core's tracker
  (:mod:`referee.resolve.tracker_verbs`) keeps each thread's order, turn, round and conditions, and
  gives every campaign ``[[next]]`` and ``[[init add|remove|list|effect|re|end ...]]``
  (the order set by hand where the system rolls none);
* **its state's rules**: ``invariants`` (every way the stored state has left the rules,
  which the conformance kit checks after every tag of random play) and
  ``undo_within_rules`` (a voided tag's undo kept within them);
* **its hooks**: ``end_encounter`` (called by the core's ``[[end encounter]]``),
  ``roster_view`` (what the wiki roster shows, campaign state such as scenes and
  timers included), ``character_rows`` (``referee characters``), ``seed_store`` (the
  campaign's shipped sheets, read into an empty store);
* **its exact odds** (:class:`OddsCase`): every kind of roll it makes, with the
  exact distribution and a sampler, so the conformance kit
  (:func:`referee.testing.conformance.check_system`) can check them against
  100,000 seeded rolls;
* **its verdict templates**: a folder of Jinja2 templates named
  ``verdict_<kind>.md.j2`` (plus any filters and globals they use). Lookup order:
  the campaign's ``templates_dir``, then the system's folder, then the core's.

Randomness always comes in as a :class:`~referee.base.dice.DiceSource` and is drawn in a
fixed order the system documents, so ``referee roll TAG --dice 3,8,7,10`` and
:class:`~referee.base.dice.FixedDice` replay any example.

:class:`BaseSystem` (:mod:`~referee.system.base`) gives every member but ``name``, ``verbs``
and ``sheet`` a working default, and :func:`verb` makes a verb.

This package is the plug-in's whole view of referee: a system imports what it needs from
here (``__all__`` lists it). Its modules import
:mod:`referee.store` and :mod:`referee.base` only, so every stage may use them:
:mod:`~referee.system.interface` (the types, and what a verb may know and do),
:mod:`~referee.system.roster` (the characters as a system's sheets read them),
:mod:`~referee.system.visibility` (who may see what) and
:mod:`~referee.system.registry` (the installed systems, by name).
"""

from referee.base.dice import DiceSource, FixedDice
from referee.base.errors import ConfigError, Forbidden, RuleViolation, TagError, UserError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.system.arguments import (
    known_prefix,
    leading_name,
    name_argument,
    signed_number,
    trailing_modifiers,
)
from referee.system.base import BaseSystem, NoRulings, SheetRoster, kept_facts, sheet_rows, verb
from referee.system.interface import (
    CampaignFiles,
    Change,
    Context,
    ExampleCampaign,
    GmOption,
    OddsCase,
    ParseContext,
    Parser,
    Resolution,
    Resolver,
    System,
    Verb,
    approved_rows,
    refuse_gm_options,
    require_control,
    require_gm,
    rulings_defaults,
    verb_table,
)
from referee.system.look_alikes import refuse_look_alike
from referee.system.options import options_mapping, read_options
from referee.system.registry import BUILT_IN, GROUP, installed_systems, load_system
from referee.system.roster import Roster, SheetFormat, unique_prefix
from referee.system.seeding import CHARACTERS_FILE, seed_characters, seed_table
from referee.system.validation import problems_message

__all__ = [
    "BUILT_IN",
    "CHARACTERS_FILE",
    "DEFAULT_LIMITS",
    "GROUP",
    "BaseSystem",
    "CampaignFiles",
    "Change",
    "ConfigError",
    "Context",
    "DiceSource",
    "ExampleCampaign",
    "FixedDice",
    "Forbidden",
    "GmOption",
    "Limits",
    "NoRulings",
    "OddsCase",
    "ParseContext",
    "Parser",
    "Resolution",
    "Resolver",
    "Roster",
    "RuleViolation",
    "SheetFormat",
    "SheetRoster",
    "System",
    "TagError",
    "UserError",
    "Verb",
    "approved_rows",
    "installed_systems",
    "kept_facts",
    "known_prefix",
    "leading_name",
    "load_system",
    "name_argument",
    "options_mapping",
    "problems_message",
    "read_options",
    "refuse_gm_options",
    "refuse_look_alike",
    "require_control",
    "require_gm",
    "rulings_defaults",
    "seed_characters",
    "seed_table",
    "sheet_rows",
    "signed_number",
    "trailing_modifiers",
    "unique_prefix",
    "verb",
    "verb_table",
]
