"""Keeping the pace of a fight: turn deadlines, reminders, expiry, passing and being away.

Pure rules over frozen values; the clock is always passed in (seconds since the epoch).
:mod:`referee.resolve.pace_state` keeps these values in the store, and the live worker
asks :func:`timers` what is due. The rules, for every dice system:

* **A turn's time** is ``turn_hours`` from the moment the turn began (the post that
  moved the initiative to it, or the moment the bot passed the turn on). The thread's
  own ``[[deadline 48h]]`` replaces the campaign's ``[pace] turn_hours``;
  ``[[deadline off]]`` means none in that thread. No deadline, no reminder.
* **Who must act**: the turn's combatants that have a player, less those who passed
  and those away. A turn held only by the GM's combatants has no deadline (the GM
  runs it); nor does one whose players all passed while a GM's combatant shares it.
* **A reminder** is due once ``remind_at`` of the turn's time is used (half, by
  default; 0 never), at most once a turn, and never once the turn's time is up.
* **On expiry** (``on_expiry``): ``skip`` passes the turn, ``gm`` tells the GMs by
  private message to act for the character, ``hold`` does nothing; either way once.
* **Away**: a character away at the moment its turn begins is passed over, as if its
  player had written ``[[pass]]`` (the next turn begins at that same moment).

>>> config = PaceConfig(turn_hours=48)
>>> turn = TurnClock(serial=3, round=2, score=12, since=0.0)
>>> [(t.kind, t.at / 3600) for t in timers("t3_x", None, turn, config)]
[('remind', 24.0), ('expire', 48.0)]
>>> when_words(1764784800.0)
'Wed 3 Dec 18:00 UTC'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from enum import Enum
from typing import Any

from referee.base.names import name_key
from referee.resolve.tracker import Expiry, Tracker, advance

HOUR = 3600.0
MIN_HOURS = 1.0  # the shortest turn a deadline may give
MAX_HOURS = 60 * 24.0  # the longest: sixty days
MAX_AWAY_DAYS = 366  # how far ahead an away period may end
DEFAULT_REMIND_AT = 0.5


class OnExpiry(str, Enum):
    """``[pace] on_expiry``: what happens when a turn's time is up."""

    SKIP = "skip"  # the turn passes, with a line in the thread saying so
    GM = "gm"  # the GMs get a private message to act for the character (the default)
    HOLD = "hold"  # nothing moves; the tracker shows the time ran out


ON_EXPIRY = tuple(choice.value for choice in OnExpiry)


class RemindBy(str, Enum):
    """How a player asked to be reminded: ``[[remind me by message]]`` and the like."""

    THREAD = "in thread"  # a short reply in the thread naming u/player (the default)
    MESSAGE = "by message"  # a private message
    NEVER = "never"


REMIND_BY = tuple(choice.value for choice in RemindBy)


@dataclass(frozen=True)
class PaceConfig:
    """config.toml's ``[pace]``: the campaign's turn time, reminder share and expiry rule."""

    turn_hours: float | None = None  # None (0 in config.toml): no deadline unless a thread sets one
    remind_at: float = DEFAULT_REMIND_AT  # the share of a turn's time before the reminder; 0: none
    on_expiry: OnExpiry = OnExpiry.GM


