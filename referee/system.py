"""The dice-system interface: everything a system gives the core, and nothing more.

A campaign plays one dice system, named in ``config.toml`` (``[campaign] system``).
The core knows no system: it finds tags, rolls HMAC dice, keeps the ledger and the
store, runs the application and approval flow, renders and delivers. Everything a
system's rules decide comes through one :class:`System` value, found by name in the
registry (:mod:`referee.systems`: the built-ins, plus any installed package that
declares an entry point in the group ``referee.systems``)::

    [project.entry-points."referee.systems"]
    mysystem = "my_package.system:SYSTEM"

What a system provides (each member of :class:`System` says what it is for):

* **who it is**: ``name``, ``version`` (recorded in every ledger row, so a ledger
  stays verifiable after the system changes), a one-line ``description`` and the
  ``seed`` (rule text) it implements;
* **its verbs**: a table of :class:`Verb`, each with the parser from tag text to a
  request (raising :class:`~referee.errors.TagError` with the right form on bad input),
  the resolver from request to :class:`Resolution`, a form, a one-line help and an
  example that resolves in the system's example campaign. ``gm_only`` verbs are
  refused to players by the core, with the reason, before the resolver runs;
* **its sheet** (:class:`SheetFormat`): the application format players post under
  ``[[apply]]``, the parser, validation that returns every problem at once, the
  character value, GM amendments, and how the character is stored: its JSON record,
  whose first version (from the approved sheet) is the character's initial state;
* **its rulings**: a frozen dataclass of options with defaults, read from the
  campaign's ``[rulings]`` table; unknown keys are refused listing the known ones
  (:func:`referee.systems.options.read_options` does this for any such dataclass);
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
  (:mod:`referee.tracker_verbs`) keeps each thread's order, turn, round and conditions, and
  gives every campaign ``[[next]]`` and ``[[init add|remove|list|effect|re|end ...]]``
  (the order set by hand where the system rolls none);
* **its hooks**: ``end_encounter`` (called by the core's ``[[end encounter]]``),
  ``roster_view`` (what the wiki roster shows, campaign state such as scenes and
  timers included), ``character_rows`` (``referee characters``), ``seed_store`` (the
  campaign's shipped sheets, read into an empty store). The usual ones are written once:
  the mixin :class:`referee.campaign.SeedsCharacters` seeds from ``characters.toml``, and
  :func:`approved_rows` splits a roster's approved characters into players' and the GM's;
* **its exact odds** (:class:`OddsCase`): every kind of roll it makes, with the
  exact distribution and a sampler, so the conformance kit
  (:func:`referee.testing.conformance.check_system`) can check them against
  100,000 seeded rolls;
* **its verdict templates**: a folder of Jinja2 templates named
  ``verdict_<kind>.md.j2`` (plus any filters and globals they use). Lookup order:
  the campaign's ``templates_dir``, then the system's folder, then the core's.

Randomness always comes in as a :class:`~referee.dice.DiceSource` and is drawn in a
fixed order the system documents, so ``referee roll TAG --dice 3,8,7,10`` and
:class:`~referee.dice.FixedDice` replay any example.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:  # the core's context and store: only types here, no import cycle
    from .dice import DiceSource
    from .resolve import Context
    from .tags import ParseContext
    from .verdicts import Change


@dataclass(frozen=True)
class Resolution:
    """What a verb's resolver produced: the template kind, the rules' result and its effects.

    ``kind`` names the template ``verdict_<kind>.md.j2`` the verdict renders with;
    ``result`` is the system's own frozen result value, handed to that template as
    ``v.result``; ``chance`` is the headline exact chance, if there is one; ``changes``
    lists what happened to characters (shown in the verdict and kept in the ledger). An
    initiative roll lists its totals in ``initiative``; the core's tracker
    (:mod:`referee.tracker_verbs`) makes them the thread's order and says whose turn it is.
    """

    kind: str
    result: Any
    chance: Fraction | None = None
    changes: tuple[Change, ...] = ()
    # An initiative roll's (name, total) pairs: the core's tracker takes the thread's
    # order from them (equal totals act together). Empty for every other roll.
    initiative: tuple[tuple[str, int], ...] = ()
    tracker: Any = None  # set by the core: what the roll did to the tracker, for the verdict

    # Every tag makes one: the instance dict filled directly, the same frozen value
    # as the generated __init__ makes field by field in twice the time (see Verdict).
    def __init__(
        self,
        kind: str,
        result: Any,
        chance: Fraction | None = None,
        changes: tuple[Change, ...] = (),
        initiative: tuple[tuple[str, int], ...] = (),
        tracker: Any = None,
    ) -> None:
        fields = self.__dict__
        fields["kind"] = kind
        fields["result"] = result
        fields["chance"] = chance
        fields["changes"] = changes
        fields["initiative"] = initiative
        fields["tracker"] = tracker


Parser = Callable[[str, "ParseContext"], Any]  # the tag's text after the verb -> a request
Resolver = Callable[[Any, "Context", "DiceSource"], Resolution]


@dataclass(frozen=True)
class Verb:
    """One verb of a system: how its tag reads, what resolves it, and how a player learns it.

    >>> verb = Verb("roll", lambda rest, context: rest, lambda r, c, d: Resolution("x", r),
    ...             form="roll <dice>", help="rolls dice", example="roll 2d6")
    >>> verb.usage
    '[[roll 2d6]]'
    """

    name: str  # the canonical word a tag starts with, lower case
    parse: Parser  # raises TagError (message and the right form) on anything it cannot read
    resolve: Resolver  # raises UserError subclasses for what the rules or permissions refuse
    form: str  # the grammar a player writes: "shoot <attacker> -> <target> [options]"
    help: str  # one line saying what the verb does
    example: str  # a tag (without brackets) that resolves in the system's example campaign
    aliases: tuple[str, ...] = ()
    gm_only: str = ""  # if set, only a GM may use it; the words finish "Only a GM may ..."
    usage_text: str = ""  # the form shown under a problem; defaults to the example in brackets
    # A system's ``roll`` only: text it reads itself although it starts like dice notation
    # (a bare pool, ``roll 6 diff 7``); the rest still goes to the core's notation first.
    claims: Callable[[str], bool] | None = None

    @property
    def usage(self) -> str:
        """What a problem verdict shows as the right form."""
        return self.usage_text or f"[[{self.example}]]"


@dataclass(frozen=True)
class OddsCase:
    """One kind of roll a system makes, with its exact distribution and a way to roll it.

    The conformance kit checks that ``distribution`` sums to 1 and that ``sample``,
    given seeded dice, lands on each outcome as often as it says.
    """

    name: str  # e.g. "agility d8, named"
    distribution: Mapping[Any, Fraction]  # every outcome (a total, a band...) -> its chance
    sample: Callable[[DiceSource], Any]  # one roll with these dice -> its outcome


@runtime_checkable
class SheetFormat(Protocol):
    """A system's character sheet: the application format, parsing, validation, storage."""

    form: str  # what a player reads when the sheet is missing or wrong: the lines to write

    def parse(self, text: str, limits: Any, kind: str = "pc") -> dict[str, Any]:
        """The sheet text of an application -> a record; raise UserError listing every problem.

        ``kind`` says whose sheet it is: ``"pc"`` for a player's application, ``"npc"`` for a
        sheet a GM imports. A system may let a GM's sheet set what a player's may not (a
        tough NPC's wound track, say); the record's ``kind`` is the one given.
        """
        ...

    def from_record(self, record: Mapping[str, Any]) -> Any:
        """A stored (or parsed) record -> the system's character value (it has a ``.name``)."""
        ...

    def to_record(self, character: Any) -> dict[str, Any]:
        """The character -> the JSON record the store keeps (its per-character state included)."""
        ...

    def validate(self, character: Any, rules: Any) -> list[str]:
        """Every way the character breaks the rules, each a sentence; empty when it is legal."""
        ...

    def amend(self, character: Any, amendment: str) -> tuple[Any, str]:
        """Apply one GM amendment of ``[[approve with ...]]``; the new character, in words."""
        ...


