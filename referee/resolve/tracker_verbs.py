"""The initiative tracker's tags: who may use them, and resolving them.

Every campaign has these, whatever its dice system (the rules of the order are in
:mod:`referee.resolve.tracker`). The forms follow Avrae's ``!init``, so a GM who runs one there
recognises them:

* ``[[init add Goblin 14]]`` (or ``-p 14``, or dice: ``[[init add Goblin 1d20+2]]``);
* ``[[init remove Goblin]]``; ``[[next]]`` (or ``[[init next]]``); ``[[init list]]``;
* ``[[init effect Kara stunned 2]]`` (or ``-dur 2``, ``for 2 rounds``; no duration:
  until removed); ``[[init re Kara stunned]]`` (or ``[[init re Kara]]``: all of them);
* ``[[init end]]``, the same as the core's ``[[end encounter]]``.

A system that rolls initiative (stepped's ``[[init Kara, Trooper 1]]``) returns the
totals in :attr:`referee.system.Resolution.initiative`; :func:`join_rolled` makes them the
thread's order. Each thread's tracker is one record of the store table ``initiative``,
written through the tag's change set, so a refused tag leaves it as it was.

Who may do what: a GM anything. A player may add or remove his own characters (add
only where the system rolls no initiative), put conditions on his own characters and
on the GM's combatants (the verdict names who set them; another player's character is
that player's or a GM's to mark), remove the ones he set and any a player put on his
own character (a GM's stay the GM's), and write ``[[next]]`` as the campaign's ``next_by``
allows: ``"turn"`` (the default) only when one of his characters has the turn,
``"anyone"``, or ``"gm"`` never.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from referee import notation
from referee.base.errors import Forbidden, RuleViolation, TagError, UnknownName
from referee.base.names import name_key
from referee.resolve import tracker
from referee.resolve.tracker import Combatant, Condition, Expiry, NextBy, Tracker
from referee.resolve.tracker_requests import (
    ADD_USAGE,
    EFFECT_USAGE,
    MAX_CONDITION_CHARS,
    MAX_CONDITIONS,
    AddCombatant,
    ClearCondition,
    EndTracker,
    NextTurn,
    RemoveCombatant,
    SetCondition,
    ShowOrder,
    TrackerRequest,
)
from referee.store.entries import character_key
from referee.system import Resolution
from referee.system.arguments import shorten

if TYPE_CHECKING:
    from referee.base.dice import DiceSource
    from referee.system import Context

TABLE = "initiative"  # the store table: thread -> the tracker's record
KIND = "tracker"  # the kind (and template, verdict_tracker) of every tracker verb's verdict

# ------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class TrackerResult:
    """What a tracker tag did, and the thread's tracker after it (the template shows both)."""

    action: str  # added, removed, next, list, condition, cleared, started, joined, restarted,
    # passed ([[pass]], [[away]] or the bot moved the turn on: referee.resolve.pace_verbs)
    tracker: Tracker
    names: tuple[str, ...] = ()  # whom it concerns (added, removed, joined, a condition's)
    score: int | None = None  # where an added combatant was placed
    rolled: Any = None  # the dice that gave that score, if any (a RolledExpression)
    when: str = ""  # an addition's turn: "now", "this round", "next round", "" (not begun)
    conditions: tuple[Condition, ...] = ()  # set or removed
    expired: tuple[Expiry, ...] = ()  # conditions that ended as the turn moved
    new_round: bool = False
    left: tuple[str, ...] = ()  # a new order replaced these combatants
    by: str = ""  # who wrote the tag
    # The turn's deadline and the away combatants passed over (referee.resolve.pace_state).
    until: float | None = None  # when the current turn's time is up; None: no deadline
    overdue: bool = False  # its time ran out and the turn was held
    skipped: tuple[str, ...] = ()  # away combatants whose turns were passed over
    waiting: tuple[str, ...] = ()  # passed: those of the turn still to act (it stays theirs)

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps: the round and whose turn it is after the tag."""
        current = self.tracker.current
        return {
            "initiative": {
                "action": self.action,
                "round": self.tracker.round,
                "turn": list(current.names) if current else [],
            }
        }


# ------------------------------------------------------------------------ permissions


def owner_of(context: Context, name: str) -> str | None:
    """The username owning the character or named thing called exactly ``name``, if any."""
    key = character_key(name)
    tables = ("characters", *getattr(context.system, "named_tables", ()))
    for table in tables:
        record = context.table(table).get(key)
        if record is not None:
            owner = record.get("owner")
            return str(owner) if owner else None
    return None


def controls(context: Context, name: str) -> bool:
    """Whether the post's author may act for ``name``: a GM, or its owner."""
    if context.by_gm:
        return True
    owner = owner_of(context, name)
    return owner is not None and owner.casefold() == context.post.author.casefold()


