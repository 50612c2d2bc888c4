"""The pace's tags: deadlines, reminders, passing, being away, catching up.

Core verbs, for every dice system (the rules are :mod:`referee.resolve.pace`'s):

* ``[[deadline 48h]]`` (or ``2d``), ``[[deadline off]]``, ``[[deadline default]]``: a
  GM sets the thread's turn time (none; the campaign's ``[pace] turn_hours``).
  ``[[deadline]]`` alone says what it is, to anyone;
* ``[[remind me by message]]``, ``[[remind me in thread]]``, ``[[remind me never]]``:
  how the bot reminds the writer that their turn's time is running out;
* ``[[pass]]``: the writer's characters in the current turn are done; when nobody in
  the turn is left to act, the turn passes on. Only on one's own turn (a GM's: his
  own combatants), whatever ``next_by`` says;
* ``[[away Kara until 2026-12-05]]`` (or ``... 18:00``), ``[[away Kara off]]``: Kara's
  turns are passed over until then; the GM or Kara's player;
* ``[[catchup]]`` (``[[catch-up]]``): what happened in the thread since the writer's
  last post there, sent by private message; by private message to the bot, a line per
  thread the writer plays in, as the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, RuleViolation, TagError, UnknownName
from referee.resolve import pace_state, tracker, tracker_verbs
from referee.resolve.catchup import CatchupResult, catchup
from referee.resolve.pace import (
    HOUR,
    MAX_AWAY_DAYS,
    MAX_HOURS,
    MIN_HOURS,
    RemindBy,
    begin_turn,
    is_away,
    parse_hours,
    parse_moment,
    thread_hours,
)
from referee.resolve.tracker_verbs import TrackerResult
from referee.system import Context, ParseContext, Resolution, Verb, require_gm
from referee.system.arguments import collapse, name_argument, shorten

KIND = "pace"  # the kind (and template, verdict_pace) of these verbs' verdicts, but [[pass]]
DEADLINE_USAGE = "[[deadline 48h]], [[deadline 2d]], [[deadline off]] or [[deadline default]]"
REMIND_USAGE = "[[remind me by message]], [[remind me in thread]] or [[remind me never]]"
PASS_USAGE = "[[pass]]"
AWAY_USAGE = "[[away Kara until 2026-12-05]] (or 2026-12-05 18:00 UTC) or [[away Kara off]]"
CATCHUP_USAGE = "[[catchup]]"
_UNTIL = re.compile(r"^(?P<name>.+?)\s+(?:until|till|to)\s+(?P<when>.+)$", re.IGNORECASE)
_OFF = re.compile(r"^(?P<name>.+?)\s+(?:off|back|none)$", re.IGNORECASE)
_REMIND = {
    "by message": RemindBy.MESSAGE,
    "by pm": RemindBy.MESSAGE,
    "by private message": RemindBy.MESSAGE,
    "by dm": RemindBy.MESSAGE,
    "in thread": RemindBy.THREAD,
    "in the thread": RemindBy.THREAD,
    "never": RemindBy.NEVER,
    "off": RemindBy.NEVER,
}


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class SetDeadline:
    """``[[deadline 48h]]``; ``setting`` "hours", "off", "default" or "show"."""

    setting: str
    hours: float = 0.0


@dataclass(frozen=True)
class RemindMe:
    """``[[remind me by message]]``."""

    by: RemindBy


@dataclass(frozen=True)
class PassTurn:
    """``[[pass]]``."""


@dataclass(frozen=True)
class SetAway:
    """``[[away Kara until 2026-12-05]]``; ``until`` None: ``[[away Kara off]]``."""

    name: str
    until: float | None


@dataclass(frozen=True)
class CatchUp:
    """``[[catchup]]``."""


def parse_deadline(rest: str, context: ParseContext) -> SetDeadline:
    """``deadline [48h | 2d | off | default]``.

    >>> parse_deadline("36 hours", ParseContext()), parse_deadline("off", ParseContext())
    (SetDeadline(setting='hours', hours=36.0), SetDeadline(setting='off', hours=0.0))
    """
    text = collapse(rest).casefold()
    if not text:
        return SetDeadline("show")
    if text in ("off", "none", "never"):
        return SetDeadline("off")
    if text in ("default", "campaign"):
        return SetDeadline("default")
    hours = parse_hours(text)
    if hours is None:
        raise TagError(
            f"'{shorten(rest)}' is not a turn time: write hours or days, like 48h or 2d.",
            DEADLINE_USAGE,
        )
    if not MIN_HOURS <= hours <= MAX_HOURS:
        raise TagError(
            f"A turn may last from {MIN_HOURS:g} hour to {MAX_HOURS / 24:g} days, not "
            f"{hours:g} hours.",
            DEADLINE_USAGE,
        )
    return SetDeadline("hours", hours)


def parse_remind(rest: str, context: ParseContext) -> RemindMe:
    """``remind me by message | in thread | never``.

    >>> parse_remind("me by message", ParseContext())
    RemindMe(by=<RemindBy.MESSAGE: 'by message'>)
    """
    text = collapse(rest).casefold().removeprefix("me").strip()
    by = _REMIND.get(text)
    if by is None:
        raise TagError("Say how to remind you: by message, in thread, or never.", REMIND_USAGE)
    return RemindMe(by)


def parse_pass(rest: str, context: ParseContext) -> PassTurn:
    """``pass``, alone."""
    if rest.strip():
        raise TagError("Write [[pass]] alone: it ends your own turn.", PASS_USAGE)
    return PassTurn()


def parse_away(rest: str, context: ParseContext) -> SetAway:
    """``away <name> until <date>[ HH:MM]`` or ``away <name> off``.

    >>> parse_away("Kara off", ParseContext())
    SetAway(name='Kara', until=None)
    """
    text = collapse(rest)
    off = _OFF.match(text)
    if off is not None:
        return SetAway(
            name_argument(off.group("name"), "character", AWAY_USAGE, context.limits), None
        )
    found = _UNTIL.match(text)
    if found is None:
        raise TagError("Name the character and the day they are back.", AWAY_USAGE)
    moment = parse_moment(found.group("when").removesuffix("UTC").strip())
    if moment is None:
        raise TagError(
            f"'{shorten(found.group('when'))}' is not a date: write it as 2026-12-05, or "
            "2026-12-05 18:00 (UTC).",
            AWAY_USAGE,
        )
    name = name_argument(found.group("name"), "character", AWAY_USAGE, context.limits)
    return SetAway(name, moment)


def parse_catchup(rest: str, context: ParseContext) -> CatchUp:
    """``catchup``, alone."""
    if rest.strip():
        raise TagError("Write [[catchup]] alone.", CATCHUP_USAGE)
    return CatchUp()


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PaceResult:
    """What a pace tag did (kind ``pace``; the template ``verdict_pace`` shows it)."""

    action: str  # deadline, remind, away, catchup
    by: str  # who wrote the tag
    hours: float | None = None  # deadline: the thread's turn time now (None: none)
    own: bool = False  # deadline: the thread's own (False: the campaign's)
    changed: bool = False  # deadline: the tag set it (False: it only asked)
    until: float | None = None  # deadline: when the current turn's time is up
    whose: tuple[str, ...] = ()  # deadline: the current turn's combatants
    remind: str = ""  # remind: how the writer is reminded now
    name: str = ""  # away: the character
    away_until: float | None = None  # away: until when (None: back now)
    catchup: CatchupResult | None = None
    private: bool = False  # catchup: asked by private message (this is the answer)

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps of the setting."""
        facts: dict[str, Any] = {"action": self.action}
        if self.action == "deadline":
            facts["hours"] = self.hours
        elif self.action == "remind":
            facts["remind"] = self.remind
        elif self.action == "away":
            facts.update(name=self.name, until=self.away_until)
        elif self.catchup is not None:
            facts.update(self.catchup.ledger_facts())
        return {"pace": facts}


