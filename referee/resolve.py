"""Requests to verdict contents: the core's verbs, the campaign system's, and who may use them.

The core resolves what every system shares: plain dice (``[[roll 2d6+3]]``), the
application and approval flow (``[[apply]]``, ``[[approve]]``, ``[[reject]]``,
``[[revise]]``), ``[[end encounter]]`` (which asks the system what to reset) and
``[[help]]``. Every other verb is the campaign system's (:mod:`referee.system`):
:func:`verbs_for` joins both into one table, :func:`resolve_request` refuses a
GM-only verb to a player and calls the verb's resolver. A resolver reads and writes
state only through its :class:`Context` (the :class:`Roster` and ``context.table``),
whose writes make the tag's change set (:mod:`referee.changes`). Anything a player
got wrong surfaces as a ``UserError``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from . import notation, tracker_verbs
from .campaign import character_key, store_entry
from .changes import ChangeSet, Table, TrackedTable
from .dice import DiceSource
from .errors import Forbidden, NoSuchCharacter, RuleViolation, TagError, UnknownName, UserError
from .forum import Post
from .limits import DEFAULT_LIMITS, Limits
from .names import NameIndex
from .sheets import sheet_block
from .suggest import close_verb
from .system import CampaignFiles, Resolution, SheetFormat, System, Verb, verb_table
from .tags import (
    APPLY_USAGE,
    DECIDE_USAGE,
    DICE_USAGE,
    END_USAGE,
    HELP_USAGE,
    Apply,
    Decide,
    EndEncounter,
    ParseContext,
    RollDice,
    ShowHelp,
    decision_parser,
    parse_apply,
    parse_dice,
    parse_end,
    parse_help,
)
from .visibility import hidden_keys

__all__ = ["Context", "Resolution", "Roster", "resolve_request", "verbs_for"]


class Roster:
    """The campaign's characters for one run: parsed once by the system's sheet, written back.

    Records are the store's entries (name, owner, approval and the system's ``sheet``);
    the system's :class:`~referee.system.SheetFormat` turns a sheet into its character.
    """

    def __init__(
        self,
        table: Table,
        sheet: SheetFormat,
        named: Iterable[Table] = (),
        visibility: Table | None = None,
    ) -> None:
        self._table = table
        self._sheet = sheet
        self._named = tuple(named)  # the system's other named tables (crafts), for suggestions
        self._visibility = visibility  # referee.visibility's table: who is hidden
        self._parsed: dict[str, Any] = {}
        # The visibility hook: a stored record -> whether a misspelt name may suggest it.
        # A roster that hides NPCs from players sets it for a player's post.
        self.suggestable: Callable[[dict[str, Any]], bool] = _always
        # For the post being resolved (set by the session): whether a name may find a
        # character known to the GMs only (a GM's post), and whether one may be
        # suggested for a misspelt name (a GM's private message: nobody else reads it).
        self.finds_hidden = True
        self.sees_hidden = True
        self.forget()

    def forget(self) -> None:
        """Re-read the table (after a change set was rolled back)."""
        # Records are read from the table when first needed, never the whole roster at once.
        self._records: dict[str, dict[str, Any]] = {}
        self._parsed = {}
        # First words and misspellings found at a cost that does not grow with the roster.
        self._index = NameIndex(self._table.keys())
        self._names: frozenset[str] | None = None  # made when first asked, kept until a change
        self._everything: NameIndex | None = None  # characters and crafts, at the first typo
        self._starts: tuple[frozenset[str], frozenset[str]] | None = None  # see name_starts
        self._visible_names: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None
        self._longest: tuple[frozenset[str], int] | None = None  # see longest_name
        self._hidden = (
            hidden_keys(self._visibility) if self._visibility is not None else frozenset()
        )

    @property
    def hidden(self) -> frozenset[str]:
        """The keys of the characters known to the GMs only (see referee.visibility)."""
        return self._hidden

    def hide(self, key: str, hidden: bool) -> None:
        """Note that ``key`` is now hidden (or public): the visibility table changed."""
        self._hidden = self._hidden | {key} if hidden else self._hidden - {key}

    def _visible(self, key: str) -> bool:
        return self.finds_hidden or key not in self._hidden

    def _suggestable(self, key: str) -> bool:
        return self.sees_hidden or key not in self._hidden

    @property
    def name_starts(self) -> frozenset[str]:
        """The first words of every character's name (which words may start a name)."""
        names = self.known_names
        if self._starts is None or self._starts[0] is not names:
            self._starts = (names, frozenset(name.split(" ", 1)[0] for name in names))
        return self._starts[1]

    @property
    def known_names(self) -> frozenset[str]:
        """Every character's name a tag of this post may hold, casefolded (for splitting
        names out of tags): a player's leaves out the characters known to the GMs only."""
        if self._names is None:
            self._names = frozenset(self._table.keys())
        if self._hidden and not self.finds_hidden:
            # Kept while both sides stay the same objects: a player's every tag asks.
            visible = self._visible_names
            if visible is None or visible[0] is not self._names or visible[1] is not self._hidden:
                visible = (self._names, self._hidden, self._names - self._hidden)
                self._visible_names = visible
            return visible[2]
        return self._names

    @property
    def longest_name(self) -> int:
        """The most words any character's name has (hidden ones too): no name is longer."""
        self.known_names  # noqa: B018 - makes self._names
        names = self._names or frozenset()
        if self._longest is None or self._longest[0] is not names:
            self._longest = (names, max((name.count(" ") + 1 for name in names), default=1))
        return self._longest[1]

    def __contains__(self, name: str) -> bool:
        return character_key(name) in self._table

    def holder(self, name: str) -> dict[str, Any] | None:
        """The stored record holding ``name``'s key, whoever may see it (for name clashes)."""
        key = character_key(name)
        return self._records.get(key) or self._table.get(key)

    def finds(self, name: str) -> bool:
        """Whether this post may know of the character named exactly ``name``."""
        return self._visible(character_key(name))

    def add(self, character: Any, owner: str | None, approved: bool) -> None:
        """Put a new (or re-approved) character on the roster."""
        key = character_key(character.name)
        record = store_entry(character.name, owner, approved, self._sheet.to_record(character))
        self._records[key] = record
        self._parsed[key] = character
        self._index.add(key)
        if self._everything is not None:
            self._everything.add(key)
        self._names = None
        self._table.put(key, record)

    def record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the character ``name`` refers to."""
        return self._record(self.key(name))

    def find(self, name: str) -> Any:
        """The character a player means by ``name``: exact, else the only one it starts."""
        key = self.key(name)
        if key not in self._parsed:
            self._parsed[key] = self._sheet.from_record(self._record(key)["sheet"])
        return self._parsed[key]

    def key(self, name: str) -> str:
        """The store key ``name`` means; UnknownName (with close names) if none or several."""
        key = character_key(name)
        if key in self._table and self._visible(key):
            return key
        starting = tuple(k for k in self._index.starting(key) if self._visible(k))
        if len(starting) == 1:
            return starting[0]
        if starting:
            # Names the visibility hook hides are not listed (nor counted) to the asker.
            records = [self._record(k) for k in starting[:20]]
            listed = [str(r["name"]) for r in records if self.suggestable(r)][:5]
            shown = ", ".join(listed) if listed else "more than one character"
            raise UnknownName(f"'{name}' could mean {shown}; write the full name.")
        raise NoSuchCharacter(f"No character is named '{name}'.{self.suggestion(key)}", name)

    def suggestion(self, key: str) -> str:
        """ " Did you mean X or Y?" for a misspelt name (characters and crafts), or what to do.

        Accents and typing slips are forgiven (:meth:`NameIndex.suggest`); names the
        :attr:`suggestable` hook refuses (hidden NPCs) are never offered.
        """
        shown = self.close_names(key)
        if shown:
            return f" Did you mean {' or '.join(shown)}?"
        return (
            " Check the spelling; a GM adds characters by approving an [[apply]] or with "
            "[[npc ...]]."
        )

    def close_names(self, key: str, *, named_only: bool = False) -> list[str]:
        """The names ``key`` may be a misspelling of, closest first, that the asker may learn.

        Characters and the system's named tables (crafts); ``named_only``: those tables
        alone. Hidden names (see :attr:`suggestable`) are left out.
        """
        if self._everything is None:
            keys = list(self._table.keys())
            for table in self._named:
                keys.extend(table.keys())
            self._everything = NameIndex(keys)
        allowed = self._may_name_named if named_only else self.may_name
        shown = []
        for close in self._everything.suggest(key, allowed=allowed):
            record = self._lookup(close)
            if record is not None:
                shown.append(str(record.get("name", close)))
        return shown

    def _lookup(self, key: str) -> dict[str, Any] | None:
        """The record ``key`` names in the roster or a named table, if any."""
        record = self._records.get(key) or self._table.get(key)
        for table in self._named:
            if record is not None:
                break
            record = table.get(key)
        return record

    def may_name(self, key: str) -> bool:
        """Whether this post's answer may name the character or craft ``key`` holds.

        Not one known to the GMs only, unless a GM reads the answer alone.
        """
        record = self._lookup(key)
        return record is not None and self._suggestable(key) and self.suggestable(record)

    def _may_name_named(self, key: str) -> bool:
        in_named = any(key in table for table in self._named)
        return in_named and key not in self._table and self.may_name(key)

    def _record(self, key: str) -> dict[str, Any]:
        record = self._records.get(key)
        if record is None:
            record = self._table.get(key)
            if record is None:
                raise UnknownName(f"No character is named '{key}'.")
            self._records[key] = record
        return record

    def resolve_first(self, key: str) -> str | None:
        """The key ``key`` names exactly or by its first words alone, if visible; else None."""
        found = self._index.resolve(key)
        return found if found is not None and self._visible(found) else None

    def starting(self, key: str) -> tuple[str, ...]:
        """The character keys whose first words are ``key``'s (``kara`` -> ``kara venn``)."""
        return tuple(k for k in self._index.starting(key) if self._visible(k))

    def update(self, character: Any) -> None:
        """Keep a changed character, its owner and approval untouched."""
        key = character_key(character.name)
        record = {**self._record(key), "sheet": self._sheet.to_record(character)}
        self._records[key] = record
        self._parsed[key] = character
        self._table.put(key, record)