def _refuse_unless_controls(context: Context, name: str, doing: str) -> None:
    if controls(context, name):
        return
    owner = owner_of(context, name)
    whose = f"u/{owner}'s character" if owner else "a GM's combatant"
    raise Forbidden(f"{name} is {whose}; only its owner or a GM may {doing}.")


def _gm(context: Context, doing: str) -> None:
    if not context.by_gm:
        raise Forbidden(
            f"Only a GM may {doing}. u/{context.post.author} is not one of this campaign's GMs "
            "(the subreddit's moderators and the GMs listed in config.toml)."
        )


# ------------------------------------------------------------------------ the state


_PARSED = "referee.trackers"  # the run's cache: thread -> (its record's JSON, its Tracker)


def load(context: Context) -> Tracker | None:
    """The thread's tracker, or None when the thread has none.

    Every [[next]] reads the tracker the last tag wrote: the value is kept beside the
    JSON the store holds for it, and used while the store still holds those very bytes
    (any other write, an undo included, leaves new bytes there).
    """
    table = context.table(TABLE)
    thread = context.post.thread
    encoded = table.dumps(thread)
    if encoded is None:
        return None
    known = context.cache.get(_PARSED)
    if known is not None:
        kept = known.get(thread)
        if kept is not None and kept[0] is encoded:
            return kept[1]
    value = tracker.from_record(orjson.loads(encoded))
    _keep(context, thread, encoded, value)
    return value


def _keep(context: Context, thread: str, encoded: bytes, value: Tracker) -> None:
    known = context.cache.get(_PARSED)
    if known is None or len(known) >= _KEPT:
        known = context.cache[_PARSED] = {}
    known[thread] = (encoded, value)


_KEPT = 256  # threads whose tracker is kept; a batch plays one thread, a worker a few


def save(context: Context, value: Tracker) -> None:
    """Write the thread's tracker (through the tag's change set), keeping its value."""
    table = context.table(TABLE)
    thread = context.post.thread
    table.put(thread, tracker.to_record(value, thread))
    encoded = table.dumps(thread)
    if encoded is not None:
        _keep(context, thread, encoded, value)


def clear(context: Context) -> bool:
    """Delete the thread's tracker (``[[end encounter]]``); whether there was one."""
    return context.table(TABLE).delete(context.post.thread)


def _running(context: Context) -> Tracker:
    found = load(context)
    if found is None or not found.combatants:
        raise RuleViolation(
            "This thread has no initiative order yet. "
            + (
                "Roll it (see [[help init]]) or a GM adds combatants with [[init add NAME SCORE]]."
                if _system_rolls(context)
                else "A GM adds combatants with [[init add NAME SCORE]]."
            )
        )
    return found


def _combatant(found: Tracker, name: str) -> Combatant:
    combatant = found.find(name)
    if combatant is None:
        listed = ", ".join(c.name for c in found.combatants)
        raise UnknownName(
            f"'{shorten(name)}' is not in this thread's initiative; it holds {listed}."
        )
    return combatant


def _split(found: Tracker, words: tuple[str, ...]) -> tuple[Combatant, str]:
    """The combatant the longest leading words name, and the words left (the condition)."""
    for count in range(len(words), 0, -1):
        combatant = found.find(" ".join(words[:count]))
        if combatant is not None:
            return combatant, " ".join(words[count:])
    return _combatant(found, words[0]), " ".join(words[1:])


def _system_rolls(context: Context) -> bool:
    """Whether the campaign's system has its own ``init`` verb (it rolls initiative)."""
    return any(verb.name == "init" for verb in getattr(context.system, "verbs", ()))


def _placement(found: Tracker, score: int) -> str:
    if not found.started:
        return ""
    if score == found.turn:
        return "now"
    return "this round" if score < (found.turn or 0) else "next round"


def _canonical(context: Context, name: str) -> str:
    """The roster's spelling of ``name`` if it is a character; else the name as written."""
    try:
        return str(context.roster.find(name).name)
    except UnknownName:
        return name


# -------------------------------------------------------------------------- resolving


def resolve(request: TrackerRequest, context: Context, dice: DiceSource) -> Resolution:
    """Resolve one tracker request; a :class:`~referee.system.Resolution` of kind ``tracker``."""
    handler = _HANDLERS[type(request)]
    return Resolution(KIND, handler(request, context, dice))


