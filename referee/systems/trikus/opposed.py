"""Resolving a trikus test from declarations (RULES.md §3.2-3.3, 3.5-3.6): dice, outcomes, changes.

:func:`resolve_test` checks every declaration against the party, plays the duel
(:mod:`.duel`), turns each pair's end into an :class:`~.resources.Outcome`, applies
``on_success=cancel:<name>`` (R-17, R-57), and returns a :class:`TestResult`: every
die in order with who controls after it, the outcome per player, his chance
beforehand (:mod:`.chance`: exact, or estimated with its precision), the Booms, and
the change set. Nothing is mutated.

Change order: each player's line, Morale spent and on-use items (in the order the
players were listed), then (R-50 ``on_strike``) a refresh, then Light spent and the
outcomes' changes, then falls, then (R-50 ``after_test``) a refresh.

A Negotiation the GM refused costs no Catastrophe: the seed punishes losing after
"taki układ" (the deal), and a refused proposal makes none. Under ``"ask"`` a
proposal stops the test: the result is ``pending`` with no changes, and
:func:`resume` continues it from the recorded dice once the GM answers.

After a Boom nobody claimed, :func:`overturn` turns each Success into a Failure and
back, recomputing the change set from the party as it was before the test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.trikus.chance import Cancels, Chance, success_chances
from referee.systems.trikus.changes import Change, ChangeKind, line_change
from referee.systems.trikus.duel import (
    Boom,
    DieKind,
    Duel,
    Entrant,
    Note,
    PairEnd,
    PendingNegotiation,
    Reroll,
    play,
)
from referee.systems.trikus.policy import Commitment, Policy, commit
from referee.systems.trikus.resources import (
    Ledger,
    Outcome,
    catastrophe,
    escape,
    failure_items,
    falls,
    gain_morale,
    lose_morale,
    refresh_if_due,
    use_items,
)
from referee.systems.trikus.rulings import DeadTie, RefreshTiming, Rulings
from referee.systems.trikus.state import Party

Declarations = Sequence[tuple[str, Policy]]


@dataclass(frozen=True)
class ParticipantResult:
    """One player's part in a test."""

    name: str
    outcome: Outcome
    value: int  # his value in his pair at the end (orders successes in combat)
    dice: int  # dice committed before the test (line, pool and one-round dice)
    chance: Chance | None  # P(Success) under his policy, exact or estimated; None if not worked out


@dataclass(frozen=True)
class TestResult:
    """A resolved (or pending) test: the duel, each player's outcome, and the change set."""

    __test__ = False  # not a pytest class, despite the name

    gm_dice: int
    commitments: tuple[Commitment, ...]
    duel: Duel | None  # None when every player opted out
    participants: tuple[ParticipantResult, ...]
    changes: tuple[Change, ...]
    cancelled: tuple[tuple[str, str], ...] = ()  # (gave up a Success, whose Failure)
    pending: PendingNegotiation | None = None

    @property
    def booms(self) -> tuple[Boom, ...]:
        return self.duel.booms if self.duel else ()

    def outcome(self, name: str) -> Outcome:
        return next(p.outcome for p in self.participants if p.name == name)


def commit_all(
    party: Party,
    declarations: Declarations,
    rulings: Rulings,
    fight: bool = False,
    strikes: bool = True,
) -> tuple[Commitment, ...]:
    """Every declaration checked; one RuleViolation gathering every player's problems."""
    names = [party.character(name).name for name, _ in declarations]
    if len({n.lower() for n in names}) != len(names):
        raise RuleViolation("A player appears twice in this test; declare once each.")
    if not names:
        raise RuleViolation("A test needs at least one player.")
    commitments: list[Commitment] = []
    problems: list[str] = []
    for name, (_, policy) in zip(names, declarations, strict=True):
        others = tuple(n for n in names if n != name)
        try:
            commitments.append(
                commit(policy, party.character(name), rulings, others, fight, strikes)
            )
        except RuleViolation as refusal:
            problems.append(refusal.message)
    if problems:
        raise RuleViolation("\n".join(problems))
    return tuple(commitments)


def check_gm_dice(gm_dice: int, limits: Limits) -> None:
    if not 1 <= gm_dice <= limits.max_dice:
        raise RuleViolation(f"The GM's pool (the difficulty) is 1 to {limits.max_dice} dice.")


def check_gm_negotiate(threshold: int | None, rulings: Rulings) -> None:
    if threshold is None:
        return
    if not 1 <= threshold <= 10:
        raise RuleViolation("The GM's Negotiation threshold is a die value from 1 to 10.")
    if rulings.negotiations_per_test == 0:
        raise RuleViolation("This campaign allows no Negotiations (negotiations_per_test = 0).")


def chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    wanted: bool = True,
    cancels: tuple[int | None, ...] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Chance | None, ...]:
    """Each player's chance of Success (:mod:`.chance`), or None for all when unwanted.

    ``cancels`` are ``on_success=cancel`` targets by index (see :func:`_cancel_targets`):
    a Success given up to cancel a Failure is no Success, so the chances of the players
    it concerns come from their joint ends, through the very rule :func:`_cancel` applies.
    """
    if not wanted or not entrants:
        return (None,) * len(entrants)
    if not any(t is not None for t in cancels):
        return success_chances(gm_dice, entrants, rulings, limits=limits)

    def settle(ends: Mapping[int, PairEnd]) -> set[int]:
        outcomes = {i: _outcome(end, rulings) for i, end in ends.items()}
        _apply_cancels(cancels, outcomes)
        return {i for i, outcome in outcomes.items() if outcome is Outcome.SUCCESS}

    return success_chances(gm_dice, entrants, rulings, Cancels(cancels, settle), limits)


def resolve_test(
    party: Party,
    gm_dice: int,
    declarations: Declarations,
    dice: DiceSource,
    rulings: Rulings | None = None,
    answers: tuple[bool, ...] = (),
    limits: Limits = DEFAULT_LIMITS,
    with_odds: bool = True,
    gm_negotiate: int | None = None,
) -> TestResult:
    """Resolve one test: ``declarations`` are (character name, policy) in table order.

    ``gm_negotiate`` is the GM's standing proposal: reroll a player's die of at least
    that value which took control, for players who ``accept``. ``with_odds=False``
    skips the exact chances (left None), for replays and tests.
    """
    rulings = rulings or Rulings()
    check_gm_dice(gm_dice, limits)
    check_gm_negotiate(gm_negotiate, rulings)
    commitments = commit_all(party, declarations, rulings)
    rolling = tuple(c for c in commitments if not c.policy.opt_out)
    entrants = tuple(c.entrant((DieKind.LINE,) * c.line_dice, gm_negotiate) for c in rolling)
    odds = chances(gm_dice, entrants, rulings, with_odds, _cancel_targets(rolling), limits)
    duel = play(gm_dice, entrants, dice, rulings, answers) if entrants else None
    if duel is not None and duel.pending is not None:
        return TestResult(gm_dice, commitments, duel, (), (), pending=duel.pending)
    outcomes = {
        c.name: _outcome(duel.ends[i], rulings) if duel else Outcome.OPTED_OUT
        for i, c in enumerate(rolling)
    }
    cancelled = _cancel(rolling, outcomes)
    return _settled(party, gm_dice, commitments, duel, outcomes, cancelled, odds, rulings)


def resume(
    pending: TestResult,
    party: Party,
    declarations: Declarations,
    agreed: bool,
    dice: DiceSource,
    rulings: Rulings | None = None,
    answers: tuple[bool, ...] = (),
    with_odds: bool = True,
    gm_negotiate: int | None = None,
) -> TestResult:
    """Continue a test that waited on the GM: replay its dice, then draw new ones.

    ``answers`` are the earlier answers of this test, ``agreed`` the new one.
    """
    assert pending.duel is not None and pending.pending is not None
    return resolve_test(
        party,
        pending.gm_dice,
        declarations,
        ReplayThen(pending.duel.draws, dice),
        rulings,
        (*answers, agreed),
        with_odds=with_odds,
        gm_negotiate=gm_negotiate,
    )


class ReplayThen:
    """A dice source that plays back recorded values, then draws from another source."""

    def __init__(self, recorded: Sequence[int], then: DiceSource) -> None:
        self._recorded = list(recorded)
        self._then = then

    def roll(self, sides: int) -> int:
        if self._recorded:
            return self._recorded.pop(0)
        return self._then.roll(sides)


def _outcome(end: PairEnd, rulings: Rulings) -> Outcome:
    if end is PairEnd.WON:
        return Outcome.SUCCESS
    if end is PairEnd.ESCAPED:
        return Outcome.ESCAPED
    if end is PairEnd.DEAD_TIE and rulings.dead_tie is DeadTie.NONE:
        return Outcome.NO_RESULT
    return Outcome.FAILURE


def _cancel(
    rolling: tuple[Commitment, ...], outcomes: dict[str, Outcome]
) -> tuple[tuple[str, str], ...]:
    """Apply on_success=cancel:<name>: both drop to no result (R-17); others stand (R-57)."""
    by_index = {i: outcomes[c.name] for i, c in enumerate(rolling)}
    cancelled = _apply_cancels(_cancel_targets(rolling), by_index)
    for i, c in enumerate(rolling):
        outcomes[c.name] = by_index[i]
    return tuple((rolling[i].name, rolling[t].name) for i, t in cancelled)


def _cancel_targets(rolling: tuple[Commitment, ...]) -> tuple[int | None, ...]:
    """Whose Failure each rolling player would cancel (an index into ``rolling``), if any."""
    lowered = {c.name.lower(): i for i, c in enumerate(rolling)}
    return tuple(lowered.get(c.policy.cancel.lower()) if c.policy.cancel else None for c in rolling)


def _apply_cancels(
    targets: tuple[int | None, ...], outcomes: dict[int, Outcome]
) -> list[tuple[int, int]]:
    """R-17 in declaration order: a Success cancels its target's Failure, both no result.

    ``outcomes`` (by index) is updated; it needs only the players a cancel concerns, so
    the odds run it over their joint ends. Returns the (canceller, target) pairs.
    """
    cancelled: list[tuple[int, int]] = []
    for i, target in enumerate(targets):
        if (
            target is not None
            and outcomes.get(i) is Outcome.SUCCESS
            and outcomes.get(target) is Outcome.FAILURE
        ):
            outcomes[i] = outcomes[target] = Outcome.NO_RESULT
            cancelled.append((i, target))
    return cancelled