def _always(record: dict[str, Any]) -> bool:
    return True


def unique_prefix(key: str, keys: Iterable[str]) -> str | None:
    """The one key that starts with ``key`` and a space (a first name), or None.

    >>> unique_prefix("kara", ["kara venn", "dax orrel"]), unique_prefix("k", ["kara venn"])
    ('kara venn', None)
    """
    starting = [k for k in keys if k.startswith(key + " ")]
    return starting[0] if len(starting) == 1 else None


_KNOWN_NAMES = "referee.known_names"  # Context.known_names's entry in the run's cache


@dataclass
class Context:
    """What a resolver may read and change while resolving one tag."""

    roster: Roster
    changes: ChangeSet  # every write of the tag goes through here (see referee.changes)
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


def _pending_application(context: Context, name: str) -> dict[str, Any] | None:
    """The application ``name`` means (exactly, or the only one it starts), if any."""
    applications = context.table("applications")
    key = character_key(name)
    found = applications.get(key)
    if found is None:
        starting = unique_prefix(key, applications.keys())
        found = applications.get(starting) if starting else None
    return found


def require_control(context: Context, name: str, doing: str) -> Any:
    """The character ``name`` refers to, if the author may act for it; else Forbidden."""
    try:
        character = context.roster.find(name)
    except UnknownName:
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


