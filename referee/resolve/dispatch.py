"""Requests to verdict contents: the core's verbs, the campaign system's, and who may use them.

The core resolves what every system shares: plain dice (``[[roll 2d6+3]]``), the
application and approval flow (``[[apply]]``, ``[[approve]]``, ``[[reject]]``,
``[[revise]]``), ``[[end encounter]]`` (which asks the system what to reset) and
``[[help]]``. Every other verb is the campaign system's (:mod:`referee.system`):
:func:`verbs_for` joins both into one table, :func:`resolve_request` refuses a
GM-only verb to a player and calls the verb's resolver. A resolver reads and writes
state only through its :class:`Context` (the :class:`Roster` and ``context.table``),
whose writes make the tag's change set (:mod:`referee.store.changes`). Anything a player
got wrong surfaces as a ``UserError``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

from referee import notation
from referee.base.dice import DiceSource
from referee.base.errors import (
    Forbidden,
    RuleViolation,
    TagError,
    ToldGMs,
    UnknownName,
    UserError,
)
from referee.base.names import NameIndex
from referee.read.sheets import sheet_block
from referee.read.suggest import close_verb
from referee.read.tags import (
    APPLY_USAGE,
    DECIDE_USAGE,
    DICE_USAGE,
    END_USAGE,
    HELP_USAGE,
    Apply,
    Decide,
    EndEncounter,
    RollDice,
    ShowHelp,
    decision_parser,
    parse_apply,
    parse_dice,
    parse_end,
    parse_help,
)
from referee.resolve import pace_verbs, tracker_requests, tracker_verbs
from referee.resolve.corrections import CORRECTION_VERBS
from referee.resolve.lookup import LOOKUP_VERBS
from referee.resolve.npc import npc_verb
from referee.store.entries import character_key
from referee.system import (
    Context,
    ParseContext,
    Resolution,
    Roster,
    System,
    Verb,
    refuse_gm_options,
    refuse_look_alike,
    require_gm,
    verb_table,
)

__all__ = ["Context", "Resolution", "Roster", "resolve_request", "verbs_for"]


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
    refuse_look_alike(context, character.name)
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
    hidden = character_key(name) in context.roster.hidden
    if held.get("owner") and not hidden:
        raise Forbidden(
            f"{held['name']} is already on the roster as u/{held['owner']}'s character; "
            f"approving would replace it. Ask u/{player} for another name with "
            "[[revise choose another name]]."
        )
    reason = (
        f"The name {held['name']} is already on the roster (another character's); "
        f"approving would replace it. {how}"
    )
    if hidden and not context.sees_hidden:
        # The thread may not learn that a character known to the GMs only exists.
        raise ToldGMs(
            f"{name} cannot be approved under this name; the GM has been told why by "
            "private message.",
            f"{reason} ({held['name']} is known to the GMs only, so the thread was not told why.)",
        )
    raise Forbidden(reason)


def resolve_end(request: EndEncounter, context: Context, dice: DiceSource) -> Resolution:
    outcome = _system(context).end_encounter(context)
    had_tracker = tracker_verbs.clear(context)
    pace_verbs.end_turn(context)
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
        player_options=system_roll.player_options,
        gm_options=system_roll.gm_options,
    )


_TRACKER_HELP = "add, remove, list, effect, re, end: the thread's initiative tracker"
_TRACKER_FORM = "init add|remove|list|effect|re|end ..."
_NEXT = Verb(
    "next",
    tracker_requests.parse_next,
    tracker_verbs.resolve,
    form="next",
    help="ends the turn: the thread's initiative moves to the next (a new round after the last)",
    example="next",
    usage_text=tracker_requests.NEXT_USAGE,
)
_INIT_BY_HAND = Verb(
    "init",
    tracker_requests.parse_init_by_hand,
    tracker_verbs.resolve,
    form=_TRACKER_FORM,
    help=f"the initiative, set by hand: {_TRACKER_HELP}",
    example="init add Goblin 14",
    aliases=("initiative", "i"),
    usage_text=tracker_requests.INIT_USAGE,
)


def _joined_init(system_init: Verb) -> Verb:
    """The system's initiative roll, and the core tracker's subcommands (``init add ...``)."""

    def parse(rest: str, context: ParseContext) -> Any:
        request = tracker_requests.parse_subcommand(rest, context)
        return request if request is not None else system_init.parse(rest, context)

    def resolve(request: Any, context: Context, dice: DiceSource) -> Resolution:
        if isinstance(request, tracker_requests.TrackerRequest):
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
        player_options=system_init.player_options,
        gm_options=system_init.gm_options,
    )


@functools.lru_cache(maxsize=64)
def verbs_for(system: System | None) -> dict[str, Verb]:
    """Every verb word of a campaign (the core's and its system's) -> its verb, in help order.

    A system's ``roll`` verb extends the core's: dice notation is read first. The order
    is roll, the system's verbs, then the core's application, encounter and help verbs.

    Kept per system (one object, loaded once by name): every tag reads the table, and
    building it takes about a quarter of a millisecond, ten times a ``2d6+3`` verdict
    (``bench/notation_race.py``, full verdict). The table is shared: callers never change it.
    """
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
        verb
        for verb in (*npc, *LOOKUP_VERBS, *CORRECTION_VERBS, *pace_verbs.PACE_VERBS)
        if verb.name not in taken
    )
    return verb_table((roll, *joined, *tracker, *_CORE_FLOW[:-1], *records, _CORE_FLOW[-1]))


def resolve_request(
    verb: Verb | None, request: Any, context: Context, dice: DiceSource
) -> Resolution:
    """Resolve a parsed request with its verb (None: bare dice), refusing GM-only verbs
    and a player's tag that sets an option only a GM may (:class:`~referee.system.GmOption`).

    Dice notation (:class:`RollDice`) resolves the same whichever verb read it (none,
    the core's roll or a system's roll, which reads notation first), so it goes
    straight to :func:`resolve_dice`: the most common tag, without the verb's detour.
    """
    if verb is None or (type(request) is RollDice and not verb.gm_only):
        return resolve_dice(request, context, dice)
    if verb.gm_only:
        require_gm(context, verb.gm_only)
    refuse_gm_options(verb, request, context)
    if isinstance(request, tracker_requests.EndTracker):
        require_gm(context, "end an encounter")
        return resolve_end(EndEncounter(), context, dice)
    resolution = verb.resolve(request, context, dice)
    if resolution.initiative:
        joined = tracker_verbs.join_rolled(context, resolution.initiative)
        resolution = replace(resolution, tracker=joined)
    if resolution.tracker is not None or resolution.kind == tracker_verbs.KIND:
        resolution = pace_verbs.follow(resolution, context)  # the turn's clock and deadline
    return resolution
