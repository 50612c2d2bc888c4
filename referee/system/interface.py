"""The interface's types: what a system gives the core (a :class:`System` of :class:`Verb`
values, :class:`Resolution` and :class:`Change`) and the shapes it fills in.

See :mod:`referee.system` for the whole interface and how a system is found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, NoSuchCharacter
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.posts import Post
from referee.store.changes import ChangeSet, TrackedTable
from referee.store.entries import character_key
from referee.store.records import Undone
from referee.system.roster import Roster, SheetFormat, unique_prefix


class Change(Protocol):
    """What a verdict did to one character or thing, in the system's own terms.

    The system's templates show it (stepped: wounds and state before and after); the
    ledger keeps what :meth:`ledger` says, beside the dice.
    """

    @property
    def name(self) -> str:
        """Whose change it is (a character's or a craft's name)."""
        ...

    def ledger(self) -> dict[str, Any]:
        """The facts of the change the ledger row keeps (JSON values)."""
        ...


@dataclass(frozen=True)
class Resolution:
    """What a verb's resolver produced: the template kind, the rules' result and its effects.

    ``kind`` names the template ``verdict_<kind>.md.j2`` the verdict renders with;
    ``result`` is the system's own frozen result value, handed to that template as
    ``v.result`` (the ledger keeps what its ``ledger_facts()`` returns, JSON values, if
    it has that method; nothing more otherwise); ``chance`` is the headline exact chance,
    if there is one; ``changes`` lists what happened to characters (shown in the verdict
    and kept in the ledger). An initiative roll lists its totals in ``initiative``; the
    core's tracker (:mod:`referee.resolve.tracker_verbs`) makes them the thread's order and
    says whose turn it is.
    """

    kind: str
    result: Any
    chance: Fraction | None = None
    changes: tuple[Change, ...] = ()
    # An initiative roll's (name, total) pairs: the core's tracker takes the thread's
    # order from them (equal totals act together). Empty for every other roll.
    initiative: tuple[tuple[str, int], ...] = ()
    tracker: Any = None  # set by the core: what the roll did to the tracker, for the verdict


Parser = Callable[[str, "ParseContext"], Any]  # the tag's text after the verb -> a request
Resolver = Callable[[Any, "Context", "DiceSource"], Resolution]


@dataclass(frozen=True)
class GmOption:
    """An option of a verb that only a GM may set: the core refuses a player's tag setting it.

    The refusal comes before the verb's resolver runs and reads "Only a GM may
    {why}. {fix}", so a player learns who decides and how his tag goes without it.
    ``sets`` reads a request the verb's parser made and says whether the tag sets the
    option (it answers False for any other request, such as dice notation read by a
    joined ``roll``); ``applies``, when given, says whether the option is the GM's for
    that request in the tag's thread now (``pool``'s ``diff`` once the GM set a
    difficulty for the thread or for the character's roll).

    >>> adv = GmOption("adv N", lambda r: "adv" in r, "give Advantage", "Roll without adv.",
    ...                example="roll Kara body adv 1")
    >>> adv.refusal("roll Kara body adv 3", None)
    'Only a GM may give Advantage. Roll without adv.'
    """

    name: str  # as a tag writes it: "diff N", "adv N", "a number of dice"
    sets: Callable[[Any], bool]  # whether a parsed request sets the option
    why: str  # finishes "Only a GM may ...": what the option decides
    # How the player's tag goes without it: words, or words made from the request and the
    # tag's context (to name his character, or the GM's standing value).
    fix: str | Callable[[Any, Context], str]
    # A tag setting the option that resolves for the GM in the example campaign (after
    # ``setup``): the conformance kit posts it as a player and as a stranger.
    example: str
    setup: tuple[str, ...] = ()  # the GM's tags that make the option the GM's, for the kit
    # Whether the option is the GM's for this request in this thread now (the tag's
    # context); None: the GM's everywhere.
    applies: Callable[[Any, Context], bool] | None = None

    def refusal(self, request: Any, context: Context) -> str:
        """The words refusing a player's tag that sets the option."""
        fix = self.fix(request, context) if callable(self.fix) else self.fix
        return f"Only a GM may {self.why}. {fix}".rstrip()


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
    # Who may set what: the options a player may write (as a tag writes them, for help),
    # and those only a GM may, which the core refuses to a player before the resolver.
    player_options: tuple[str, ...] = ()
    gm_options: tuple[GmOption, ...] = ()

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

        :func:`referee.system.options.read_options` does this for any frozen dataclass
        whose defaults are Enums, bools, ints (with a ``range``) or tuples of strings.
        """
        ...

    def load_rules(self, rulings: Any, campaign: CampaignFiles) -> Any:
        """The campaign's rules value: its rulings and whatever tables the system reads."""
        ...

    def seed_store(self, campaign: CampaignFiles, rules: Any, store: Any) -> None:
        """Fill empty tables from the sheets the campaign ships; raise ConfigError on refusals."""
        ...

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the campaign's state has left the rules, in words ([] when it has not).

        ``tables`` holds the records of ``characters`` and of each of ``tables``, by key
        (the store as it stands after a tag). The conformance kit plays random sequences
        of the system's verbs, voids, revivals, encounters' ends and restarts, and calls
        this after every tag: an advantage of 9, Willpower above the sheet's, a line lost
        for no refresh, a fight held by the dead are what it finds.
        """
        ...

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
    ) -> Undone:
        """A voided tag's undo of one record, kept within the rules.

        The core takes a voided tag's writes back field by field
        (:func:`referee.store.records.undo`: a number by the difference the tag made);
        ``before`` is the record until now, ``undone`` what that undo made of it and
        ``changes`` the tag's ``[path, old, new]`` writes. Return it as the rules allow
        (:class:`~referee.system.BaseSystem` returns it unchanged).
        """
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


@dataclass(frozen=True)
class ParseContext:
    """What the parser may know about the campaign."""

    known_names: frozenset[str] = frozenset()  # casefolded character names
    limits: Limits = DEFAULT_LIMITS


DEFAULT_CONTEXT = ParseContext()


_KNOWN_NAMES = "referee.known_names"  # Context.known_names's entry in the run's cache


@dataclass
class Context:
    """What a resolver may read and change while resolving one tag."""

    roster: Roster
    changes: ChangeSet  # every write of the tag goes through here (see referee.store.changes)
    rules: Any  # the campaign system's rules value
    post: Post
    limits: Limits = DEFAULT_LIMITS
    system: System | None = None
    gms: frozenset[str] = frozenset()  # casefolded usernames: moderators and config's gms
    files: CampaignFiles | None = None  # the campaign's folders, for a system's own tables
    cache: dict[str, Any] = field(default_factory=dict)  # a system's per-run memo, by its name
    private: bool = False  # a GM's private message: its answer is seen by its author alone
    campaign_name: str = ""  # config.toml's [campaign] name
    npc_stats: str = "shown"  # config.toml's [roster] npc_stats: "shown" or "hidden"
    next_by: str = "turn"  # config's [initiative] next_by: who may write [[next]] besides a GM
    pace: Any = None  # config's [pace]: turn deadlines (a referee.resolve.pace.PaceConfig)
    roll_id: str = ""  # the id the verdict of the tag being resolved carries ("" outside a post)

    @property
    def by_gm(self) -> bool:
        """Whether the post's author is one of the campaign's GMs."""
        return self.post.author.casefold() in self.gms

    @property
    def sees_hidden(self) -> bool:
        """Whether this post's answer may show what only the GMs know: a GM, in private."""
        return self.private and self.by_gm

    def table(self, name: str) -> TrackedTable:
        """The store table ``name``, its writes tracked in the tag's change set."""
        return self.changes.table(name)

    @property
    def known_names(self) -> frozenset[str]:
        """Names a tag may hold: characters, and keys of the system's named tables."""
        names = self.roster.known_names
        tables = getattr(self.system, "named_tables", ())
        if not tables:
            return names
        extra = frozenset().union(*(self.table(table).keys() for table in tables))
        # The union copies the whole roster: made once, kept while both sides stay the same.
        known = self.cache.get(_KNOWN_NAMES)
        if known is None or known[0] is not names or known[1] != extra:
            known = (names, extra, names | extra)
            self.cache[_KNOWN_NAMES] = known
        return known[2]


