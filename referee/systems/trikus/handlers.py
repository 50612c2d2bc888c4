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

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource, RecordingDice
from referee.base.errors import Forbidden, RuleViolation
from referee.system import Change as VerdictChange
from referee.system import Context, Resolution, require_control, require_gm
from referee.systems.roster import find_character

from .changes import Change, apply
from .combat import Blow, RoundResult, resolve_round, start_fight
from .duel import Boom, Duel, PendingNegotiation
from .opposed import ReplayThen, TestResult, check_gm_negotiate, resolve_test
from .opposed import overturn as overturn_test
from .party import load_party, note_step, put_thread_state, save_party, thread_state
from .policy import Policy, commit, parse_policy
from .pvp import duel_problems, pvp_rulings, resolve_pvp
from .resources import Outcome
from .rulings import Rulings
from .state import Character, Fight, Party
from .tags import Answer, Bare, Declare, Difficulty, Go, Open

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
    chance: Fraction | None
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


# ---------------------------------------------------------------- opening and declaring


def resolve_open(request: Open, context: Context, dice: DiceSource) -> Resolution:
    """The GM opens a test or a fight in this thread, naming who takes part."""
    record = thread_state(context)
    _check_free(record)
    party = load_party(context)
    names: list[str] = []
    for typed in request.names:
        name = find_character(context, typed).name
        character = party.character(name)
        if character.status.value != "active":
            raise RuleViolation(f"{name} is {character.status.value} and cannot take part.")
        if name in names:
            raise RuleViolation(f"{name} is named twice.")
        names.append(name)
    master = False
    difficulty = None
    if request.kind == "fight":
        if party.fight is not None:
            raise RuleViolation("A fight is already going on in this thread.")
        if request.difficulty is not None:
            difficulty = request.difficulty or _rulings(context).combat_difficulty
        master = bool(request.opponent) and request.opponent.casefold() in {
            n.casefold() for n in party.master_npcs
        }
        fight = start_fight(request.gm_dice, request.allies, difficulty, master, context.limits)
        save_party(context, party, replace(party, fight=fight))
    elif request.kind == "test":
        start_fight(request.gm_dice, limits=context.limits)  # the same check of the GM's pool
    if request.gm_negotiate is not None and request.kind == "duel":
        raise RuleViolation("In a duel between players the GM proposes no Negotiation.")
    check_gm_negotiate(request.gm_negotiate, _rulings(context))
    record["open"] = {
        "kind": request.kind,
        "gm_dice": request.gm_dice,
        "participants": names,
        "declarations": {},
        "stakes": request.stakes,
        "round": 1,
        "gm_negotiate": request.gm_negotiate,
    }
    put_thread_state(context, record)
    return Resolution(
        "opened",
        Opened(
            request.kind,
            request.gm_dice,
            tuple(names),
            request.stakes,
            request.allies,
            difficulty,
            request.opponent,
            master,
            request.gm_negotiate,
        ),
    )


def _check_free(record: dict[str, Any]) -> None:
    waiting = record.get("waiting")
    if waiting:
        who = f"{waiting['answerer']}'s player" if waiting.get("answerer") else "the GM"
        raise RuleViolation(
            f"A Negotiation in this thread waits for {who}: [[answer yes]] or [[answer no]]."
        )
    if record.get("open"):
        kind = record["open"]["kind"]
        raise RuleViolation(
            f"A {kind} is already open in this thread; its players declare, or the GM says [[go]]."
        )