@runtime_checkable
class System(Protocol):
    """A dice system, as the core sees it. See the module docstring for the whole picture."""

    name: str  # as config.toml names it: [campaign] system = "stepped"
    version: str  # recorded in every ledger row
    description: str  # one line for `referee systems`
    seed: str  # the rule text it implements, e.g. "seed 002 (RULES.md §1)"
    verbs: tuple[Verb, ...]  # in the order help lists them
    sheet: SheetFormat
    rulings_type: type  # a frozen dataclass; every field has a default
    tables: tuple[str, ...]  # the store tables the system owns besides "characters"
    named_tables: tuple[str, ...]  # of those, tables keyed by names players write in tags
    table_sheets: Mapping[str, Any]  # of those, tables of sheets: name -> from_/to_record
    templates: Path | None  # the folder of the system's verdict templates

    def read_rulings(self, table: Mapping[str, Any]) -> Any:
        """``[rulings]`` -> the rulings value; ConfigError naming unknown keys and the known.

        :func:`referee.systems.options.read_options` does this for any frozen dataclass
        whose defaults are Enums, bools, ints (with a ``range``) or tuples of strings.
        """
        ...

    def load_rules(self, rulings: Any, campaign: CampaignFiles) -> Any:
        """The campaign's rules value: its rulings and whatever tables the system reads."""
        ...

    def seed_store(self, campaign: CampaignFiles, rules: Any, store: Any) -> None:
        """Fill empty tables from the sheets the campaign ships; raise ConfigError on refusals."""
        ...

    def end_encounter(self, context: Context) -> Any:
        """The core's [[end encounter]] ran in ``context.post.thread``: reset what it resets.

        Returns whether the thread had encounter state (an initiative order...) to reset:
        a bool, or any value whose truth says so and which the system's
        ``verdict_encounter.md.j2`` shows as ``v.result.detail`` (who was reset...).
        """
        ...

    def roster_view(self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> Any:
        """What the roster template (``roster.md.j2`` of the system) shows, from stored records.

        ``tables`` holds the records of ``characters`` and of each of ``tables``; campaign
        state a system wants on the wiki page (a scene, timers) goes in the view too.
        """
        ...

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Any
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row of strings per character."""
        ...

    def odds_cases(self) -> Iterable[OddsCase]:
        """Every kind of roll the system makes, for the conformance kit."""
        ...

    def example_campaign(self) -> ExampleCampaign:
        """Sheets (and rulings) under which every verb's example resolves."""
        ...

    def template_helpers(self) -> Mapping[str, Any]:
        """Filters and globals the system's templates use (name -> function or value)."""
        ...


@dataclass(frozen=True)
class CampaignFiles:
    """What a system may read of a campaign's set-up: its folders and named tables."""

    data_dir: Path  # the campaign's data folder (sheets shipped with it, its own tables)
    tables: Mapping[str, Path] = field(default_factory=dict)  # [campaign] keys naming files


@dataclass(frozen=True)
class ExampleCampaign:
    """A small campaign for a system's examples: sheets by store table, and the GM's name."""

    records: Mapping[str, tuple[Mapping[str, Any], ...]]  # table -> sheets (approved)
    rulings: Mapping[str, Any] = field(default_factory=dict)
    player: str = "player"  # owns every "pc" sheet, so player verbs are tried as a player
    gm: str = "gm"


def rulings_defaults(rulings_type: type) -> dict[str, Any]:
    """Every ruling's default; raises TypeError naming a ruling that has none."""
    defaults = {}
    for item in fields(rulings_type):
        if item.default is not MISSING:
            defaults[item.name] = item.default
        elif item.default_factory is not MISSING:
            defaults[item.name] = item.default_factory()
        else:
            raise TypeError(f"the ruling {item.name} has no default")
    return defaults


def verb_table(verbs: Iterable[Verb]) -> dict[str, Verb]:
    """Every word (verb or alias, lower case) -> its verb; a word taken twice is refused.

    >>> noop = lambda *args: None
    >>> sorted(verb_table([Verb("roll", noop, noop, "", "", "r", aliases=("r",))]))
    ['r', 'roll']
    """
    table: dict[str, Verb] = {}
    for verb in verbs:
        for word in (verb.name, *verb.aliases):
            if word.casefold() in table:
                raise ValueError(f"the verb word {word!r} is taken twice")
            table[word.casefold()] = verb
    return table


Row = TypeVar("Row")


def approved_rows(
    records: Iterable[Mapping[str, Any]], row: Callable[[Mapping[str, Any]], Row]
) -> tuple[tuple[Row, ...], tuple[Row, ...]]:
    """A roster's rows of the approved characters: the players' and the GM's (kind npc).

    For :meth:`System.roster_view`; ``row`` turns a stored character into the system's row.

    >>> stored = [{"approved": True, "sheet": {"name": "Kara"}},
    ...           {"approved": True, "sheet": {"name": "Guard", "kind": "npc"}},
    ...           {"approved": False, "sheet": {"name": "Orla"}}]
    >>> approved_rows(stored, lambda record: record["sheet"]["name"])
    (('Kara',), ('Guard',))
    """
    rows = [(record, row(record)) for record in records if record.get("approved")]
    return (
        tuple(found for record, found in rows if record["sheet"].get("kind", "pc") == "pc"),
        tuple(found for record, found in rows if record["sheet"].get("kind", "pc") != "pc"),
    )