def resolve_dice(request: RollDice, context: Context, dice: DiceSource) -> Resolution:
    rolled = notation.roll_expression(request.expression, dice, context.limits, notation.odds)
    return Resolution("dice", rolled, rolled.odds[0].chance)


# ----------------------------------------------------------- applications and approval


@dataclass(frozen=True)
class ApplicationResult:
    """A submitted sheet: the character as read, what is wrong with it, where it stands."""

    character: Any  # the system's character value
    owner: str
    version: int  # 1 for the first submission, 2 for the next...
    problems: tuple[str, ...]
    status: str  # "awaiting approval" or "needs changes"


@dataclass(frozen=True)
class DecisionResult:
    """A GM's decision on an application."""

    decision: str  # approve, reject or revise
    name: str
    owner: str
    note: str
    amendments: tuple[str, ...]  # as applied, in words
    character: Any | None  # the approved character, with amendments


@dataclass(frozen=True)
class EncounterResult:
    """The end of a thread's encounter."""

    had_order: bool  # the system had encounter state in the thread (an order...) and reset it
    detail: Any = None  # what the system's end_encounter returned, for its own template


STATUS_PENDING, STATUS_NEEDS_CHANGES = "awaiting approval", "needs changes"


def _system(context: Context) -> System:
    if context.system is None:
        raise RuleViolation("This campaign has no dice system, so it takes no applications.")
    return context.system


