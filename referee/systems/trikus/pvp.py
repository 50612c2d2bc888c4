"""A duel between two players' characters (RULES.md §3.2, "lub Gracze między sobą").

"The same duel; each strikes his own line and uses his own resources; one ends with a
Success, the other a Failure." One-on-one, the duel is symmetric, so the engine plays it
with the first-named player as the player side and the second as the other side, whose
pool is his line, Morale and Empowerment dice, then his Light tokens: a Light token is
spent only when he must roll with no dice left, which is exactly a die at the end of his
hand that is rolled only if needed (the tokens he did not need are kept).

What differs from a test against the GM:

* a void tie that leaves both sides without dice (R-15) has no GM to go to: no result;
* Negotiation: either player may declare ``negotiate=v`` (reroll the other's die of v or
  more that just took control); the other consents, by a standing ``accept`` in his
  declaration, or else the duel waits for his ``[[answer yes|no]]`` as a test waits for
  the GM's (the GM's ``negotiation_consent`` is the GM's own answer, so it plays no part
  here). R-22 counts each side's proposals. A proposer who loses after an agreed
  reroll suffers the Catastrophe. Either may escape (``escape=k,v``), as a player
  escapes the GM: the second-named, in the GM's place, withdraws when the first holds
  control at v or more and he has 1 to k unrolled dice, his Light tokens left out
  (``Entrant.gm_escape``);
* both strike a line, spend Morale and Light, gain or lose Morale, and take
  Empowerment's Dark token and Catastrophe when they lose with it. Whoever escapes (+1
  Dark, Morale kept) leaves the other in control: his Success.

Dice order: each throw the second player's die first (the GM's place), then the first's.

>>> from referee.base.dice import FixedDice
>>> from referee.systems.trikus.state import Party, new_character
>>> def pc(name, tier, sides):
...     return new_character({"name": name, "player": name, "tier": tier,
...         "light_sides": sides[0], "dark_sides": sides[1]})
>>> party = Party((pc("Ola", "master", (["a"], ["b", "c", "d"])),
...     pc("Zed", "beginner", (["a", "b", "c"], ["d"]))))
>>> from referee.systems.trikus.policy import Commitment, Policy
>>> result = resolve_pvp(party, [("Ola", Policy()), ("Zed", Policy())], FixedDice([5, 7]))
>>> [(p.name, p.outcome.value) for p in result.participants]
[('Ola', 'Success'), ('Zed', 'Failure')]
"""

from __future__ import annotations

from dataclasses import replace

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.trikus.chance import Chance, duel_chances
from referee.systems.trikus.changes import Change, ChangeKind
from referee.systems.trikus.duel import GM, DieKind, Entrant, Note, play
from referee.systems.trikus.opposed import (
    _FLIP,
    Declarations,
    ParticipantResult,
    TestResult,
    _outcome,
    commit_all,
    negotiated,
    outcome_changes,
    start_changes,
)
from referee.systems.trikus.policy import Commitment, Policy
from referee.systems.trikus.resources import Ledger, Outcome, falls, refresh_if_due
from referee.systems.trikus.rulings import Consent, DeadTie, RefreshTiming, Rulings
from referee.systems.trikus.state import Party

_MIRROR = {
    Outcome.SUCCESS: Outcome.FAILURE,
    Outcome.FAILURE: Outcome.SUCCESS,
    Outcome.ESCAPED: Outcome.SUCCESS,
    Outcome.NO_RESULT: Outcome.NO_RESULT,
}


def duel_problems(policy: Policy, name: str, second: bool) -> list[str]:
    """What a declaration may not hold in a duel between players (``second``: the one
    named second, who holds the GM's place)."""
    problems = []
    if policy.opt_out:
        problems.append(f"{name} cannot opt out of a duel between players")
    if policy.cancel is not None or policy.defend is not None:
        problems.append(f"{name}: on_success and defend are for team tests and fights")
    return problems


def pvp_rulings(rulings: Rulings | None) -> Rulings:
    """The campaign's rulings as a duel between players reads them: no GM to take a dead
    tie (R-15), and the players' own consent to a Negotiation, asked unless given."""
    return replace(rulings or Rulings(), dead_tie=DeadTie.NONE, negotiation_consent=Consent.ASK)