def read_pace(table: Mapping[str, Any]) -> tuple[PaceConfig, list[str]]:
    """``[pace]`` read into a :class:`PaceConfig`, and each problem with how to fix it.

    >>> read_pace({"turn_hours": 48, "on_expiry": "skip"})
    (PaceConfig(turn_hours=48.0, remind_at=0.5, on_expiry=<OnExpiry.SKIP: 'skip'>), [])
    >>> read_pace({"remind_at": 2})[1][0][:60]
    'pace.remind_at = 2: write a share of the turn from 0 to 0.95'
    """
    problems: list[str] = []
    hours: float | None = None
    raw_hours = table.get("turn_hours", 0)
    if _number(raw_hours) and (raw_hours == 0 or MIN_HOURS <= raw_hours <= MAX_HOURS):
        hours = float(raw_hours) or None
    else:
        problems.append(
            f"pace.turn_hours = {raw_hours!r}: write the hours a player has for a turn, "
            f"from {MIN_HOURS:g} to {MAX_HOURS:g} (48 is two days), or 0 for no deadline "
            "unless a GM sets one in a thread with [[deadline 48h]]."
        )
    remind_at = table.get("remind_at", DEFAULT_REMIND_AT)
    if not (_number(remind_at) and 0 <= remind_at <= 0.95):
        problems.append(
            f"pace.remind_at = {remind_at!r}: write a share of the turn from 0 to 0.95 (0.5 "
            "reminds a player when half the turn is gone; 0 never)."
        )
        remind_at = DEFAULT_REMIND_AT
    expiry = table.get("on_expiry", OnExpiry.GM.value)
    if expiry not in ON_EXPIRY:
        problems.append(
            f"pace.on_expiry = {expiry!r}: write one of {', '.join(map(repr, ON_EXPIRY))} "
            '("skip": the turn passes; "gm": the GMs are told to act for the character; '
            '"hold": nothing moves).'
        )
        expiry = OnExpiry.GM.value
    return PaceConfig(hours, float(remind_at), OnExpiry(expiry)), problems


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


# ------------------------------------------------------------------------- the values


@dataclass(frozen=True)
class TurnClock:
    """The current turn of a thread's initiative, as the pace keeps it."""

    serial: int  # turns begun in the thread so far: this turn's number (a notice's key)
    round: int
    score: int | None
    since: float  # when the turn began
    post: str = ""  # the post whose tag began it ("" when the bot passed the turn on)
    passed: tuple[str, ...] = ()  # combatants of the turn whose players wrote [[pass]]
    reminded: bool = False  # the reminder was sent (or was not needed): never again
    expired: bool = False  # the turn's time ran out and on_expiry was done

    def matches(self, tracker: Tracker | None) -> bool:
        """Whether this is still the tracker's current turn."""
        return (
            tracker is not None
            and tracker.started
            and (tracker.round, tracker.turn) == (self.round, self.score)
        )


@dataclass(frozen=True)
class AwayPeriod:
    """``[[away Kara until 2026-12-05]]``: a character's turns are passed over until then."""

    name: str
    until: float
    by: str = ""  # who set it

    def at(self, moment: float) -> bool:
        """Whether the character is away at ``moment``."""
        return moment < self.until


@dataclass(frozen=True)
class Timer:
    """A reminder or an expiry of one turn, and when it is due."""

    kind: str  # "remind" or "expire"
    thread: str
    serial: int  # the turn's
    at: float


def thread_hours(own: float | None, config: PaceConfig) -> float | None:
    """A thread's turn time: its own (0: none), else the campaign's.

    >>> config = PaceConfig(24)
    >>> thread_hours(None, config), thread_hours(0, config), thread_hours(6, config)
    (24, None, 6)
    """
    if own is not None:
        return own or None
    return config.turn_hours


def deadline(own: float | None, turn: TurnClock, config: PaceConfig) -> float | None:
    """When ``turn``'s time is up (None: no deadline)."""
    hours = thread_hours(own, config)
    return None if hours is None else turn.since + hours * HOUR


def timers(
    thread: str, own: float | None, turn: TurnClock | None, config: PaceConfig
) -> tuple[Timer, ...]:
    """The turn's timers not yet done: its reminder (if any) and its expiry.

    The caller asks only of a turn someone must act in (:func:`acting`).
    """
    if turn is None or turn.expired:
        return ()
    hours = thread_hours(own, config)
    if hours is None:
        return ()
    found = []
    if not turn.reminded and config.remind_at > 0:
        found.append(
            Timer("remind", thread, turn.serial, turn.since + hours * HOUR * config.remind_at)
        )
    found.append(Timer("expire", thread, turn.serial, turn.since + hours * HOUR))
    return tuple(found)