# -------------------------------------------------------------------------- resolving


def resolve_deadline(request: SetDeadline, context: Context, dice: DiceSource) -> Resolution:
    pace = pace_state.load(context)
    if request.setting != "show":
        require_gm(context, "set a thread's turn deadline")
        own = {"off": 0.0, "default": None}.get(request.setting, request.hours)
        turn = pace.turn
        if turn is not None and turn.expired:  # more time after the time ran out: a fresh clock
            hours = thread_hours(own, pace_state.config(context))
            if hours is not None and turn.since + hours * HOUR > context.post.created:
                turn = replace(turn, expired=False)
        pace = replace(pace, hours=own, turn=turn)
        running = tracker_verbs.load(context)
        timed = thread_hours(own, pace_state.config(context)) is not None
        untimed = (
            running is not None
            and running.current is not None
            and not (turn is not None and turn.matches(running))
        )
        if timed and untimed and running is not None:
            # The turn under way had no clock: its time counts from this tag.
            pace = begin_turn(pace, running, context.post.created, context.post.fullname)
        pace_state.save(context, pace)
    found = tracker_verbs.load(context)
    until: float | None = None
    whose: tuple[str, ...] = ()
    if found is not None and found.current is not None:
        until, _ = pace_state.turn_deadline(context, pace, found, context.post.created)
        whose = found.current.names
    hours = thread_hours(pace.hours, pace_state.config(context))
    return Resolution(
        KIND,
        PaceResult(
            "deadline",
            context.post.author,
            hours=hours,
            own=pace.hours is not None,
            changed=request.setting != "show",
            until=until,
            whose=whose,
        ),
    )