def resolve_pvp(
    party: Party,
    declarations: Declarations,
    dice: DiceSource,
    rulings: Rulings | None = None,
    limits: Limits = DEFAULT_LIMITS,
    with_odds: bool = True,
    answers: tuple[bool, ...] = (),
    overturned: bool = False,
) -> TestResult:
    """Two players' duel from their declarations: the dice, both outcomes, the change set.

    The result's ``gm_dice`` is the second player's pool (Light tokens included), and its
    duel names his dice ``"GM"``: the verdict shows his name in that place. ``answers``
    are the players' answers to the Negotiations proposed so far, in order; a proposal
    with no answer yet leaves the result ``pending``. ``overturned``: the GM turns the
    result upside down after an unclaimed Boom (each Success a Failure and back).
    """
    rulings = pvp_rulings(rulings)
    if len(declarations) != 2:
        raise RuleViolation("A duel between players has exactly two sides.")
    first, second = commit_all(party, declarations, rulings)
    problems = duel_problems(first.policy, first.name, False)
    problems += duel_problems(second.policy, second.name, True)
    if problems:
        raise RuleViolation("; ".join(problems) + ".")
    hand = second.line_dice + len(second.extra)
    pool = hand + second.policy.light
    if not 1 <= pool <= limits.max_dice:
        raise RuleViolation(
            f"{second.name} needs dice to duel (a free line, Morale, Light or Empowerment)."
        )
    escape = second.policy.escape
    entrant = replace(
        first.entrant((DieKind.LINE,) * first.line_dice),
        gm_negotiate=second.policy.negotiate,
        gm_asks=not first.policy.accept,
        gm_escape=(*escape, second.policy.light) if escape else None,
    )
    if escape is not None and first.policy.escape is None:  # counted in each other's places
        chance_first, chance_second = _second_escapes(first, second, rulings, limits, with_odds)
    else:  # both may escape: the second's escape is the GM side's, which is estimated
        chance_first, chance_second = _chances(pool, entrant, rulings, limits, with_odds)
    consent = Consent.ALWAYS if second.policy.accept else Consent.ASK
    duel = play(pool, (entrant,), dice, replace(rulings, negotiation_consent=consent), answers)
    if duel.pending is not None:
        return TestResult(pool, (first, second), duel, (), (), pending=duel.pending)
    outcome_first = _outcome(duel.ends[0], rulings)
    outcome_second = _MIRROR[outcome_first]
    if any(isinstance(e, Note) and e.who == GM and e.what == "escaped" for e in duel.events):
        outcome_second = Outcome.ESCAPED
    if overturned:
        outcome_first = _FLIP.get(outcome_first, outcome_first)
        outcome_second = _FLIP.get(outcome_second, outcome_second)
    ledger = Ledger(party)
    start_changes(ledger, (first, second), rulings)
    outcome_changes(ledger, first, outcome_first, duel, rulings)
    lights = max(sum(1 for t in duel.throws for d in t.dice if d.who == GM) - hand, 0)
    if lights:
        ledger.add(Change(ChangeKind.LIGHT_SPENT, second.name, lights))
    proposed = ("lost after proposing a Negotiation",) if negotiated(duel, GM) else ()
    outcome_changes(ledger, second, outcome_second, None, rulings, more_why=proposed)
    falls(ledger)
    if rulings.refresh_timing is RefreshTiming.AFTER_TEST:
        refresh_if_due(ledger)
    participants = (
        ParticipantResult(
            first.name, outcome_first, duel.value(0), len(entrant.hand), chance_first
        ),
        ParticipantResult(
            second.name, outcome_second, duel.final.pairs[0].gm or 0, pool, chance_second
        ),
    )
    return TestResult(pool, (first, second), duel, participants, tuple(ledger.changes))


def _second_escapes(
    first: Commitment, second: Commitment, rulings: Rulings, limits: Limits, wanted: bool
) -> tuple[Chance | None, Chance | None]:
    """Each side's chance of Success when the second-named alone may escape: the duel is
    symmetric, so his are counted with the two in each other's places (his escape a
    player's, which the count follows exactly)."""
    swapped = replace(
        second.entrant((DieKind.LINE,) * second.line_dice),
        gm_negotiate=first.policy.negotiate,
        gm_asks=not second.policy.accept,
    )
    pool = first.line_dice + len(first.extra) + first.policy.light
    chance_second, chance_first = _chances(pool, swapped, rulings, limits, wanted)
    return chance_first, chance_second


def _chances(
    pool: int, entrant: Entrant, rulings: Rulings, limits: Limits, wanted: bool
) -> tuple[Chance | None, Chance | None]:
    """Each side's chance of Success (the first's pair won; lost or escaped from)."""
    return duel_chances(pool, entrant, rulings, limits) if wanted else (None, None)
