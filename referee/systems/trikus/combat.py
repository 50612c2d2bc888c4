"""Trikus combat (RULES.md §3.4): rounds of the duel over pools carried between rounds.

:func:`start_fight` opens a fight with the GM's pool; :func:`resolve_round` plays one
round: the first round strikes each player's line and builds his pool (line dice,
one die per ally, helpful items' dice under R-55 ``"fight"``); every round adds its
one-round dice (Morale, Empowerment, R-55 ``"round"`` helpful dice), plays the duel,
then settles the round:

1. players with a Success act in order of their value, highest first (ties in table
   order): ``attack`` (the GM loses a die) or ``defend:<name>`` (a failed player keeps
   his). A defence of a player who did not fail, or whose loss is automatic (he lost
   after proposing a Negotiation), is an attack instead;
2. with Combat Difficulty D (the advanced rule, ``Fight.difficulty``), blows roll: each
   attacker a d10 needing D minus his offensive pips (R-21), then the GM a d10 for
   each failed player in table order, needing D + 2 per defender + his defensive pips;
   these dice are drawn after the duel's, in that order, and give no Morale and no Boom;
3. each landed blow takes one die: R-18 ``"allies_first"`` an ally (the last listed
   dies), then a line die, then a helpful die; a player at 0 dice is out and suffers a
   Catastrophe (R-20 takes the line struck for the fight); the GM's named allies die
   before its other dice;
4. Morale: +1 for a won round, all lost for a lost one (R-19); Empowerment or an agreed
   Negotiation lost: the Catastrophe (once per round, whatever its triggers) and for
   Empowerment a Dark token; R-56 ``"out"`` takes the player out of the fight.

The fight is over when the GM has no dice or no player can fight on; when the GM's pool
empties, R-54 ``"fight"`` gives each player still holding dice one more Morale die.
If a player lost all his dice to a GM-marked master NPC, the Master's sacrifice follows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.trikus.changes import Change, ChangeKind
from referee.systems.trikus.duel import SIDES, DieKind, Duel, PendingNegotiation, play
from referee.systems.trikus.opposed import (
    _FLIP,
    Declarations,
    ParticipantResult,
    _outcome,
    chances,
    check_gm_dice,
    check_gm_negotiate,
    commit_all,
    negotiated,
    outcome_changes,
    start_changes,
)
from referee.systems.trikus.policy import Commitment, Policy
from referee.systems.trikus.resources import (
    Ledger,
    Outcome,
    falls,
    refresh_if_due,
    reveal,
    sacrifice,
)
from referee.systems.trikus.rulings import (
    CombatPenalty,
    FightMorale,
    HelpfulDie,
    LossOrder,
    RefreshTiming,
    Rulings,
)
from referee.systems.trikus.state import Fight, Party, Pool, Status, Trait

DEFENDER_BONUS = 2  # each defender raises the GM's difficulty on his ward (§3.4)


def start_fight(
    gm_dice: int,
    gm_allies: tuple[str, ...] = (),
    difficulty: int | None = None,
    master_npc: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Fight:
    """A fight before its first round; ``difficulty`` turns on Combat Difficulty."""
    check_gm_dice(gm_dice, limits)
    if len(gm_allies) > gm_dice:
        raise RuleViolation("Each GM ally is one of the GM's dice: name at most that many.")
    if difficulty is not None and not 1 <= difficulty <= SIDES + 10:
        raise RuleViolation("Combat Difficulty is a number from 1 to 20.")
    return Fight(gm_dice, (), gm_allies, difficulty, master_npc)


@dataclass(frozen=True)
class Blow:
    """One die taken, or one attempt: an attack on the GM or the GM's blow on a player."""

    by: str  # the attacker's name, or "GM"
    target: str  # "GM", or the failed player's name
    roll: int | None  # the Combat Difficulty die; None without it or when automatic
    needed: int | None
    lands: bool


@dataclass(frozen=True)
class RoundResult:
    """One round: the duel, outcomes, the winners' choices, the blows, and the changes."""

    number: int
    duel: Duel
    participants: tuple[ParticipantResult, ...]
    actions: tuple[tuple[str, str | None], ...]  # (winner, defended player or None: attack)
    blows: tuple[Blow, ...]
    gm_allies_lost: tuple[str, ...]
    changes: tuple[Change, ...]
    fight: Fight  # the pools after the round
    sacrifice: bool = False  # a player lost all his dice to a master NPC
    pending: PendingNegotiation | None = None

    @property
    def over(self) -> bool:
        return self.fight.over


def _hand(pool: Pool) -> tuple[DieKind, ...]:
    return (
        (DieKind.LINE,) * pool.line_dice
        + (DieKind.ALLY,) * len(pool.allies)
        + (DieKind.HELPFUL,) * pool.helpful
    )


