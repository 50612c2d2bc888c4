"""Resolving ``trikus`` tests and fights by post: declarations in, a played duel out.

A test the GM opens (``[[open test 2 Kara, Zuzia]]``) is the thread's pending state
(:mod:`.party`): each player's ``[[declare ...]]`` is checked against his character at
once (a refusal says what he has) and kept; the declaration that completes the list,
or the GM's ``[[go]]``, resolves it with that tag's dice, the missing declarations
taking §3.6's defaults (a player who cannot test by default opts out). A fight is the
same, round after round: its pools are carried in the campaign record and the next
round opens itself until the fight ends. A one-player ``[[test Kara]]`` against the
thread's standing difficulty resolves in its own post.

Under ``negotiation_consent = "ask"`` a proposal stops the duel: the dice drawn so far
are kept and the GM's ``[[answer yes]]`` replays them and goes on with its own dice.
Every write goes through the context, so a refused tag changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.base.dice import DiceSource, RecordingDice
from referee.base.errors import RuleViolation
from referee.system import Context, Resolution

from .chance import Chance
from .changes import Change, apply
from .combat import Blow, RoundResult, resolve_round
from .duel import Boom, Duel, PendingNegotiation
from .opposed import TestResult, resolve_test
from .party import load_party, put_thread_state, save_party
from .policy import Policy, commit, parse_policy
from .pvp import resolve_pvp
from .resources import Outcome
from .rulings import Rulings
from .state import Character, Fight, Party

OPEN_FIRST = (
    "No test or fight is open in this thread. The GM opens one with "
    '[[open test 2 Kara, Zuzia "stakes"]], or a player tests alone against the '
    "thread's difficulty with [[test Kara]]."
)


@dataclass(frozen=True)
class Standing:
    """One character after a test, for the verdict's last lines."""

    name: str
    free: tuple[int, ...]  # dice of each free line
    struck: int
    lost: int
    morale: int
    light: int
    dark: int
    status: str

    @classmethod
    def of(cls, character: Character) -> Standing:
        return cls(
            character.name,
            tuple(character.lines[i].dice for i in character.free_lines),
            sum(1 for line in character.lines if line.status.value == "struck"),
            sum(1 for line in character.lines if line.status.value == "lost"),
            character.morale,
            character.light,
            character.dark_active,
            character.status.value,
        )


@dataclass(frozen=True)
class Taking:
    """One participant's part: what he declared, how it went, his chance beforehand."""

    name: str
    declared: str  # his words, or "" for the defaults
    outcome: Outcome | None  # None while the test waits on the GM
    chance: Chance | None  # exact or estimated (None: not worked out)
    dice: int  # dice committed before the first throw


@dataclass(frozen=True)
class Played:
    """A test or a fight round as the verdict shows it (``v.result`` of verdict_test)."""

    kind: str  # "test" or "round"
    gm_dice: int
    stakes: str
    number: int  # the round's number (0 for a test)
    duel: Duel | None
    takings: tuple[Taking, ...]
    cancelled: tuple[tuple[str, str], ...]
    changes: tuple[Change, ...]
    standings: tuple[Standing, ...]
    pending: PendingNegotiation | None = None
    actions: tuple[tuple[str, str | None], ...] = ()
    blows: tuple[Blow, ...] = ()
    fight: Fight | None = None  # the pools after the round
    gm_allies_lost: tuple[str, ...] = ()
    fight_over: bool = False
    sat_out: tuple[str, ...] = ()  # undeclared players who could not join by default
    opened_next: tuple[str, ...] = ()  # who declares for the next round
    gm_name: str = "GM"  # who holds the GM's place: the second player in a duel
    answerer: str = "GM"  # who answers the pending Negotiation: the GM, or a player

    @property
    def booms(self) -> tuple[Boom, ...]:
        return self.duel.booms if self.duel else ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.duel.entrants) if self.duel else ()


@dataclass(frozen=True)
class Fought:
    """``go all``: the rounds played in one post, and whether the fight goes on."""

    rounds: tuple[Played, ...]
    more: bool  # stopped after MAX_ROUNDS_AT_ONCE rounds, the fight not over


@dataclass(frozen=True)
class Opened:
    """``open``: what the GM opened, and who is to declare."""

    kind: str
    gm_dice: int
    names: tuple[str, ...]
    stakes: str
    allies: tuple[str, ...] = ()
    difficulty: int | None = None
    opponent: str = ""
    master: bool = False
    gm_negotiate: int | None = None  # players who accept may be asked to reroll a die >= it


@dataclass(frozen=True)
class Declared:
    """A declaration kept; the test still waits for others."""

    name: str
    words: str
    kind: str
    waiting_for: tuple[str, ...]


@dataclass(frozen=True)
class Adjusted:
    """A GM verb over the state: what it did, in the engine's changes."""

    verb: str
    changes: tuple[Change, ...]
    standings: tuple[Standing, ...]
    note: str = ""


def _rulings(context: Context) -> Rulings:
    rulings: Rulings = context.rules
    return rulings