def _add(request: AddCombatant, context: Context, dice: DiceSource) -> TrackerResult:
    rolls = _system_rolls(context)
    name = _canonical(context, request.name)
    if not context.by_gm:
        if rolls:
            raise Forbidden(
                f"In this campaign initiative is rolled: write [[init {name}]]. Only a GM "
                "places a combatant by hand."
            )
        _refuse_unless_controls(context, name, "join the initiative for it")
    if request.score is None and request.dice is None:
        rolled_form = f" or roll it with [[init {name}]]" if rolls else ""
        raise TagError(
            f"Give {name} a score: [[init add {name} 14]], dice such as "
            f"[[init add {name} 1d20+2]]{rolled_form}.",
            ADD_USAGE,
        )
    found = load(context) or Tracker()
    present = found.find(name)
    if present is not None and name_key(present.name) == name_key(name):
        raise RuleViolation(
            f"{present.name} is already in the initiative at {present.score}. To move them, "
            f"remove them first: [[init remove {present.name}]]."
        )
    if len(found.combatants) >= context.limits.max_names_per_tag:
        raise RuleViolation(
            f"The initiative holds {len(found.combatants)} combatants, the most it may; "
            "remove one first."
        )
    rolled = None
    score = request.score
    if request.dice is not None:
        rolled = notation.roll_expression(request.dice, dice, context.limits)
        score = int(rolled.total)
        if abs(score) > context.limits.max_modifier:
            raise RuleViolation(
                f"That rolled {score:,}; an initiative score may be at most "
                f"±{context.limits.max_modifier:,}."
            )
    assert score is not None
    after = tracker.add(found, name, score)
    save(context, after)
    return TrackerResult(
        "added",
        after,
        (name,),
        score,
        rolled,
        when=_placement(found, score),
        by=context.post.author,
    )


def _remove(request: RemoveCombatant, context: Context, dice: DiceSource) -> TrackerResult:
    found = _running(context)
    combatant = _combatant(found, request.name)
    _refuse_unless_controls(context, combatant.name, "remove it from the initiative")
    after = tracker.remove(found, combatant.name)
    if not after.combatants:
        clear(context)
        return TrackerResult("removed", after, (combatant.name,), by=context.post.author)
    current = after.current
    if found.started and current is None:  # the turn's last combatant left: the turn passes
        step = tracker.advance(after)
        save(context, step.tracker)
        return TrackerResult(
            "removed",
            step.tracker,
            (combatant.name,),
            expired=step.expired,
            new_round=step.new_round,
            when="passed",
            by=context.post.author,
        )
    save(context, after)
    return TrackerResult("removed", after, (combatant.name,), by=context.post.author)


def _may_advance(context: Context, found: Tracker, next_by: NextBy) -> None:
    if context.by_gm or next_by is NextBy.ANYONE:
        return
    rule = f'(this campaign\'s next_by is "{next_by.value}")'
    if next_by is NextBy.GM:
        raise Forbidden(f"Only a GM may move the initiative on with [[next]] {rule}.")
    current = found.current
    if current is None:
        raise Forbidden(f"The fight has not begun: a GM starts it with [[next]] {rule}.")
    if not any(controls(context, name) for name in current.names):
        whose = " & ".join(current.names)
        raise Forbidden(
            f"It is {whose}'s turn, not a character of u/{context.post.author}'s: only a GM "
            f"or the player whose turn it is may write [[next]] {rule}."
        )


def _next(request: NextTurn, context: Context, dice: DiceSource) -> TrackerResult:
    found = _running(context)
    _may_advance(context, found, NextBy(context.next_by))
    step = tracker.advance(found)
    save(context, step.tracker)
    return TrackerResult(
        "next",
        step.tracker,
        expired=step.expired,
        new_round=step.new_round,
        by=context.post.author,
    )


def _list(request: ShowOrder, context: Context, dice: DiceSource) -> TrackerResult:
    return TrackerResult("list", _running(context), by=context.post.author)


def _condition(request: SetCondition, context: Context, dice: DiceSource) -> TrackerResult:
    found = _running(context)
    combatant, name = _split(found, request.words)
    if not name:
        raise TagError(f"Name the condition to put on {combatant.name}.", EFFECT_USAGE)
    if len(name) > MAX_CONDITION_CHARS:
        raise TagError(
            f"'{shorten(name)}' is longer than the {MAX_CONDITION_CHARS} characters a "
            "condition may have.",
            EFFECT_USAGE,
        )
    _may_mark(context, combatant.name)
    if combatant.condition(name) is None and len(combatant.conditions) >= MAX_CONDITIONS:
        raise RuleViolation(
            f"{combatant.name} has {MAX_CONDITIONS} conditions, the most one may; remove one "
            f"first: [[init re {combatant.name} {combatant.conditions[0].name}]]."
        )
    after, made = tracker.set_condition(
        found, combatant.name, name, request.rounds, context.post.author
    )
    save(context, after)
    return TrackerResult(
        "condition", after, (combatant.name,), conditions=(made,), by=context.post.author
    )