def due(found: tuple[Timer, ...], now: float) -> Timer | None:
    """The timer of a turn to act on at ``now``: its expiry once due (a late reminder is
    never sent after the time ran out), else its reminder once due, else None.

    >>> pair = (Timer("remind", "t", 1, 10.0), Timer("expire", "t", 1, 20.0))
    >>> [getattr(due(pair, now), "kind", None) for now in (5.0, 10.0, 25.0)]
    [None, 'remind', 'expire']
    """
    ready = [timer for timer in found if timer.at <= now]
    if not ready:
        return None
    return next((t for t in ready if t.kind == "expire"), ready[0])


def acting(
    tracker: Tracker,
    turn: TurnClock,
    owner: Callable[[str], str | None],
    away: Mapping[str, AwayPeriod],
    now: float,
) -> tuple[tuple[str, str], ...]:
    """(combatant, player) of the turn who must still act: a player's, not passed nor away.

    Empty when a GM's combatant shares the turn with players who all passed: the GM's.
    """
    current = tracker.current
    if current is None:
        return ()
    found = []
    gm_left = False
    for name in current.names:
        if name in turn.passed or is_away(away, name, now):
            continue
        player = owner(name)
        if player:
            found.append((name, player))
        else:
            gm_left = True
    return tuple(found) if found or not gm_left else ()


def is_away(away: Mapping[str, AwayPeriod], name: str, moment: float) -> bool:
    """Whether the combatant ``name`` is away at ``moment``."""
    period = away.get(name_key(name))
    return period is not None and period.at(moment)


@dataclass(frozen=True)
class Skipped:
    """What passing over away characters did to the order."""

    tracker: Tracker
    names: tuple[str, ...] = ()  # the away combatants passed over, in order
    expired: tuple[Expiry, ...] = ()  # conditions that ended on the way
    new_round: bool = False


def skip_away(tracker: Tracker, away: Mapping[str, AwayPeriod], moment: float) -> Skipped:
    """Move past every turn whose combatants are all away at ``moment``, a round at most.

    >>> from referee.resolve.tracker import add
    >>> order = advance(add(add(Tracker(), "Kara", 17), "Dax", 12)).tracker
    >>> skipped = skip_away(order, {"kara": AwayPeriod("Kara", 100.0)}, 50.0)
    >>> skipped.names, skipped.tracker.current.names
    (('Kara',), ('Dax',))
    """
    names: list[str] = []
    expired: list[Expiry] = []
    new_round = False
    for _ in range(len(tracker.groups)):
        current = tracker.current
        if current is None or not all(is_away(away, n, moment) for n in current.names):
            break
        step = advance(tracker)
        names.extend(current.names)
        expired.extend(step.expired)
        new_round = new_round or step.new_round
        tracker = step.tracker
    return Skipped(tracker, tuple(names), tuple(expired), new_round)


# ------------------------------------------------------------------ reading and writing

_DURATION = re.compile(
    r"(?P<n>[0-9]{1,5}(?:\.[0-9]{1,2})?)\s*(?P<unit>h|hrs?|hours?|d|days?)", re.IGNORECASE
)
_DATE = re.compile(
    r"(?P<y>[0-9]{4})-(?P<m>[0-9]{1,2})-(?P<d>[0-9]{1,2})(?:[ T](?P<H>[0-9]{1,2}):(?P<M>[0-9]{2}))?"
)


def parse_hours(text: str) -> float | None:
    """Hours from ``48h``, ``36 hours``, ``2d`` or ``1.5 days``; None if it reads as none.

    >>> parse_hours("48h"), parse_hours("2 days"), parse_hours("soon")
    (48.0, 48.0, None)
    """
    found = _DURATION.fullmatch(text.strip())
    if found is None:
        return None
    value = float(found.group("n"))
    return value * 24 if found.group("unit").lower().startswith("d") else value


def parse_moment(text: str) -> float | None:
    """Seconds since the epoch from ``2026-12-05`` (its midnight, UTC) or ``2026-12-05 18:00``.

    >>> parse_moment("2026-12-05") == datetime(2026, 12, 5, tzinfo=timezone.utc).timestamp()
    True
    >>> parse_moment("2026-02-30") is None
    True
    """
    found = _DATE.fullmatch(text.strip())
    if found is None:
        return None
    try:
        moment = datetime(
            int(found.group("y")),
            int(found.group("m")),
            int(found.group("d")),
            int(found.group("H") or 0),
            int(found.group("M") or 0),
            tzinfo=timezone.utc,
        )
    except ValueError:
        return None
    return moment.timestamp()


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def when_words(seconds: float) -> str:
    """A moment as a deadline is read: ``Tue 3 Dec 18:00 UTC`` (English whatever the locale)."""
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return (
        f"{_DAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]} "
        f"{moment.hour:02d}:{moment.minute:02d} UTC"
    )