def resolve_apply(request: Apply, context: Context, dice: DiceSource) -> Resolution:
    sheet = _system(context).sheet
    text = sheet_block(context.post.body)
    if text is None:
        raise UserError("Put your character sheet in a code block under [[apply]]. " + sheet.form)
    character = sheet.from_record(sheet.parse(text, context.limits))
    key = character_key(character.name)
    author = context.post.author
    held = context.roster.holder(character.name)
    # A character the poster may not know of (a GM's hidden NPC) is not named to him:
    # the application goes on, and the GM is told at approval (_refuse_name_clash).
    if held is not None and not _held_by(held, author) and context.roster.finds(character.name):
        raise Forbidden(f"{character.name} is already in play; choose another name.")
    applications = context.table("applications")
    application = applications.get(key) or {"name": character.name, "owner": author, "versions": []}
    if str(application["owner"]).casefold() != author.casefold():
        raise Forbidden(
            f"u/{application['owner']} has already applied with {character.name}; "
            "choose another name."
        )
    problems = tuple(sheet.validate(character, context.rules))
    status = STATUS_NEEDS_CHANGES if problems else STATUS_PENDING
    application["versions"].append(
        {
            "post": context.post.fullname,
            "sheet": sheet.to_record(character),
            "problems": list(problems),
            "submitted": context.post.created,
        }
    )
    application.update(status=status, post=context.post.fullname, note="")
    applications.put(key, application)
    version = len(application["versions"])
    return Resolution(
        "application", ApplicationResult(character, author, version, problems, status)
    )


def _application_for(
    context: Context, name: str | None, decision: str
) -> tuple[str, dict[str, Any]]:
    applications = context.table("applications")
    if name is not None:
        key = character_key(name)
        found = applications.get(key)
        if found is None:
            close = NameIndex(applications.keys()).suggest(key)
            shown = [str((applications.get(k) or {}).get("name", k)) for k in close]
            hint = f" Did you mean {' or '.join(shown)}?" if shown else ""
            raise UnknownName(f"No application is named '{name}'.{hint}")
        return key, found
    parent = context.post.parent
    for key, application in applications.items():
        if any(version["post"] == parent for version in application["versions"]):
            return key, application
    example = {"approve": "", "reject": ": the sheet does not fit", "revise": ": fix Agility"}
    # The example names an application waiting here, so it can be used as written.
    waiting = [
        str(a.get("name", key))
        for key, a in applications.items()
        if a.get("status") in (STATUS_PENDING, STATUS_NEEDS_CHANGES)
    ]
    named = waiting[0] if waiting else "NAME"
    raise UserError(
        f"Reply to the application you decide on, or name it: [[{decision} {named}"
        f"{example.get(decision, '')}]]."
    )