def _pools(
    party: Party, fight: Fight, commitments: tuple[Commitment, ...], rulings: Rulings
) -> tuple[Pool, ...]:
    """The pools this round fights with: built in the first round, carried after it."""
    if fight.rounds:
        return fight.pools
    per_fight = rulings.helpful_die is HelpfulDie.FIGHT
    return tuple(
        Pool(
            c.name,
            c.line_dice,
            party.character(c.name).allies,
            sum(i.count(Trait.HELPFUL) for i in c.items) if per_fight else 0,
            c.line,
        )
        for c in commitments
    )


def resolve_round(
    party: Party,
    fight: Fight,
    declarations: Declarations,
    dice: DiceSource,
    rulings: Rulings | None = None,
    answers: tuple[bool, ...] = (),
    with_odds: bool = True,
    gm_negotiate: int | None = None,
    overturned: bool = False,
) -> RoundResult:
    """Play one round of ``fight``; ``declarations`` are (name, policy) in table order.

    ``gm_negotiate`` is the GM's standing Negotiation threshold for this round.
    ``overturned``: the GM turns the round upside down after an unclaimed Boom (R-53):
    the same duel, each Success a Failure and back, and the round settled from there
    (attacks and defences by the new winners, blows, pools, Morale, Catastrophes).
    """
    rulings = rulings or Rulings()
    check_gm_negotiate(gm_negotiate, rulings)
    if fight.over:
        raise RuleViolation("This fight is over; the GM opens a new one.")
    if fight.rounds:
        fight = _without_the_fallen(fight, party)  # dead or fallen since: out of the fight
        if fight.over:
            raise RuleViolation("This fight is over: no player can fight on.")
        fighting = {p.name for p in fight.pools if not p.out and p.dice}
        for name, _ in declarations:
            if party.character(name).name not in fighting:
                raise RuleViolation(f"{name} is not fighting on in this fight.")
        declared = {party.character(n).name for n, _ in declarations}
        missing = [p for p in fight.pools if p.name in fighting and p.name not in declared]
        declarations = [*declarations, *((p.name, Policy()) for p in missing)]
    commitments = commit_all(party, declarations, rulings, fight=True, strikes=not fight.rounds)
    if any(c.policy.opt_out for c in commitments):
        raise RuleViolation("A fight cannot be opted out of once joined; escape=k,v withdraws.")
    pools = _pools(party, fight, commitments, rulings)
    by_name = {p.name: p for p in pools}
    entrants = tuple(c.entrant(_hand(by_name[c.name]), gm_negotiate) for c in commitments)
    odds = chances(fight.gm_dice, entrants, rulings, with_odds)
    duel = play(fight.gm_dice, entrants, dice, rulings, answers)
    number = fight.rounds + 1
    if duel.pending is not None:
        return RoundResult(number, duel, (), (), (), (), (), fight, pending=duel.pending)
    outcomes = {c.name: _outcome(duel.ends[i], rulings) for i, c in enumerate(commitments)}
    if overturned:
        outcomes = {name: _FLIP.get(outcome, outcome) for name, outcome in outcomes.items()}
    values = {c.name: duel.value(i) for i, c in enumerate(commitments)}
    auto = {
        c.name
        for c in commitments
        if outcomes[c.name] is Outcome.FAILURE and negotiated(duel, c.name)
    }
    failed = [c for c in commitments if outcomes[c.name] is Outcome.FAILURE]
    failed_names = {c.name for c in failed}
    winners = sorted(
        (c for c in commitments if outcomes[c.name] is Outcome.SUCCESS),
        key=lambda c: -values[c.name],
    )
    actions: list[tuple[str, str | None]] = []
    for c in winners:
        target = _named(c.policy.defend, failed_names - auto)
        actions.append((c.name, target))

    ledger = Ledger(party)
    start_changes(ledger, commitments, rulings)
    blows = _blows(ledger, fight, commitments, actions, failed, auto, dice, rulings)
    gm_hits = sum(1 for b in blows if b.target == "GM" and b.lands)
    gm_dice = max(fight.gm_dice - gm_hits, 0)
    lost_count = min(gm_hits, fight.gm_dice)
    gm_allies_lost = fight.gm_allies[len(fight.gm_allies) - min(lost_count, len(fight.gm_allies)) :]
    gm_allies = fight.gm_allies[: len(fight.gm_allies) - len(gm_allies_lost)]

    new_pools: dict[str, Pool] = dict(by_name)
    out_of_dice: list[str] = []
    for c in commitments:
        name, outcome = c.name, outcomes[c.name]
        pool = new_pools[name]
        more_why: tuple[str, ...] = ()
        if outcome is Outcome.ESCAPED:
            pool = replace(pool, out="escaped")
        elif outcome is Outcome.FAILURE:
            for _ in range(sum(1 for b in blows if b.target == name and b.lands)):
                pool = _lose_die(ledger, pool, c, rulings)
            if pool.dice == 0:
                more_why = ("lost all dice in the fight",)
                out_of_dice.append(name)
                pool = replace(pool, out="no dice")
            elif (c.policy.empower or name in auto) and rulings.combat_penalty is CombatPenalty.OUT:
                pool = replace(pool, out="penalty")
        outcome_changes(ledger, c, outcome, duel, rulings, pool.line, more_why)
        new_pools[name] = pool

    after = replace(
        fight,
        gm_dice=gm_dice,
        gm_allies=gm_allies,
        pools=tuple(new_pools[p.name] for p in pools),
        rounds=number,
    )
    if gm_dice == 0 and rulings.fight_morale is FightMorale.FIGHT:
        for pool in after.pools:
            if not pool.out and pool.dice:
                ledger.add(Change(ChangeKind.MORALE_GAINED, pool.name, 1, "won the fight"))
    sacrificed = bool(out_of_dice) and fight.master_npc
    if sacrificed:
        sacrifice(ledger, tuple(p.name for p in pools))
    falls(ledger)
    if rulings.refresh_timing is RefreshTiming.AFTER_TEST:
        refresh_if_due(ledger)
    after = _without_the_fallen(after, ledger.party)
    results = tuple(
        ParticipantResult(c.name, outcomes[c.name], values[c.name], len(entrants[i].hand), odds[i])
        for i, c in enumerate(commitments)
    )
    return RoundResult(
        number,
        duel,
        results,
        tuple(actions),
        blows,
        gm_allies_lost,
        tuple(ledger.changes),
        after,
        sacrificed,
    )