def resolve_declare(request: Declare, context: Context, dice: DiceSource) -> Resolution:
    """A player's declaration into the thread's open test or fight round."""
    character: Character = require_control(context, request.actor, "declare")
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    open_ = record.get("open")
    if not open_:
        raise RuleViolation(OPEN_FIRST)
    name = character.name
    if name not in open_["participants"]:
        raise RuleViolation(
            f"{name} is not in this {open_['kind']}; it waits for "
            f"{', '.join(open_['participants'])}."
        )
    party = load_party(context)
    fight = open_["kind"] == "fight"
    if open_["kind"] == "duel":
        second = open_["participants"].index(name) == 1
        problems = duel_problems(request.policy, name, second)
        if problems:
            raise RuleViolation("; ".join(problems) + ".")
    others = tuple(n for n in open_["participants"] if n != name)
    rulings = pvp_rulings(_rulings(context)) if open_["kind"] == "duel" else _rulings(context)
    commit(
        request.policy,
        party.character(name),
        rulings,
        others,
        fight=fight,
        strikes=not fight or open_["round"] == 1,
    )
    open_ = {**open_, "declarations": {**open_["declarations"], name: request.words}}
    missing = tuple(n for n in open_["participants"] if n not in open_["declarations"])
    if missing:
        put_thread_state(context, {**record, "open": open_})
        return Resolution("declared", Declared(name, request.words, open_["kind"], missing))
    return _play_open(context, {**record, "open": open_}, dice)


def resolve_go(request: Go, context: Context, dice: DiceSource) -> Resolution:
    """The GM resolves the open test or round now; missing declarations take the defaults.

    ``go all`` plays a fight round after round to its end (or to a Negotiation the GM
    must answer): each player's standing choices (attack/defend, escape, negotiate,
    lose, accept) carry over; one-round resources (Morale, Empowerment, Light, items)
    are spent in the round they were declared for only.
    """
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    if not record.get("open"):
        raise RuleViolation(OPEN_FIRST)
    if not request.whole:
        return _play_open(context, record, dice)
    if record["open"]["kind"] != "fight":
        raise RuleViolation("[[go all]] plays a fight to its end; a test resolves with [[go]].")
    carried = {n: _standing_words(w) for n, w in record["open"]["declarations"].items()}
    rounds: list[Played] = []
    changes: list[VerdictChange] = []  # each round's, as its Resolution holds them
    for _ in range(MAX_ROUNDS_AT_ONCE):
        resolution = _play_open(context, record, dice)
        rounds.append(resolution.result)
        changes.extend(resolution.changes)
        record = thread_state(context)
        following = record.get("open")
        if record.get("waiting") or not following or following["kind"] != "fight":
            break
        declarations = {n: carried.get(n, "") for n in following["participants"]}
        record = {**record, "open": {**following, "declarations": declarations}}
    more = bool(record.get("open")) and not record.get("waiting")
    return Resolution("fight", Fought(tuple(rounds), more), None, tuple(changes))


MAX_ROUNDS_AT_ONCE = 20  # a fight with Combat Difficulty can drag on; the GM goes on after
_STANDING = ("attack", "defend", "escape", "negotiate", "lose", "accept")


def _standing_words(words: str) -> str:
    """The words of a declaration that stand for the whole fight (not its one-round dice)."""
    return " ".join(w for w in words.split() if re.split("[=:]", w)[0].casefold() in _STANDING)


def resolve_test_tag(request: Declare, context: Context, dice: DiceSource) -> Resolution:
    """One player against the thread's difficulty (or the GM's ``vs N``), in one post."""
    character: Character = require_control(context, request.actor, "test")
    if request.gm_dice is not None and not context.by_gm:
        raise Forbidden(
            "Only a GM may set a test's difficulty (the GM's pool); test against the thread's "
            "difficulty with [[test Kara]], or ask the GM for [[difficulty 2]]."
        )
    record = thread_state(context)
    if record.get("waiting"):
        _check_free(record)
    open_ = record.get("open")
    if open_ and character.name in open_["participants"]:
        raise RuleViolation(
            f"{character.name} is in the {open_['kind']} the GM opened here: "
            f"declare with [[declare {character.name} ...]]."
        )
    gm_dice = request.gm_dice if request.gm_dice is not None else record.get("difficulty")
    if gm_dice is None:
        raise RuleViolation(
            "No difficulty is set in this thread. The GM sets one with [[difficulty 2]], "
            "or opens a test with [[open test 2 Kara]]."
        )
    return _play_test(context, record, dice, int(gm_dice), [(character.name, request.words)], "")


# ----------------------------------------------------------------------- playing


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
    return Resolution("test", played, chance, result.changes)


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
