"""The trikus GM's answers and edits: a waiting Negotiation answered, the difficulty set,
a test overturned after a Boom, a character's numbers adjusted, and the encounter's end.

Split from :mod:`.handlers` (opening, declaring and playing tests and fights), whose
records and playing these share.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.system import Context, Resolution, require_control, require_gm

from .changes import Change, apply
from .combat import RoundResult, resolve_round, start_fight
from .handlers import (
    Adjusted,
    _open_next,
    _play_duel,
    _play_round,
    _play_test,
    _played_round,
    _played_test,
    _rulings,
    _standings,
)
from .opening import _check_free
from .opposed import ReplayThen, TestResult, resolve_test
from .opposed import overturn as overturn_test
from .party import load_party, note_step, put_thread_state, save_party, thread_state
from .policy import Policy, parse_policy
from .pvp import resolve_pvp
from .state import Party
from .tags import Answer, Bare, Difficulty

# ---------------------------------------------------------- the GM's answers and edits


def resolve_answer(request: Answer, context: Context, dice: DiceSource) -> Resolution:
    """The side asked answers the Negotiation a duel in this thread waits on; it goes on.

    The GM answers a player's proposal in a test or fight; in a duel between players
    the player whose die it is (or a GM for him).
    """
    record = thread_state(context)
    waiting = record.get("waiting")
    if not waiting:
        raise RuleViolation("No Negotiation waits for an answer in this thread.")
    if waiting.get("answerer"):
        require_control(context, waiting["answerer"], "answer this Negotiation")
    else:
        require_gm(context, "answer a Negotiation")
    answers = (*waiting["answers"], request.agreed)
    replay = ReplayThen(waiting["draws"], dice)
    declarations = [(n, w) for n, w in waiting["declarations"]]
    rest = {k: v for k, v in record.items() if k != "waiting"}
    if waiting["kind"] == "fight":
        rest.pop("open", None)
        return _play_round(context, rest, replay, waiting["open"], declarations, answers)
    if waiting["kind"] == "duel":
        return _play_duel(context, rest, replay, waiting["open"], declarations, answers)
    return _play_test(
        context,
        rest,
        replay,
        waiting["gm_dice"],
        declarations,
        waiting["stakes"],
        answers=answers,
        gm_negotiate=waiting.get("gm_negotiate"),
    )


def resolve_difficulty(request: Difficulty, context: Context, dice: DiceSource) -> Resolution:
    """The GM sets (or clears) the thread's standing difficulty for one-player tests."""
    record = thread_state(context)
    if request.gm_dice is None:
        record.pop("difficulty", None)
    else:
        start_fight(request.gm_dice, limits=context.limits)  # the same check of the GM's pool
        record["difficulty"] = request.gm_dice
    put_thread_state(context, record)
    return Resolution("difficulty", request)


def resolve_overturn(request: Bare, context: Context, dice: DiceSource) -> Resolution:
    """After a Boom no player claimed, the GM turns the thread's last result upside down (R-53).

    The last test, duel between players or fight round: replayed from its recorded dice
    (refused if it had no Boom, or if the party changed since), then settled again with
    each Success a Failure and back, from the state it started from. A round's new blows
    under Combat Difficulty roll this post's dice.
    """
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    last = record.get("last")
    if not last:
        raise RuleViolation("No test has been resolved in this thread yet.")
    if last.get("overturned"):
        raise RuleViolation("The last test of this thread has already been overturned.")
    kind = last.get("kind", "test")
    before = Party.from_dict(last["party"])
    declarations = [(n, parse_policy(w, context.limits)) for n, w in last["declarations"]]
    party = load_party(context)
    if kind == "round":
        return _overturn_round(context, record, last, before, declarations, party, dice)
    rulings = _rulings(context)
    answers = tuple(last["answers"])

    def replay(overturned: bool) -> TestResult:
        source = ReplayThen(last["draws"], dice)
        if kind == "duel":
            return resolve_pvp(
                before, declarations, source, rulings, context.limits, False, answers, overturned
            )
        result = resolve_test(
            before,
            last["gm_dice"],
            declarations,
            source,
            rulings,
            answers,
            context.limits,
            with_odds=False,
            gm_negotiate=last.get("gm_negotiate"),
        )
        return overturn_test(result, before, rulings) if overturned else result

    replayed = replay(False)
    if not replayed.booms:
        raise RuleViolation("This test had no Boom, so its result stands.")
    _check_unchanged(apply(before, replayed.changes), party)
    turned = replay(True)
    after = replace(apply(before, turned.changes), fight=party.fight)
    save_party(context, party, after)
    record["last"] = {**last, "overturned": True}
    put_thread_state(context, record)
    played = _played_test(turned, dict(last["declarations"]), last["stakes"], after, ())
    if kind == "duel":
        played = replace(played, gm_name=last["declarations"][1][0])
    return Resolution("overturned", played, None, turned.changes)