def _clear(request: ClearCondition, context: Context, dice: DiceSource) -> TrackerResult:
    found = _running(context)
    combatant, name = _split(found, request.words)
    if name:
        condition = combatant.condition(name)
        if condition is None:
            held = ", ".join(c.name for c in combatant.conditions) or "none"
            raise UnknownName(
                f"{combatant.name} is not '{shorten(name)}'; their conditions: {held}."
            )
        chosen: tuple[Condition, ...] = (condition,)
    else:
        chosen = combatant.conditions
        if not chosen:
            raise RuleViolation(f"{combatant.name} has no conditions to remove.")
    if not context.by_gm:
        owner = owner_of(context, combatant.name)
        others = [c for c in chosen if not _may_remove(context, c, owner)]
        if others and (name or len(others) == len(chosen)):
            raise Forbidden(_removal_refused(context, others[0], combatant.name, owner))
        chosen = tuple(c for c in chosen if c not in others)
    after = tracker.clear_conditions(found, combatant.name, chosen)
    save(context, after)
    return TrackerResult(
        "cleared", after, (combatant.name,), conditions=chosen, by=context.post.author
    )


def _may_mark(context: Context, name: str) -> None:
    """A player marks his own characters and the GM's combatants, not another player's."""
    owner = owner_of(context, name)
    if context.by_gm or owner is None or owner.casefold() == context.post.author.casefold():
        return
    raise Forbidden(
        f"{name} is u/{owner}'s character; only u/{owner} or a GM may put a condition on it."
    )


def _may_remove(context: Context, condition: Condition, owner: str | None) -> bool:
    """Whether a player may remove ``condition``: he set it, or it is on his character
    and no GM set it (a GM's ruling stays the GM's to lift)."""
    author = context.post.author.casefold()
    setter = condition.by.casefold()
    if setter == author:
        return True
    by_gm = not setter or setter in context.gms
    return not by_gm and owner is not None and owner.casefold() == author


def _removal_refused(context: Context, condition: Condition, name: str, owner: str | None) -> str:
    setter = condition.by
    if not setter or setter.casefold() in context.gms:
        return f"A GM put {condition.name} on {name}; only a GM may remove it."
    whose = f", u/{owner}" if owner else ""
    return f"u/{setter} put {condition.name} on {name}; only they{whose} or a GM may remove it."


def _end(request: EndTracker, context: Context, dice: DiceSource) -> Any:
    raise AssertionError("[[init end]] is resolved as the core's [[end encounter]]")


_HANDLERS: dict[type, Any] = {
    AddCombatant: _add,
    RemoveCombatant: _remove,
    NextTurn: _next,
    ShowOrder: _list,
    SetCondition: _condition,
    ClearCondition: _clear,
    EndTracker: _end,
}


def join_rolled(context: Context, totals: tuple[tuple[str, int], ...]) -> TrackerResult:
    """Make a system's initiative roll the thread's order (the verdict's turn note).

    With no order in the thread, the roll starts one: round 1, the highest total's turn.
    With a running order, those not in it join at their totals; a roll naming someone
    already in it starts a new order if a GM rolled it, and is refused to a player (who
    would otherwise roll again for a better place).
    """
    found = load(context)
    names = {name_key(name) for name, _ in totals}
    present = [c for c in (found.combatants if found else ()) if name_key(c.name) in names]
    if found is None or not found.combatants or (present and context.by_gm):
        left = tuple(
            c.name for c in (found.combatants if found else ()) if name_key(c.name) not in names
        )
        fresh = Tracker()
        for name, total in totals:
            fresh = tracker.add(fresh, name, total)
        started = tracker.advance(fresh).tracker
        save(context, started)
        action = "restarted" if found is not None and found.combatants else "started"
        return TrackerResult(
            action, started, tuple(n for n, _ in totals), left=left, by=context.post.author
        )
    if present:
        shown = ", ".join(f"{c.name} (at {c.score})" for c in present)
        raise RuleViolation(
            f"{shown} already {'is' if len(present) == 1 else 'are'} in this thread's "
            "initiative; initiative is rolled once a fight. A GM may roll it again, or "
            "remove them first with [[init remove NAME]]."
        )
    if len(found.combatants) + len(totals) > context.limits.max_names_per_tag:
        raise RuleViolation(
            f"The initiative would hold more than {context.limits.max_names_per_tag} "
            "combatants; a GM removes some first."
        )
    after = found
    for name, total in totals:
        after = tracker.add(after, name, total)
    save(context, after)
    whens = {_placement(found, total) for _, total in totals}
    return TrackerResult(
        "joined",
        after,
        tuple(n for n, _ in totals),
        when=whens.pop() if len(whens) == 1 else "",
        by=context.post.author,
    )