def resolve_decide(request: Decide, context: Context, dice: DiceSource) -> Resolution:
    require_gm(context, f"{request.decision} applications")
    key, application = _application_for(context, request.name, request.decision)
    applications = context.table("applications")
    latest = application["versions"][-1]
    owner = str(application["owner"])
    if request.decision != "approve":
        status = "rejected" if request.decision == "reject" else "revision requested"
        applications.put(key, {**application, "status": status, "note": request.note})
        return Resolution(
            "decision",
            DecisionResult(request.decision, application["name"], owner, request.note, (), None),
        )
    sheet = _system(context).sheet
    character = sheet.from_record(latest["sheet"])
    applied = []
    force = False
    for amendment in request.amendments:
        if amendment.casefold() == "force":
            force = True
            applied.append("approved despite the rules")
            continue
        character, words = sheet.amend(character, amendment)
        applied.append(words)
    problems = sheet.validate(character, context.rules)
    if problems and not force:
        raise RuleViolation(
            f"{character.name}'s sheet still breaks the rules: {' '.join(problems)} Ask for "
            "changes with [[revise ...]], amend it, or approve it anyway with "
            "[[approve with force]]."
        )
    _refuse_name_clash(context, character.name, owner)
    context.roster.add(character, owner, approved=True)
    applications.put(key, {**application, "status": "approved", "note": ""})
    return Resolution(
        "decision",
        DecisionResult("approve", character.name, owner, "", tuple(applied), character),
    )


def _held_by(record: dict[str, Any], player: str) -> bool:
    owner = record.get("owner")
    return bool(owner) and str(owner).casefold() == player.casefold()


def _refuse_name_clash(context: Context, name: str, player: str) -> None:
    """Approval never replaces another's character (a GM's NPC, or another player's).

    The applicant's own character may be approved again: that is how a sheet is amended.
    """
    held = context.roster.holder(name)
    if held is None or _held_by(held, player):
        return
    how = (
        f"Rename that one with [[rename {held['name']} -> ...]], or ask u/{player} for "
        "another name with [[revise choose another name]]."
    )
    if held.get("owner") and not context.roster.hidden & {character_key(name)}:
        raise Forbidden(
            f"{held['name']} is already on the roster as u/{held['owner']}'s character; "
            f"approving would replace it. Ask u/{player} for another name with "
            "[[revise choose another name]]."
        )
    raise Forbidden(
        f"The name {held['name']} is already on the roster (another character's); "
        f"approving would replace it. {how}"
    )


def resolve_end(request: EndEncounter, context: Context, dice: DiceSource) -> Resolution:
    outcome = _system(context).end_encounter(context)
    had_tracker = tracker_verbs.clear(context)
    return Resolution("encounter", EncounterResult(bool(outcome) or had_tracker, outcome))


# ------------------------------------------------------------------------------ help


@dataclass(frozen=True)
class HelpResult:
    """The verbs ``[[help]]`` lists: the campaign system's, then the core's."""

    system: str  # the system's name, "" when the campaign has none
    description: str
    verbs: tuple[Verb, ...]


def resolve_help(request: ShowHelp, context: Context, dice: DiceSource) -> Resolution:
    verbs = verbs_for(context.system)
    listed = tuple(dict.fromkeys(verbs.values()))
    if request.verb is not None:
        verb = verbs.get(request.verb)
        if verb is None:
            close = close_verb(request.verb, verbs)
            hint = f" Did you mean {close.name}?" if close else ""
            names = ", ".join(v.name for v in listed)
            raise UnknownName(f"There is no verb '{request.verb}'.{hint} Verbs: {names}.")
        listed = (verb,)
    system = context.system
    return Resolution(
        "help",
        HelpResult(system.name if system else "", system.description if system else "", listed),
    )


