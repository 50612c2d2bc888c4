"""The pace in the store: each thread's turn clock, players' reminder choices, away periods.

The rules are :mod:`referee.resolve.pace`'s; this module reads and writes their values
through a tag's :class:`~referee.system.Context` (so a refused tag changes nothing and
``[[void]]`` takes a change back), in these store tables::

    pace          thread -> its own deadline ([[deadline]]) and its current turn's clock
    pace_players  username (casefolded) -> how the player asked to be reminded
    away          character key -> until when its turns are passed over
    notices       key -> a reminder, expiry line, GM message or catch-up waiting to be
                  sent by the live worker (exactly once: pending, sending, then gone)
    last_posts    "thread username" -> the newest post the worker saw by that user there

:func:`follow` runs after every tag that moved a thread's initiative: a new turn starts
its clock at the post's time, away combatants are passed over, and the verdict learns
the turn's deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import orjson

from referee.base.names import name_key
from referee.resolve import tracker_verbs
from referee.resolve.pace import (
    AwayPeriod,
    PaceConfig,
    RemindBy,
    ThreadPace,
    acting,
    begin_turn,
    deadline,
    pace_from_record,
    pace_to_record,
    skip_away,
    thread_hours,
)
from referee.resolve.tracker import Tracker
from referee.resolve.tracker_verbs import TrackerResult
from referee.system import Context

PACE = "pace"
PLAYERS = "pace_players"
AWAY = "away"
NOTICES = "notices"
LAST_POSTS = "last_posts"
THREAD_TITLES = "thread_titles"  # each thread's title, as a listing last said it
TITLE_CHARS = 80  # of a title kept (a thread's title may be 300)
# Tracker actions after which the thread's turn is a new one, even at the same score.
NEW_TURN = frozenset({"next", "started", "restarted"})
PENDING = "pending"  # a notice's state: to be sent (sending, then deleted once sent)


def config(context: Context) -> PaceConfig:
    """The campaign's ``[pace]`` (the defaults when the context carries none)."""
    value = context.pace
    return value if isinstance(value, PaceConfig) else PaceConfig()


def load(context: Context, thread: str | None = None) -> ThreadPace:
    """The pace of ``thread`` (the post's thread by default).

    Every [[next]] reads the pace the last tag wrote: the value is kept beside the JSON
    the store holds for it, and used while the store holds those very bytes (as
    :func:`referee.resolve.tracker_verbs.load` keeps the tracker).
    """
    where = thread or context.post.thread
    encoded = context.table(PACE).dumps(where)
    if encoded is None:
        return ThreadPace()
    kept = context.cache.setdefault(_PARSED, {}).get(where)
    if kept is not None and kept[0] is encoded:
        return kept[1]
    value = pace_from_record(orjson.loads(encoded))
    _keep(context, where, encoded, value)
    return value


def _keep(context: Context, thread: str, encoded: bytes, value: ThreadPace) -> None:
    known = context.cache.setdefault(_PARSED, {})
    if len(known) >= _KEPT:
        known.clear()
    known[thread] = (encoded, value)


_PARSED = "referee.pace"  # the run's cache: thread -> (its record's JSON, its ThreadPace)
_OWNERS = "referee.pace.owners"  # name -> (its character record's JSON, its player)
_KEPT = 256


def save(context: Context, pace: ThreadPace, thread: str | None = None) -> None:
    """Write the pace of ``thread`` (the post's thread by default)."""
    where = thread or context.post.thread
    table = context.table(PACE)
    table.put(where, pace_to_record(pace, where))
    encoded = table.dumps(where)
    if encoded is not None:  # the next tag reads it back as it is
        _keep(context, where, encoded, pace)


def away_periods(context: Context) -> dict[str, AwayPeriod]:
    """Every character's away period, by name key (ended ones too: the caller asks when)."""
    table = context.table(AWAY)
    return periods(table.items()) if len(table) else {}


def periods(items: Any) -> dict[str, AwayPeriod]:
    """Away records (key, record) as :class:`AwayPeriod` values by key."""
    return {
        key: AwayPeriod(
            str(record.get("name", key)), float(record["until"]), str(record.get("by", ""))
        )
        for key, record in items
        if isinstance(record.get("until"), (int, float))
    }