def negotiated(duel: Duel | None, name: str) -> bool:
    """Whether ``name`` made a Negotiation the GM agreed to."""
    return duel is not None and any(
        isinstance(e, Reroll) and e.proposer == name and e.agreed for e in duel.events
    )


def lights_spent(duel: Duel | None, name: str) -> int:
    if duel is None:
        return 0
    return sum(
        1 for e in duel.events if isinstance(e, Note) and e.who == name and e.what == "light"
    )


def start_changes(ledger: Ledger, commitments: tuple[Commitment, ...], rulings: Rulings) -> None:
    """Lines struck, Morale committed and on-use items, before any die."""
    for c in commitments:
        if c.line is not None:
            character = ledger.character(c.name)
            ledger.add(line_change(ChangeKind.STRIKE_LINE, character, c.line))
        if c.policy.morale:
            ledger.add(Change(ChangeKind.MORALE_SPENT, c.name, c.policy.morale))
        use_items(ledger, c.name, c.items)
    if rulings.refresh_timing is RefreshTiming.ON_STRIKE:
        refresh_if_due(ledger)


def outcome_changes(
    ledger: Ledger,
    c: Commitment,
    outcome: Outcome,
    duel: Duel | None,
    rulings: Rulings,
    line: int | None = None,
    more_why: tuple[str, ...] = (),
) -> None:
    """What one player's outcome earns or costs (Light spent first).

    ``line`` is the line a Catastrophe takes under R-20 "used" (the test's own line
    by default); ``more_why`` adds Catastrophe triggers of a fight (all dice lost).
    """
    spent = lights_spent(duel, c.name)
    if spent:
        ledger.add(Change(ChangeKind.LIGHT_SPENT, c.name, spent))
    if outcome is Outcome.SUCCESS:
        gain_morale(ledger, c.name)
    elif outcome is Outcome.ESCAPED:
        escape(ledger, c.name)
    elif outcome is Outcome.FAILURE:
        lose_morale(ledger, c.name)
        why = list(more_why)
        if c.policy.empower:
            ledger.add(Change(ChangeKind.DARK_GAINED, c.name, 1, "lost with Empowerment"))
            why.append("lost with Empowerment")
        if negotiated(duel, c.name):
            why.append("lost after proposing a Negotiation")
        if why:
            used = c.line if line is None else line
            catastrophe(ledger, c.name, used, rulings, "; ".join(why))
        failure_items(ledger, c.name, c.items)


def _settled(
    party: Party,
    gm_dice: int,
    commitments: tuple[Commitment, ...],
    duel: Duel | None,
    outcomes: dict[str, Outcome],
    cancelled: tuple[tuple[str, str], ...],
    odds: tuple[Chance | None, ...],
    rulings: Rulings,
) -> TestResult:
    ledger = Ledger(party)
    start_changes(ledger, commitments, rulings)
    rolling = [c for c in commitments if not c.policy.opt_out]
    for c in rolling:
        outcome_changes(ledger, c, outcomes[c.name], duel, rulings)
    falls(ledger)
    if rulings.refresh_timing is RefreshTiming.AFTER_TEST:
        refresh_if_due(ledger)
    results = []
    for c in commitments:
        if c.policy.opt_out:
            results.append(ParticipantResult(c.name, Outcome.OPTED_OUT, 0, 0, None))
            continue
        i = rolling.index(c)
        assert duel is not None
        results.append(
            ParticipantResult(
                c.name, outcomes[c.name], duel.value(i), len(duel.entrants[i].hand), odds[i]
            )
        )
    return TestResult(gm_dice, commitments, duel, tuple(results), tuple(ledger.changes), cancelled)


_FLIP = {Outcome.SUCCESS: Outcome.FAILURE, Outcome.FAILURE: Outcome.SUCCESS}


def overturn(result: TestResult, party_before: Party, rulings: Rulings | None = None) -> TestResult:
    """The GM overturns a test after a Boom no player claimed (R-53).

    Each Success becomes a Failure and each Failure a Success; the change set is
    recomputed from ``party_before`` (the state the test started from), so the store
    replaces the test's changes with these. RuleViolation when the test had no Boom.
    """
    rulings = rulings or Rulings()
    if not result.booms:
        raise RuleViolation("This test had no Boom, so its result stands.")
    if result.pending is not None:
        raise RuleViolation("This test is waiting for a Negotiation answer; it has no result yet.")
    outcomes = {p.name: _FLIP.get(p.outcome, p.outcome) for p in result.participants}
    odds = tuple(p.chance for p in result.participants if p.outcome is not Outcome.OPTED_OUT)
    return _settled(
        party_before,
        result.gm_dice,
        result.commitments,
        result.duel,
        outcomes,
        result.cancelled,
        odds,
        rulings,
    )