def date_words(seconds: float) -> str:
    """A day (with its year), or a moment on it: ``Sat 5 Dec 2026`` or ``Sat 5 Dec 2026 18:00 UTC``.

    >>> date_words(datetime(2026, 12, 5, tzinfo=timezone.utc).timestamp())
    'Sat 5 Dec 2026'
    """
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    day: date = moment.date()
    text = f"{_DAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"
    if moment.hour or moment.minute:
        text += f" {moment.hour:02d}:{moment.minute:02d} UTC"
    return text


def hours_words(hours: float) -> str:
    """A turn's time in words: ``48 hours``, ``1 hour``, ``1.5 hours``.

    >>> hours_words(48.0), hours_words(1.0), hours_words(1.5)
    ('48 hours', '1 hour', '1.5 hours')
    """
    return f"{hours:g} hour" + ("" if hours == 1 else "s")


def left_words(seconds: float) -> str:
    """Time left, rounded down, in the largest unit that reads well: ``23 hours``, ``2 days``.

    >>> left_words(23.5 * 3600), left_words(49 * 3600), left_words(20 * 60)
    ('23 hours', '2 days', '20 minutes')
    """
    if seconds >= 48 * HOUR:
        count, unit = int(seconds // (24 * HOUR)), "day"
    elif seconds >= HOUR:
        count, unit = int(seconds // HOUR), "hour"
    else:
        count, unit = max(0, int(seconds // 60)), "minute"
    return f"{count} {unit}" + ("" if count == 1 else "s")


# ---------------------------------------------------------------------------- records


@dataclass(frozen=True)
class ThreadPace:
    """A thread's pace: its own turn time and its current turn."""

    hours: float | None = None  # [[deadline]]: None the campaign's, 0 none
    turn: TurnClock | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)  # fields of a later version, kept


def pace_to_record(pace: ThreadPace, thread: str) -> dict[str, Any]:
    """The JSON record the store keeps for a thread's pace."""
    turn = pace.turn
    record: dict[str, Any] = {**pace.extra, "thread": thread, "hours": pace.hours}
    record["turn"] = (
        None
        if turn is None
        else {
            "serial": turn.serial,
            "round": turn.round,
            "score": turn.score,
            "since": turn.since,
            "post": turn.post,
            "passed": list(turn.passed),
            "reminded": turn.reminded,
            "expired": turn.expired,
        }
    )
    return record


def pace_from_record(record: Mapping[str, Any] | None) -> ThreadPace:
    """A stored record back to its :class:`ThreadPace` (an empty one for None)."""
    if not record:
        return ThreadPace()
    raw = record.get("turn")
    turn = None
    if isinstance(raw, Mapping):
        turn = TurnClock(
            int(raw.get("serial", 0)),
            int(raw.get("round", 0)),
            raw.get("score"),
            float(raw.get("since", 0.0)),
            str(raw.get("post", "")),
            tuple(str(name) for name in raw.get("passed", ())),
            bool(raw.get("reminded")),
            bool(raw.get("expired")),
        )
    hours = record.get("hours")
    extra = {k: v for k, v in record.items() if k not in ("thread", "hours", "turn")}
    return ThreadPace(None if hours is None else float(hours), turn, extra)


def begin_turn(pace: ThreadPace, tracker: Tracker, since: float, post: str) -> ThreadPace:
    """``pace`` with a new current turn: the tracker's, begun at ``since`` by ``post``."""
    serial = pace.turn.serial + 1 if pace.turn is not None else 1
    turn = TurnClock(serial, tracker.round, tracker.turn, since, post)
    return replace(pace, turn=turn)
