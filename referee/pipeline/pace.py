"""The pace's timers: which turn is due a reminder or an expiry, and doing it once.

The live worker asks :meth:`PaceKeeper.next_due` when it next has something to do
(reading the ``pace`` table, a record a thread, and nothing from Reddit) and, once
that moment comes, :meth:`PaceKeeper.fire` does what is due: it changes the store
(the turn passes on, or is marked reminded or expired) and queues the notices to send
in the same batch of writes, so a crash either did both or neither. The worker then
sends each notice exactly once (:mod:`referee.live.timers`). A turn is due, at most:

* a **reminder** once ``remind_at`` of its time is used: one reply in the thread naming
  every player who must act and wants it there, one private message to each who asked
  for one (``[[remind me by message]]``); none for a GM's combatant, and none once the
  time ran out (a late start sends the expiry alone);
* its **expiry** at its deadline, as ``[pace] on_expiry`` says: ``skip`` passes the turn
  on with a line in the thread naming the players now to act (but those who asked
  never to be reminded), ``gm`` sends each GM a
  private message, ``hold`` only marks it;
* a **vacancy** when everyone in it is away (set elsewhere, or by private message) and
  no GM's combatant shares it: the turn passes on, with a line saying so.

A turn the bot passes on begins when it does so (not at the deadline it missed), so a
bot that was down for days passes one turn, not a round of them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from referee.base.posts import Post
from referee.render.notices import NoticeRenderer, notice_mark
from referee.resolve import pace_state, tracker, tracker_verbs
from referee.resolve.catchup import thread_link
from referee.resolve.pace import (
    OnExpiry,
    RemindBy,
    ThreadPace,
    Timer,
    acting,
    begin_turn,
    deadline,
    is_away,
    pace_from_record,
    skip_away,
    timers,
    when_words,
)
from referee.resolve.tracker import Tracker, from_record
from referee.system import Context

log = logging.getLogger(__name__)

SUBJECT_CHARS = 100  # Reddit's longest private message subject


@dataclass(frozen=True)
class Due:
    """A thread's timer, with what the turn looks like now."""

    timer: Timer
    pace: ThreadPace
    tracker: Tracker