def require_gm(context: Context, doing: str) -> None:
    """Refuse unless the author is a GM."""
    if not context.by_gm:
        raise Forbidden(
            f"Only a GM may {doing}. u/{context.post.author} is not one of this campaign's GMs "
            "(the subreddit's moderators and the GMs listed in config.toml)."
        )


def refuse_gm_options(verb: Verb, request: Any, context: Context) -> None:
    """Refuse a player's tag that sets an option only a GM may (:class:`GmOption`), saying
    why and how the tag goes without it; a GM's tag passes."""
    if not verb.gm_options or context.by_gm:
        return
    for option in verb.gm_options:
        if option.sets(request) and (option.applies is None or option.applies(request, context)):
            raise Forbidden(option.refusal(request, context))


def _pending_application(context: Context, name: str) -> dict[str, Any] | None:
    """The application not yet approved that ``name`` means (exactly, or the only one it
    starts), if any."""
    applications = context.table("applications")
    key = character_key(name)
    found = applications.get(key)
    if found is None:
        starting = unique_prefix(key, applications.keys())
        found = applications.get(starting) if starting else None
    return found if found is not None and found.get("status") != "approved" else None


def require_control(context: Context, name: str, doing: str) -> Any:
    """The character ``name`` refers to, if the author may act for it; else Forbidden."""
    try:
        character = context.roster.find(name)
    except NoSuchCharacter:  # not when the name is ambiguous: that is the answer
        pending = _pending_application(context, name)
        if pending:
            raise Forbidden(
                f"{pending['name']} is not approved yet and may not {doing}. A GM approves an "
                "application by replying [[approve]] to it."
            ) from None
        raise
    record = context.roster.record(character.name)
    if not record.get("approved"):
        raise Forbidden(
            f"{character.name} is not approved yet and may not {doing}. A GM approves an "
            "application by replying [[approve]] to it."
        )
    if context.by_gm:
        return character
    owner = record.get("owner")
    if not owner:
        raise Forbidden(f"{character.name} is a GM's character; only a GM may {doing} for it.")
    if str(owner).casefold() != context.post.author.casefold():
        raise Forbidden(
            f"{character.name} belongs to u/{owner}; only they or a GM may {doing} for it."
        )
    return character


# ----------------------------------------------------------------------- plain dice