def _declarations(open_: dict[str, Any]) -> list[tuple[str, str]]:
    return [(name, open_["declarations"].get(name, "")) for name in open_["participants"]]


def _standings(party: Party, names: tuple[str, ...]) -> tuple[Standing, ...]:
    return tuple(Standing.of(party.character(n)) for n in names)


# ----------------------------------------------------------------------- playing

MAX_ROUNDS_AT_ONCE = 20  # a fight with Combat Difficulty can drag on; the GM goes on after


def _fill_defaults(
    party: Party, declarations: list[tuple[str, str]], declared: set[str], rulings: Rulings
) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """Undeclared players take the defaults; one who cannot (exhausted) sits out."""
    names = [n for n, _ in declarations]
    kept, out = [], []
    for name, words in declarations:
        if name not in declared:
            others = tuple(n for n in names if n != name)
            try:
                commit(Policy(), party.character(name), rulings, others)
            except RuleViolation:
                out.append(name)
                continue
        kept.append((name, words))
    return kept, tuple(out)


def _play_open(context: Context, record: dict[str, Any], dice: DiceSource) -> Resolution:
    open_ = record["open"]
    rest = {k: v for k, v in record.items() if k != "open"}
    declarations = _declarations(open_)
    if open_["kind"] == "fight":
        return _play_round(context, rest, dice, open_, declarations)
    if open_["kind"] == "duel":
        return _play_duel(context, rest, dice, open_, declarations)
    party = load_party(context)
    kept, out = _fill_defaults(party, declarations, set(open_["declarations"]), _rulings(context))
    kept += [(name, "opt-out") for name in out]
    return _play_test(
        context,
        rest,
        dice,
        open_["gm_dice"],
        kept,
        open_["stakes"],
        out,
        gm_negotiate=open_.get("gm_negotiate"),
    )


def _policies(declarations: list[tuple[str, str]], context: Context) -> list[tuple[str, Policy]]:
    return [(name, parse_policy(words, context.limits)) for name, words in declarations]


def _play_test(
    context: Context,
    record: dict[str, Any],
    dice: DiceSource,
    gm_dice: int,
    declarations: list[tuple[str, str]],
    stakes: str,
    sat_out: tuple[str, ...] = (),
    answers: tuple[bool, ...] = (),
    gm_negotiate: int | None = None,
) -> Resolution:
    rulings = _rulings(context)
    party = load_party(context)
    result = resolve_test(
        party,
        gm_dice,
        _policies(declarations, context),
        dice,
        rulings,
        answers,
        context.limits,
        gm_negotiate=gm_negotiate,
    )
    words = dict(declarations)
    if result.pending is not None:
        assert result.duel is not None
        record["waiting"] = {
            "kind": "test",
            "gm_dice": gm_dice,
            "declarations": declarations,
            "stakes": stakes,
            "draws": list(result.duel.draws),
            "answers": list(answers),
            "gm_negotiate": gm_negotiate,
        }
        put_thread_state(context, record)
        return Resolution("test", _played_test(result, words, stakes, party, sat_out))
    after = apply(party, result.changes)
    save_party(context, party, after)
    record.pop("waiting", None)
    record["last"] = {
        "kind": "test",
        "gm_dice": gm_dice,
        "declarations": declarations,
        "stakes": stakes,
        "draws": list(result.duel.draws) if result.duel else [],
        "answers": list(answers),
        "party": party.to_dict(),
        "overturned": False,
        "gm_negotiate": gm_negotiate,
    }
    put_thread_state(context, record)
    played = _played_test(result, words, stakes, after, sat_out)
    chance = played.takings[0].chance if len(played.takings) == 1 else None
    return Resolution("test", played, chance.exact if chance else None, result.changes)


def _play_duel(
    context: Context,
    record: dict[str, Any],
    dice: DiceSource,
    open_: dict[str, Any],
    declarations: list[tuple[str, str]],
    answers: tuple[bool, ...] = (),
) -> Resolution:
    """Two players against each other (§3.2): both strike a line; one succeeds.

    A Negotiation the other player has not consented to in his declaration stops the
    duel until he answers (:func:`resolve_answer`), as a test waits for the GM.
    """
    party = load_party(context)
    result = resolve_pvp(
        party,
        _policies(declarations, context),
        dice,
        _rulings(context),
        context.limits,
        answers=answers,
    )
    words = dict(declarations)
    second = declarations[1][0]
    if result.pending is not None:
        assert result.duel is not None
        pending = result.pending
        answerer = pending.whose if pending.proposer == "GM" else second
        record["waiting"] = {
            "kind": "duel",
            "open": open_,
            "declarations": declarations,
            "draws": list(result.duel.draws),
            "answers": list(answers),
            "answerer": answerer,
        }
        put_thread_state(context, record)
        played = _played_test(result, words, open_["stakes"], party, ())
        return Resolution("test", replace(played, gm_name=second, answerer=answerer))
    after = apply(party, result.changes)
    save_party(context, party, after)
    record.pop("waiting", None)
    assert result.duel is not None
    record["last"] = {
        "kind": "duel",
        "declarations": declarations,
        "stakes": open_["stakes"],
        "draws": list(result.duel.draws),
        "answers": list(answers),
        "party": party.to_dict(),
        "overturned": False,
    }
    put_thread_state(context, record)
    played = replace(_played_test(result, words, open_["stakes"], after, ()), gm_name=second)
    return Resolution("test", played, None, result.changes)