def remind_by(table: Any, user: str) -> RemindBy:
    """How ``user`` asked to be reminded (in the thread unless they said otherwise)."""
    record = table.get(user.casefold()) or {}
    try:
        return RemindBy(record.get("remind", RemindBy.THREAD.value))
    except ValueError:
        return RemindBy.THREAD


def owners(context: Context) -> Callable[[str], str | None]:
    """The player of a combatant (None for a GM's), as the roster says.

    A character's player is kept beside its record's JSON for the run, and used while
    the store holds those very bytes.
    """
    characters = context.table("characters")
    known = context.cache.setdefault(_OWNERS, {})

    def owner(name: str) -> str | None:
        encoded = characters.dumps(name_key(name))
        kept = known.get(name)
        if encoded is not None and kept is not None and kept[0] is encoded:
            return kept[1]
        found = tracker_verbs.owner_of(context, name)
        if encoded is not None:
            if len(known) >= _KEPT:
                known.clear()
            known[name] = (encoded, found)
        return found

    return owner


def turn_deadline(
    context: Context,
    pace: ThreadPace,
    tracker: Tracker,
    now: float,
    away: Mapping[str, AwayPeriod] | None = None,
) -> tuple[float | None, bool]:
    """When the current turn's time is up (None: no deadline), and whether it ran out held."""
    turn = pace.turn
    if turn is None or not turn.matches(tracker):
        return None, False
    until = deadline(pace.hours, turn, config(context))
    if away is None:
        away = away_periods(context)
    if until is None or not acting(tracker, turn, owners(context), away, now):
        return None, False  # no deadline, or nobody's clock (asked only when there is one)
    return until, turn.expired


def follow(context: Context, result: TrackerResult) -> TrackerResult:
    """After a tag moved or changed the thread's initiative: the turn's clock and deadline.

    A turn the initiative reached begins now (at the post's time): away combatants are
    passed over (written through the tag's change set), and the result learns when the
    turn's time is up.
    """
    tracker = result.tracker
    pace = load(context)
    if not tracker.started or tracker.current is None:
        if pace.turn is not None:
            save(context, replace(pace, turn=None))
        return result
    turn = pace.turn
    fresh = (
        turn is None
        or not turn.matches(tracker)
        or result.action in NEW_TURN
        or result.when == "passed"
    )
    now = context.post.created
    away = away_periods(context)
    if fresh:
        if away:
            skipped = skip_away(tracker, away, now)
            if skipped.names:
                tracker_verbs.save(context, skipped.tracker)
                result = replace(
                    result,
                    tracker=skipped.tracker,
                    expired=(*result.expired, *skipped.expired),
                    new_round=result.new_round or skipped.new_round,
                    skipped=(*result.skipped, *skipped.names),
                )
        # A turn is timed only while the thread has a deadline: [[deadline]] starts the
        # clock of the turn under way when it sets one.
        if thread_hours(pace.hours, config(context)) is not None:
            pace = begin_turn(pace, result.tracker, now, context.post.fullname)
            save(context, pace)
        elif pace.turn is not None:
            pace = replace(pace, turn=None)
            save(context, pace)
    until, overdue = turn_deadline(context, pace, result.tracker, now, away)
    return _with_deadline(result, until, overdue)


def _with_deadline(result: TrackerResult, until: float | None, overdue: bool) -> TrackerResult:
    """``result`` naming the turn's deadline."""
    if until is None and not overdue:
        return result
    return replace(result, until=until, overdue=overdue)


def queue_notice(table: Any, key: str, notice: Mapping[str, Any]) -> bool:
    """Put a notice for the live worker to send, unless one of that key is waiting already.

    ``notice``: ``channel`` ("thread": a reply in ``thread``; "message": a private message
    ``to`` a user), ``template`` (a ``notice_*.md.j2``) and its ``data``, and ``due``, when
    it became due (one due before a restore from a backup is looked for before it is sent).
    """
    if key in table:
        return False
    table.put(key, {**notice, "key": key, "state": PENDING, "attempts": 0})
    return True


def last_post_key(thread: str, user: str) -> str:
    """The ``last_posts`` key of ``user`` in ``thread``."""
    return f"{thread} {user.casefold()}"


def character_key_of(name: str) -> str:
    """How the ``away`` table keys a character: as the roster keys it."""
    return name_key(name)