def _overturn_round(
    context: Context,
    record: dict[str, Any],
    last: dict[str, Any],
    before: Party,
    declarations: list[tuple[str, Policy]],
    party: Party,
    dice: DiceSource,
) -> Resolution:
    """Overturn the thread's last fight round: the fight goes on from the flipped round."""
    rulings = _rulings(context)
    assert before.fight is not None
    draws, answers, open_ = last["draws"], tuple(last["answers"]), last["open"]

    def replay(source: DiceSource, overturned: bool) -> RoundResult:
        return resolve_round(
            before,
            before.fight,  # type: ignore[arg-type]
            declarations,
            source,
            rulings,
            answers,
            False,
            last.get("gm_negotiate"),
            overturned,
        )

    replayed = replay(ReplayThen(draws, dice), False)
    if not replayed.duel.booms:
        raise RuleViolation("This round had no Boom, so its result stands.")
    fight = None if replayed.over else replayed.fight
    _check_unchanged(replace(apply(before, replayed.changes), fight=fight), party)
    turned = replay(ReplayThen(draws[: len(replayed.duel.draws)], dice), True)
    after = replace(apply(before, turned.changes), fight=None if turned.over else turned.fight)
    save_party(context, party, after)
    record["last"] = {**last, "overturned": True}
    current = record.get("open") or {}
    made = current.get("declarations", {}) if current.get("kind") == "fight" else {}
    following = _open_next(record, open_, turned, made)
    put_thread_state(context, record)
    words = dict(last["declarations"])
    played = _played_round(turned, words, open_, after, (), following)
    return Resolution("overturned", played, None, turned.changes)


def _check_unchanged(expected: Party, party: Party) -> None:
    """Refuse an overturn once anything changed the party after the result."""
    if _people(expected) != _people(party):
        raise RuleViolation(
            "The party has changed since the last test (another test or a GM edit), so it "
            "cannot be overturned any more; edit the state with the GM's verbs instead."
        )


def _people(party: Party) -> tuple[Any, ...]:
    return (party.characters, party.refreshes, party.fight)


def adjusted(
    context: Context,
    verb: str,
    changes: tuple[Change, ...],
    party: Party,
    note: str = "",
    marked: Party | None = None,
) -> Resolution:
    """Apply a GM verb's changes (to ``marked``, the party with the verb's own edits, if
    given), store them, and show each character they touched."""
    after = apply(marked or party, changes)
    save_party(context, party, after)
    note_step(context)
    touched = tuple(dict.fromkeys(c.who for c in changes if c.who))
    return Resolution(
        "adjusted", Adjusted(verb, changes, _standings(after, touched), note), None, changes
    )


@dataclass(frozen=True)
class EncounterEnd:
    """What ``[[end encounter]]`` closed in the thread: an open test or fight (its kind and
    who was in it), and a Negotiation left waiting for an answer."""

    kind: str  # "test", "fight", "duel" or "" (nothing was open)
    participants: tuple[str, ...] = ()
    negotiation: bool = False

    def __bool__(self) -> bool:
        return bool(self.kind or self.negotiation)


def end_encounter(context: Context) -> EncounterEnd:
    """The GM ends the encounter: the thread's open test or fight closes without a result
    (a fighter dead or fallen mid-fight no longer holds it open); the standing difficulty
    and the last result (for ``[[overturn]]``) stay."""
    record = thread_state(context)
    opened, waiting = record.get("open"), record.get("waiting")
    party = load_party(context)
    if not opened and not waiting and party.fight is None:
        return EncounterEnd("")
    if party.fight is not None:
        save_party(context, party, replace(party, fight=None))
    kept = {key: value for key, value in record.items() if key not in ("open", "waiting")}
    put_thread_state(context, kept)
    kind = str(opened["kind"]) if opened else "fight" if party.fight is not None else ""
    names = tuple(opened["participants"]) if opened else ()
    return EncounterEnd(kind, names, bool(waiting))