def _played_test(
    result: TestResult,
    words: dict[str, str],
    stakes: str,
    party: Party,
    sat_out: tuple[str, ...],
) -> Played:
    waiting = result.pending is not None
    takings = tuple(
        Taking(
            c.name,
            words.get(c.name, ""),
            None if waiting else result.outcome(c.name),
            p.chance if p else None,
            len(c.extra) + c.line_dice,
        )
        for c, p in zip(
            result.commitments,
            result.participants or (None,) * len(result.commitments),
            strict=True,
        )
    )
    names = tuple(c.name for c in result.commitments)
    return Played(
        "test",
        result.gm_dice,
        stakes,
        0,
        result.duel,
        takings,
        result.cancelled,
        result.changes,
        _standings(party, names),
        result.pending,
        sat_out=sat_out,
    )


def _play_round(
    context: Context,
    record: dict[str, Any],
    dice: DiceSource,
    open_: dict[str, Any],
    declarations: list[tuple[str, str]],
    answers: tuple[bool, ...] = (),
) -> Resolution:
    rulings = _rulings(context)
    party = load_party(context)
    fight = party.fight
    if fight is None:
        raise RuleViolation("This thread's fight is over; the GM opens a new one.")
    sat_out: tuple[str, ...] = ()
    if fight.rounds == 0:
        declarations, sat_out = _fill_defaults(
            party, declarations, set(open_["declarations"]), rulings
        )
        if not declarations:
            raise RuleViolation("Nobody can fight: every player named is exhausted.")
    else:
        declarations = [(n, w) for n, w in declarations if n in open_["declarations"]]
    policies = _policies(declarations, context)
    gm_negotiate = open_.get("gm_negotiate")
    recorded = RecordingDice(dice)  # the duel's and the blows' dice, for [[overturn]]
    result = resolve_round(party, fight, policies, recorded, rulings, answers, True, gm_negotiate)
    words = dict(declarations)
    if result.pending is not None:
        record["waiting"] = {
            "kind": "fight",
            "open": open_,
            "declarations": declarations,
            "draws": list(result.duel.draws),
            "answers": list(answers),
        }
        put_thread_state(context, record)
        return Resolution("test", _played_round(result, words, open_, party, sat_out, ()))
    after = replace(apply(party, result.changes), fight=None if result.over else result.fight)
    save_party(context, party, after)
    record.pop("waiting", None)
    record["last"] = {
        "kind": "round",
        "open": open_,
        "declarations": declarations,
        "stakes": open_.get("stakes", ""),
        "draws": [d.value for d in recorded.draws],
        "answers": list(answers),
        "party": party.to_dict(),
        "overturned": False,
        "gm_negotiate": gm_negotiate,
    }
    following = _open_next(record, open_, result)
    put_thread_state(context, record)
    played = _played_round(result, words, open_, after, sat_out, following)
    return Resolution("test", played, None, result.changes)


def _open_next(
    record: dict[str, Any],
    open_: dict[str, Any],
    result: RoundResult,
    made: dict[str, str] | None = None,
) -> tuple[str, ...]:
    """Open the fight's next round in ``record``, or close it when the fight is over;
    ``made``: declarations already made into that round, kept for who fights on.
    Returns who declares next."""
    if result.over:
        record.pop("open", None)
        return ()
    following = tuple(p.name for p in result.fight.pools if not p.out and p.dice)
    record["open"] = {
        **open_,
        "participants": list(following),
        "declarations": {n: w for n, w in (made or {}).items() if n in following},
        "round": result.number + 1,
    }
    return following


def _played_round(
    result: RoundResult,
    words: dict[str, str],
    open_: dict[str, Any],
    party: Party,
    sat_out: tuple[str, ...],
    following: tuple[str, ...],
) -> Played:
    waiting = result.pending is not None
    outcomes = {p.name: p for p in result.participants}
    takings = tuple(
        Taking(
            e.name,
            words.get(e.name, ""),
            None if waiting else outcomes[e.name].outcome,
            None if waiting else outcomes[e.name].chance,
            len(e.hand),
        )
        for e in result.duel.entrants
    )
    names = tuple(e.name for e in result.duel.entrants)
    return Played(
        "round",
        result.duel.gm_dice,
        open_.get("stakes", ""),
        result.number,
        result.duel,
        takings,
        (),
        result.changes,
        _standings(party, names),
        result.pending,
        result.actions,
        result.blows,
        result.fight,
        result.gm_allies_lost,
        result.over and not waiting,
        sat_out,
        following,
    )