# --------------------------------------------------------------------- the verb table

_CORE_DICE = Verb(
    "roll",
    parse_dice,
    resolve_dice,
    form="roll <dice>",
    help="rolls dice: NdX, d%, khN/klN/dhN/dlN, +N/-N",
    example="roll 2d6+3",
    aliases=("r",),
    usage_text=DICE_USAGE,
)
_CORE_FLOW = (
    Verb(
        "apply",
        parse_apply,
        resolve_apply,
        form="apply, then the sheet in a code block",
        help="submits a character sheet for a GM to approve",
        example="apply",
        usage_text=APPLY_USAGE,
    ),
    *(
        Verb(
            decision,
            decision_parser(decision),
            resolve_decide,
            form=f"{decision} [name] {'[with amendments]' if decision == 'approve' else 'note'}",
            help=f"GM: {decision}s the application the post replies to",
            example=DECIDE_USAGE[decision].split("]]")[0].removeprefix("[["),
            gm_only=f"{decision} applications",
            usage_text=DECIDE_USAGE[decision],
        )
        for decision in ("approve", "reject", "revise")
    ),
    Verb(
        "end",
        parse_end,
        resolve_end,
        form="end encounter",
        help="GM: ends the thread's encounter (the system resets what that resets)",
        example="end encounter",
        gm_only="end an encounter",
        usage_text=END_USAGE,
    ),
    Verb(
        "help",
        parse_help,
        resolve_help,
        form="help [verb]",
        help="lists the verbs of this campaign, or shows one",
        example="help",
        usage_text=HELP_USAGE,
    ),
)


def _joined_roll(system_roll: Verb) -> Verb:
    """The core's dice notation first, then the system's own ``roll`` forms.

    Text the system's verb ``claims`` (a pool's bare number of dice) is the system's.
    """

    claims = system_roll.claims or (lambda rest: False)

    def parse(rest: str, context: ParseContext) -> Any:
        if notation.looks_like_expression(rest) and not claims(rest):
            return RollDice(notation.parse_expression(rest, context.limits))
        try:
            return system_roll.parse(rest, context)
        except TagError as error:
            hint = notation.dice_hint(rest, context.limits)  # "roll d 20": dice after all
            if hint is None:
                raise
            message = f"{error.message} For dice, write [[roll {hint}]]."
            raise TagError(message, error.usage) from None

    def resolve(request: Any, context: Context, dice: DiceSource) -> Resolution:
        if isinstance(request, RollDice):
            return resolve_dice(request, context, dice)
        return system_roll.resolve(request, context, dice)

    return Verb(
        "roll",
        parse,
        resolve,
        form=f"{_CORE_DICE.form} or {system_roll.form}",
        help=f"{_CORE_DICE.help}; or {system_roll.help}",
        example=system_roll.example,
        aliases=tuple(dict.fromkeys((*_CORE_DICE.aliases, *system_roll.aliases))),
        usage_text=system_roll.usage,
    )


_TRACKER_HELP = "add, remove, list, effect, re, end: the thread's initiative tracker"
_TRACKER_FORM = "init add|remove|list|effect|re|end ..."
_NEXT = Verb(
    "next",
    tracker_verbs.parse_next,
    tracker_verbs.resolve,
    form="next",
    help="ends the turn: the thread's initiative moves to the next (a new round after the last)",
    example="next",
    usage_text=tracker_verbs.NEXT_USAGE,
)
_INIT_BY_HAND = Verb(
    "init",
    tracker_verbs.parse_init_by_hand,
    tracker_verbs.resolve,
    form=_TRACKER_FORM,
    help=f"the initiative, set by hand: {_TRACKER_HELP}",
    example="init add Goblin 14",
    aliases=("initiative", "i"),
    usage_text=tracker_verbs.INIT_USAGE,
)