class PaceKeeper:
    """The campaign's turn timers over its store, for the live worker.

    ``referee`` is the worker's :class:`~referee.pipeline.flow.Referee` (its session's
    change set and GMs); ``bot`` the bot's username (the author of what it does).
    """

    def __init__(self, referee: Any, bot: str = "referee") -> None:
        self.referee = referee
        self.bot = bot
        campaign = referee.campaign
        self.store = campaign.store
        self.config = campaign.config.pace
        self.renderer = NoticeRenderer(
            campaign.config.templates_dir, campaign.system, campaign.config.name
        )

    # -- reading -----------------------------------------------------------------

    def _context(self, thread: str, now: float) -> Context:
        post = Post(f"pace_{thread.partition('_')[2]}", thread, self.bot, "", now)
        context: Context = self.referee.session.context(post)
        return context

    def due(self, now: float) -> list[Due]:
        """Every running turn's next timer (its expiry when both are past), due or not."""
        found = []
        initiative = self.store.table(tracker_verbs.TABLE)
        away = pace_state.periods(self.store.table(pace_state.AWAY).items())
        for thread, record in self.store.table(pace_state.PACE).items():
            if not thread.startswith("t3_"):
                continue  # a GM's initiative in a private conversation keeps no clock
            pace = pace_from_record(record)
            turn = pace.turn
            if turn is None or turn.expired:
                continue
            raw = initiative.get(thread)
            order = from_record(raw) if raw else None
            if order is None or not turn.matches(order) or order.current is None:
                continue
            names = order.current.names
            if all(n in turn.passed or is_away(away, n, now) for n in names):
                if not all(is_away(away, c.name, now) for c in order.combatants):
                    found.append(Due(Timer("vacant", thread, turn.serial, turn.since), pace, order))
                continue  # everyone away: the turn waits for the first back (or a GM)
            context = self._context(thread, now)
            if not acting(order, turn, pace_state.owners(context), away, now):
                continue  # the GM's turn: no clock
            pair = timers(thread, pace.hours, turn, self.config)
            if pair:
                expiry = pair[-1]
                found.append(Due(expiry if expiry.at <= now else pair[0], pace, order))
        return found

    def next_due(self, now: float) -> float:
        """When the next timer is due (infinity: none)."""
        return min((d.timer.at for d in self.due(now)), default=float("inf"))

    # -- doing -------------------------------------------------------------------

    def fire(self, now: float, gms: frozenset[str]) -> list[str]:
        """Do every timer due at ``now``; the keys of the notices it queued.

        The caller flushes the store: the changes and the notices land together.
        """
        queued: list[str] = []
        for due in self.due(now):
            if due.timer.at > now:
                continue
            changes = self.referee.session.changes
            try:
                queued += self._fire(due, now, gms)
            except Exception:
                changes.rollback()
                raise
            changes.commit()
            log.info(
                "event=pace_%s thread=%s turn=%d due=%s",
                due.timer.kind,
                due.timer.thread,
                due.timer.serial,
                when_words(due.timer.at),
            )
        return queued

    def _fire(self, due: Due, now: float, gms: frozenset[str]) -> list[str]:
        kind = due.timer.kind
        context = self._context(due.timer.thread, now)
        if kind == "remind":
            return self._remind(context, due, now)
        if kind == "vacant":
            return self._pass_on(context, due, now, "away")
        if self.config.on_expiry is OnExpiry.SKIP:
            return self._pass_on(context, due, now, "time")
        turn = due.pace.turn
        assert turn is not None
        pace_state.save(context, replace(due.pace, turn=replace(turn, expired=True)))
        if self.config.on_expiry is OnExpiry.GM:
            return self._tell_gms(context, due, gms)
        return []

    def _notices(self) -> Any:
        return self.referee.session.changes.table(pace_state.NOTICES)

    def _remind(self, context: Context, due: Due, now: float) -> list[str]:
        pace, order, thread = due.pace, due.tracker, due.timer.thread
        turn = pace.turn
        assert turn is not None
        pace_state.save(context, replace(pace, turn=replace(turn, reminded=True)))
        away = pace_state.away_periods(context)
        who = acting(order, turn, pace_state.owners(context), away, now)
        until = deadline(pace.hours, turn, self.config) or due.timer.at
        players = context.table(pace_state.PLAYERS)
        names = [name for name, _ in who]
        base = {
            "names": names,
            "round": order.round,
            "until": until,
            "left": max(0.0, until - now),
            "thread": thread,
            "link": thread_link(thread),
        }
        in_thread = []
        queued = []
        for player in dict.fromkeys(player for _, player in who):
            by = pace_state.remind_by(players, player)
            if by is RemindBy.MESSAGE:
                key = f"remind:{thread}:{turn.serial}:{player.casefold()}"
                subject = f"Your turn: {' & '.join(names)}, until {when_words(until)}"
                self._queue(
                    key,
                    "message",
                    thread,
                    "reminder",
                    base,
                    due=due.timer.at,
                    to=player,
                    subject=subject,
                )
                queued.append(key)
            elif by is RemindBy.THREAD:
                in_thread.append(player)
        if in_thread:
            key = f"remind:{thread}:{turn.serial}"
            data = {**base, "players": in_thread}
            self._queue(key, "thread", thread, "reminder", data, due=due.timer.at, anchor=turn.post)
            queued.append(key)
        return queued

    def _pass_on(self, context: Context, due: Due, now: float, reason: str) -> list[str]:
        """The turn passes on (its time ran out, or everyone in it is away): one line."""
        pace, order, thread = due.pace, due.tracker, due.timer.thread
        turn = pace.turn
        assert turn is not None and order.current is not None
        away = pace_state.away_periods(context)
        names = [n for n in order.current.names if reason == "time" or is_away(away, n, now)]
        step = tracker.advance(order)
        skipped = skip_away(step.tracker, away, now)
        tracker_verbs.save(context, skipped.tracker)
        moved = begin_turn(pace, skipped.tracker, now, "")
        pace_state.save(context, moved)
        until, _ = pace_state.turn_deadline(context, moved, skipped.tracker, now)
        current = skipped.tracker.current
        players = context.table(pace_state.PLAYERS)
        assert moved.turn is not None
        mentions = [
            player
            for _, player in acting(
                skipped.tracker, moved.turn, pace_state.owners(context), away, now
            )
            if pace_state.remind_by(players, player) is not RemindBy.NEVER
        ]
        data = {
            "reason": reason,
            "names": names,
            "at": due.timer.at if reason == "time" else now,
            "skipped": list(skipped.names),
            "ended": [[e.name, e.condition.name] for e in (*step.expired, *skipped.expired)],
            "new_round": step.new_round or skipped.new_round,
            "round": skipped.tracker.round,
            "whose": list(current.names) if current else [],
            "until": until,
            "mentions": list(dict.fromkeys(mentions)),
        }
        key = f"{'expire' if reason == 'time' else 'vacant'}:{thread}:{turn.serial}"
        self._queue(key, "thread", thread, "expiry", data, due=due.timer.at, anchor=turn.post)
        return [key]

    def _tell_gms(self, context: Context, due: Due, gms: frozenset[str]) -> list[str]:
        order, thread, turn = due.tracker, due.timer.thread, due.pace.turn
        assert turn is not None and order.current is not None
        away = pace_state.away_periods(context)
        who = acting(order, turn, pace_state.owners(context), away, due.timer.at)
        names = [name for name, _ in who] or list(order.current.names)
        data = {
            "names": names,
            "players": list(dict.fromkeys(player for _, player in who)),
            "at": due.timer.at,
            "round": order.round,
            "link": thread_link(thread),
        }
        subject = f"Time is up for {' & '.join(names)}"
        queued = []
        for gm in sorted(name for name in gms if name and name != self.bot.casefold()):
            key = f"expire:{thread}:{turn.serial}:{gm}"
            self._queue(
                key,
                "message",
                thread,
                "expiry_gm",
                data,
                due=due.timer.at,
                to=gm,
                subject=subject,
            )
            queued.append(key)
        if not queued:
            log.warning(
                'event=pace_no_gm thread=%s: a turn\'s time ran out and on_expiry is "gm", '
                "but the campaign has no GM to tell; list them in [campaign] gms",
                thread,
            )
        return queued

    def _queue(
        self,
        key: str,
        channel: str,
        thread: str,
        template: str,
        data: dict[str, Any],
        *,
        due: float,
        to: str = "",
        subject: str = "",
        anchor: str = "",
    ) -> None:
        notice = {
            "due": due,
            "channel": channel,
            "thread": thread,
            "template": template,
            "data": data,
            "to": to,
            "subject": _subject(subject),
            "anchor": anchor,
        }
        pace_state.queue_notice(self._notices(), key, notice)

    # -- rendering ---------------------------------------------------------------

    def text(self, key: str, notice: dict[str, Any]) -> str:
        """The notice's Markdown (with its mark)."""
        return self.renderer.render(
            str(notice["template"]), notice.get("data") or {}, key, str(notice["channel"])
        )

    @staticmethod
    def mark(key: str) -> str:
        """What a sent notice's text holds, to find it again."""
        return notice_mark(key)

    def saw(self, post: Post) -> None:
        """Note ``post`` as its author's newest in its thread (for ``[[catchup]]``)."""
        if not post.thread.startswith("t3_"):
            return
        table = self.store.table(pace_state.LAST_POSTS)
        key = pace_state.last_post_key(post.thread, post.author)
        known = table.get(key)
        if known is None or float(known.get("created", 0.0)) < post.created:
            table.put(key, {"post": post.fullname, "created": post.created})
        title = post.title[: pace_state.TITLE_CHARS]
        if title:  # a catch-up names the thread by it; written only when it changes
            titles = self.store.table(pace_state.THREAD_TITLES)
            if (titles.get(post.thread) or {}).get("title") != title:
                titles.put(post.thread, {"title": title})


def _subject(text: str) -> str:
    """A private message's subject within Reddit's limit."""
    return text if len(text) <= SUBJECT_CHARS else text[: SUBJECT_CHARS - 1] + "…"