def resolve_remind(request: RemindMe, context: Context, dice: DiceSource) -> Resolution:
    author = context.post.author
    context.table(pace_state.PLAYERS).put(
        author.casefold(), {"name": author, "remind": request.by.value}
    )
    return Resolution(KIND, PaceResult("remind", author, remind=request.by.value))


def _mine(context: Context, names: tuple[str, ...]) -> tuple[str, ...]:
    """Of ``names``, the writer's own: his characters (a GM: the GM's combatants)."""
    author = context.post.author.casefold()
    own = []
    for name in names:
        owner = tracker_verbs.owner_of(context, name)
        if (owner and owner.casefold() == author) or (not owner and context.by_gm):
            own.append(name)
    return tuple(own)


def resolve_pass(request: PassTurn, context: Context, dice: DiceSource) -> Resolution:
    found = tracker_verbs.load(context)
    current = found.current if found is not None else None
    if found is None or current is None:
        raise RuleViolation("There is no turn to pass: this thread's initiative has not begun.")
    mine = _mine(context, current.names)
    if not mine:
        gm = " A GM moves the turn on with [[next]]." if context.by_gm else ""
        raise Forbidden(
            f"It is {' & '.join(current.names)}'s turn, not a character of "
            f"u/{context.post.author}'s: [[pass]] ends only your own turn.{gm}"
        )
    pace = pace_state.load(context)
    now = context.post.created
    if pace.turn is None or not pace.turn.matches(found):
        pace = begin_turn(pace, found, now, context.post.fullname)
    turn = pace.turn
    assert turn is not None
    passed = tuple(dict.fromkeys((*turn.passed, *mine)))
    away = pace_state.away_periods(context)
    left = [n for n in current.names if n not in passed and not is_away(away, n, now)]
    if left:  # others share the turn: it stays theirs
        pace_state.save(context, replace(pace, turn=replace(turn, passed=passed)))
        return Resolution(
            tracker_verbs.KIND,
            TrackerResult("passed", found, mine, by=context.post.author, waiting=tuple(left)),
        )
    step = tracker.advance(found)
    tracker_verbs.save(context, step.tracker)
    result = TrackerResult(
        "passed",
        step.tracker,
        mine,
        expired=step.expired,
        new_round=step.new_round,
        when="passed",
        by=context.post.author,
    )
    return Resolution(tracker_verbs.KIND, result)