def _joined_init(system_init: Verb) -> Verb:
    """The system's initiative roll, and the core tracker's subcommands (``init add ...``)."""

    def parse(rest: str, context: ParseContext) -> Any:
        request = tracker_verbs.parse_subcommand(rest, context)
        return request if request is not None else system_init.parse(rest, context)

    def resolve(request: Any, context: Context, dice: DiceSource) -> Resolution:
        if isinstance(request, tracker_verbs.TrackerRequest):
            return tracker_verbs.resolve(request, context, dice)
        return system_init.resolve(request, context, dice)

    return Verb(
        "init",
        parse,
        resolve,
        form=f"{system_init.form} or {_TRACKER_FORM}",
        help=f"{system_init.help}; {_TRACKER_HELP}",
        example=system_init.example,
        aliases=tuple(dict.fromkeys((*system_init.aliases, "i"))),
        usage_text=system_init.usage,
    )


_TABLES: dict[int, tuple[System | None, dict[str, Verb]]] = {}  # by id(system), kept alive


def verbs_for(system: System | None) -> dict[str, Verb]:
    """Every verb word of a campaign (the core's and its system's) -> its verb, in help order.

    A system's ``roll`` verb extends the core's: dice notation is read first. The order
    is roll, the system's verbs, then the core's application, encounter and help verbs.
    """
    cached = _TABLES.get(id(system))
    if cached is not None:
        return cached[1]
    from .corrections import CORRECTION_VERBS  # they resolve through this module's Context
    from .lookup import LOOKUP_VERBS
    from .npc_verb import npc_verb

    own = tuple(system.verbs) if system is not None else ()
    system_roll = next((verb for verb in own if verb.name == "roll"), None)
    roll = _joined_roll(system_roll) if system_roll is not None else _CORE_DICE
    system_init = next((verb for verb in own if verb.name == "init"), None)
    init = _joined_init(system_init) if system_init is not None else _INIT_BY_HAND
    taken = {word for verb in own for word in (verb.name, *verb.aliases)}
    tracker = tuple(verb for verb in (init, _NEXT) if verb.name not in taken)
    # The system's own verbs keep their places (its init joined with the tracker's); a
    # system's own verb of the same word as a core look-up or correction wins.
    joined = (init if verb.name == "init" else verb for verb in own if verb.name != "roll")
    # [[npc]] reads the system's own sheet, where the system names no npc verb of its own.
    core_npc = npc_verb(system) if system is not None and "npc" not in taken else None
    npc = (core_npc,) if core_npc is not None else ()
    records = tuple(
        verb for verb in (*npc, *LOOKUP_VERBS, *CORRECTION_VERBS) if verb.name not in taken
    )
    table = verb_table((roll, *joined, *tracker, *_CORE_FLOW[:-1], *records, _CORE_FLOW[-1]))
    _TABLES[id(system)] = (system, table)
    return table


def resolve_request(
    verb: Verb | None, request: Any, context: Context, dice: DiceSource
) -> Resolution:
    """Resolve a parsed request with its verb (None: bare dice), refusing GM-only verbs.

    Dice notation (:class:`RollDice`) resolves the same whichever verb read it (none,
    the core's roll or a system's roll, which reads notation first), so it goes
    straight to :func:`resolve_dice`: the most common tag, without the verb's detour.
    """
    if verb is None or (type(request) is RollDice and not verb.gm_only):
        return resolve_dice(request, context, dice)
    if verb.gm_only:
        require_gm(context, verb.gm_only)
    if isinstance(request, tracker_verbs.EndTracker):
        require_gm(context, "end an encounter")
        return resolve_end(EndEncounter(), context, dice)
    resolution = verb.resolve(request, context, dice)
    if resolution.initiative:
        joined = tracker_verbs.join_rolled(context, resolution.initiative)
        resolution = replace(resolution, tracker=joined)
    return resolution