def _without_the_fallen(fight: Fight, party: Party) -> Fight:
    """``fight`` with each fighter who died or fell to the Dark Side out of it: a dead
    character cannot test, and a fallen one is now the GM's (he no longer holds a round)."""
    pools = tuple(
        replace(pool, out=party.character(pool.name).status.value)
        if not pool.out and party.character(pool.name).status is not Status.ACTIVE
        else pool
        for pool in fight.pools
    )
    return replace(fight, pools=pools) if pools != fight.pools else fight


def _named(wanted: str | None, among: set[str]) -> str | None:
    if wanted is None:
        return None
    return next((name for name in among if name.lower() == wanted.lower()), None)


def _pips(ledger: Ledger, name: str, items: tuple, trait: Trait) -> int:
    """Pips of ``trait`` on the items ``name`` uses; each acting pip reveals itself."""
    count = 0
    for item in items:
        for index, t in enumerate(item.traits):
            if t is trait:
                count += 1
                reveal(ledger, name, item, index)
    return count


def _blows(
    ledger: Ledger,
    fight: Fight,
    commitments: tuple[Commitment, ...],
    actions: list[tuple[str, str | None]],
    failed: list[Commitment],
    auto: set[str],
    dice: DiceSource,
    rulings: Rulings,
) -> tuple[Blow, ...]:
    """Attacks on the GM, then the GM's blows on failed players, in the documented order."""
    items = {c.name: c.items for c in commitments}
    blows: list[Blow] = []
    difficulty = fight.difficulty
    modifier = rulings.equipment_modifier
    for name, defended in actions:
        if defended is not None:
            continue
        if difficulty is None:
            blows.append(Blow(name, "GM", None, None, True))
            continue
        needed = difficulty - modifier * _pips(ledger, name, items[name], Trait.OFFENSIVE)
        roll = dice.roll(SIDES)
        blows.append(Blow(name, "GM", roll, needed, roll >= needed))
    for c in failed:
        defenders = sum(1 for _, defended in actions if defended == c.name)
        if c.name in auto:
            blows.append(Blow("GM", c.name, None, None, True))
        elif difficulty is None:
            blows.append(Blow("GM", c.name, None, None, defenders == 0))
        else:
            needed = (
                difficulty
                + DEFENDER_BONUS * defenders
                + modifier * _pips(ledger, c.name, items[c.name], Trait.DEFENSIVE)
            )
            roll = dice.roll(SIDES)
            blows.append(Blow("GM", c.name, roll, needed, roll >= needed))
    return tuple(blows)


def _lose_die(ledger: Ledger, pool: Pool, c: Commitment, rulings: Rulings) -> Pool:
    """One die off a pool: by R-18, an ally (who dies), a line die, a helpful die last."""
    if pool.dice == 0:
        return pool
    line_first = rulings.loss_order is LossOrder.OWNER and c.policy.lose == "line"
    if pool.allies and not (line_first and pool.line_dice):
        ally = pool.allies[-1]
        ledger.add(Change(ChangeKind.ALLY_DIED, c.name, 0, ally))
        return replace(pool, allies=pool.allies[:-1])
    if pool.line_dice:
        return replace(pool, line_dice=pool.line_dice - 1)
    return replace(pool, helpful=pool.helpful - 1)


__all__ = ["Blow", "Fraction", "RoundResult", "resolve_round", "start_fight"]