def resolve_away(request: SetAway, context: Context, dice: DiceSource) -> Resolution:
    try:
        name = str(context.roster.find(request.name).name)
    except UnknownName:
        raise UnknownName(
            f"'{shorten(request.name)}' is no character on the roster; [[away]] is for a "
            "player's character (a GM passes his own turns with [[next]])."
        ) from None
    if not tracker_verbs.controls(context, name):
        owner = tracker_verbs.owner_of(context, name)
        whose = f"u/{owner}'s character" if owner else "a GM's character"
        raise Forbidden(f"{name} is {whose}; only its player or a GM may say it is away.")
    now = context.post.created
    table = context.table(pace_state.AWAY)
    key = pace_state.character_key_of(name)
    if request.until is None:
        table.delete(key)
        return Resolution(KIND, PaceResult("away", context.post.author, name=name))
    if request.until <= now:
        raise RuleViolation(f"That day has begun already; name a later one: {AWAY_USAGE}.")
    if request.until > now + MAX_AWAY_DAYS * 24 * HOUR:
        raise RuleViolation(
            f"An away period ends within {MAX_AWAY_DAYS} days; set a nearer day (and again later)."
        )
    table.put(key, {"name": name, "until": request.until, "by": context.post.author})
    result = PaceResult("away", context.post.author, name=name, away_until=request.until)
    found = tracker_verbs.load(context)
    current = found.current if found is not None else None
    if found is None or current is None or name not in current.names:
        return Resolution(KIND, result)
    away = pace_state.away_periods(context)
    pace = pace_state.load(context)
    passed = pace.turn.passed if pace.turn is not None and pace.turn.matches(found) else ()
    if any(n not in passed and not is_away(away, n, now) for n in current.names):
        return Resolution(KIND, result)  # others share the turn: it stays theirs
    step = tracker.advance(found)
    tracker_verbs.save(context, step.tracker)
    moved = TrackerResult(
        "passed",
        step.tracker,
        expired=step.expired,
        new_round=step.new_round,
        when="passed",
        skipped=(name,),
        by=context.post.author,
    )
    return Resolution(KIND, result, tracker=moved)


def resolve_catchup(request: CatchUp, context: Context, dice: DiceSource) -> Resolution:
    private = context.post.fullname.startswith("t4_")
    found = catchup(context, campaign_wide=private)
    if not private:
        pace_state.queue_notice(
            context.table(pace_state.NOTICES),
            f"catchup:{context.post.fullname}",
            {
                "channel": "message",
                "to": context.post.author,
                "subject": f"Catch-up: thread {context.post.thread.partition('_')[2]}",
                "thread": context.post.thread,
                "template": "catchup",
                "data": found.to_data(),
                "due": context.post.created,
            },
        )
    return Resolution(
        KIND, PaceResult("catchup", context.post.author, catchup=found, private=private)
    )


def follow(resolution: Resolution, context: Context) -> Resolution:
    """After any tag: if it moved or changed the thread's initiative, the turn's clock."""
    if resolution.kind == tracker_verbs.KIND and isinstance(resolution.result, TrackerResult):
        resolution = replace(resolution, result=pace_state.follow(context, resolution.result))
    if isinstance(resolution.tracker, TrackerResult):
        resolution = replace(resolution, tracker=pace_state.follow(context, resolution.tracker))
    return resolution


def end_turn(context: Context) -> None:
    """``[[end encounter]]``: the thread's turn clock stops (its own deadline stays)."""
    pace = pace_state.load(context)
    if pace.turn is not None:
        pace_state.save(context, replace(pace, turn=None))


# Verbs a player may send the bot by private message (the rest of a player's message is
# refused: secret rolls are the GMs').
PRIVATE_VERBS = frozenset({"catchup", "catch-up", "remind", "away"})

PACE_VERBS = (
    Verb(
        "deadline",
        parse_deadline,
        resolve_deadline,
        form="deadline [48h | 2d | off | default]",
        help="GM: sets the thread's turn time; alone, says when the current turn ends",
        example="deadline 48h",
        usage_text=DEADLINE_USAGE,
    ),
    Verb(
        "pass",
        parse_pass,
        resolve_pass,
        form="pass",
        help="ends your own turn early; the turn passes on once nobody in it is left to act",
        example="pass",
        usage_text=PASS_USAGE,
    ),
    Verb(
        "away",
        parse_away,
        resolve_away,
        form="away <character> until <date> | away <character> off",
        help="passes over a character's turns until a day (the GM's or its player's)",
        example="away Kara until 2026-12-05",
        usage_text=AWAY_USAGE,
    ),
    Verb(
        "remind",
        parse_remind,
        resolve_remind,
        form="remind me by message | in thread | never",
        help="how the bot reminds you that your turn's time is running out",
        example="remind me by message",
        usage_text=REMIND_USAGE,
    ),
    Verb(
        "catchup",
        parse_catchup,
        resolve_catchup,
        form="catchup",
        help="sends you by private message what happened since your last post",
        example="catchup",
        aliases=("catch-up",),
        usage_text=CATCHUP_USAGE,
    ),
)
