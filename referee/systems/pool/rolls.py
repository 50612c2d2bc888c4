"""``pool`` rolls (RULES.md §2): build a pool, roll it, read successes, 1s and botches.

The stages of one roll::

    RollRequest + Actor + Table --plan_roll--> Plan --roll_plan(dice)--> PoolRoll
                                                 \\--odds--> exact chance of each band

:func:`resolve_roll` does both for one action and returns a :class:`RollVerdict`
with the roll and the :class:`~referee.systems.changes.Change` set it asks for (a
Willpower point spent, the free botch used); :func:`resolve_actions` does several
actions declared together (the multiple-actions penalty, R-34). Nothing is mutated.

**Dice order**: a roll draws one d10 per die of its pool, in order; several actions
draw action by action in the order declared. A roll that uses Willpower or has an
empty pool (R-34 ``fail``) draws only its pool's dice, or none.

The seed's first example, difficulty 6:

>>> from referee.base.dice import FixedDice
>>> verdict = resolve_roll(RollRequest(PoolSpec(dice=4), difficulty=6), None, Table(),
...                        FixedDice([3, 8, 7, 10]))
>>> verdict.roll.successes, verdict.roll.outcome.value, verdict.roll.label
(3, 'success', 'complete')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, TagError, UserError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.changes import Change, apply_changes, find_name
from referee.systems.pool import odds
from referee.systems.pool.rulings import EmptyAction, EmptyPool, OverTen, PoolRulings
from referee.systems.pool.sheet import Kind, Sheet, State, TraitLists

FACES = 10
DEFAULT_DIFFICULTY = 6
MIN_DIFFICULTY, MAX_DIFFICULTY = 2, 10
HUMAN_MAXIMUM = 10  # more dice than this is extraordinary
POOL_USAGE = "roll <character> <attribute>[+<ability>] [+N/-N] [diff N] [willpower]"


class Face(str, Enum):
    """What one die shows against the difficulty."""

    SUCCESS = "success"  # at or above the difficulty (a 10 always)
    ONE = "one"  # cancels one success
    BLANK = "blank"


@dataclass(frozen=True)
class Die:
    """One d10 as rolled, marked for the verdict."""

    value: int
    face: Face
    cancelled: bool = False  # a 1 that cancelled a success, or the success it cancelled


class Outcome(str, Enum):
    """The band of a roll, worst first."""

    BOTCH = "botch"  # no success rolled and at least one 1
    FAILURE = "failure"  # no net success (successes cancelled by 1s included)
    SUCCESS = "success"  # one net success or more; the R-31 label says how good


@dataclass(frozen=True)
class PoolSpec:
    """The dice a tag asks for, before the sheet is read."""

    traits: tuple[str, ...] = ()  # as typed: an Attribute [+ an Ability], or Willpower alone
    dice: int | None = None  # a bare pool, instead of traits
    modifier: int = 0  # +N/-N dice


@dataclass(frozen=True)
class RollRequest:
    """One action as a tag declares it."""

    pool: PoolSpec
    roller: str = ""  # the character's name; "" for an anonymous bare pool
    difficulty: int | None = None  # None: the thread's standing difficulty, else 6
    difficulty_modifier: int = 0  # added to the difficulty, then clamped
    willpower: bool = False  # spend a Willpower point for one automatic success
    willpower_allowed: bool = True  # False: the GM forbade Willpower on this roll
    reflexive: bool = False  # a soak or a resistance: not counted among multiple actions
    turn: str | None = None  # the turn the roll belongs to: one Willpower point a turn


@dataclass(frozen=True)
class Actor:
    """A character who rolls: the approved sheet and the state play has left."""

    sheet: Sheet
    state: State


@dataclass(frozen=True)
class Table:
    """What the campaign and the thread fix for every roll."""

    rulings: PoolRulings = field(default_factory=PoolRulings)
    traits: TraitLists = field(default_factory=TraitLists)
    standing_difficulty: int | None = None  # set by the GM per thread
    limits: Limits = DEFAULT_LIMITS


@dataclass(frozen=True)
class Trait:
    """One trait in a pool, with the rating it added."""

    name: str
    rating: int


@dataclass(frozen=True)
class Plan:
    """A pool as built from the sheet, before any die falls: what the verdict explains."""

    roller: str
    traits: tuple[Trait, ...]  # empty for a bare pool
    base: int  # dice from the traits or the bare pool
    modifier: int  # +N/-N dice
    penalty: int  # dice lost to multiple actions
    dice: int  # dice rolled: base + modifier - penalty, never below 0
    difficulty: int  # after modifier and clamp
    difficulty_asked: int  # before the clamp, to show a clamped difficulty
    willpower: bool  # one automatic success bought
    reflexive: bool
    extraordinary: bool  # more than 10 dice (R-29 "flag")
    free_botch: bool  # a botch would be forgiven: the roller's free botch is unspent


@dataclass(frozen=True)
class PoolRoll:
    """A rolled pool: every die, the counts, the outcome and its exact chance."""

    plan: Plan
    dice: tuple[Die, ...]
    successes: int  # dice at or above the difficulty
    ones: int
    tens: int
    net: int  # successes left after the 1s cancel, plus Willpower's; 0 unless a success
    outcome: Outcome
    label: str  # the R-31 label of a success, "" otherwise
    botch_forgiven: bool  # a botch that the free botch turned into a failure
    chance: Fraction  # exact P(this band): botch, failure, or this label
    distribution: Mapping[int, Fraction]  # exact P(net), odds.BOTCH for a botch

    @property
    def botch(self) -> bool:
        """Whether the roll is a botch (a forgiven one is not)."""
        return self.outcome is Outcome.BOTCH


@dataclass(frozen=True)
class RollVerdict:
    """One resolved action and the state it changes."""

    roll: PoolRoll
    changes: tuple[Change, ...] = ()


@dataclass(frozen=True)
class ActionsVerdict:
    """Several actions declared in one turn, resolved in order."""

    rolls: tuple[PoolRoll, ...]  # the actions taken, in the order declared
    changes: tuple[Change, ...] = ()
    taken: tuple[int, ...] = ()  # the declared number (from 1) of each roll
    skipped: tuple[tuple[int, str], ...] = ()  # (number, why) of actions left without dice


class EmptyPoolError(RuleViolation):
    """An action whose pool comes to no dice (R-34)."""


_PLURALS = {Kind.ATTRIBUTE: "Attributes", Kind.ABILITY: "Abilities"}


def _traits_of(spec: PoolSpec, actor: Actor | None, lists: TraitLists) -> tuple[Trait, ...]:
    """The traits a pool names, checked against the seed's rules for combining them."""
    if actor is None:
        raise RuleViolation("Name a character to roll traits, or roll a bare pool: `roll 6`.")
    if len(spec.traits) > 2:
        raise RuleViolation(
            "A pool adds at most two traits: an Attribute and an Ability (dexterity+stealth)."
        )
    names = tuple(find_name(typed, lists.every_name, "trait") for typed in spec.traits)
    kinds = sorted((lists.kind_of(name) for name in names), key=lambda kind: kind.value)
    if Kind.RATING in kinds and len(kinds) > 1:
        raise RuleViolation("Willpower and Humanity are rolled alone, never with another trait.")
    if kinds == [Kind.ABILITY]:
        raise RuleViolation(
            f"An Ability is rolled with an Attribute: write for example dexterity+{names[0]}."
        )
    if kinds in ([Kind.ABILITY, Kind.ABILITY], [Kind.ATTRIBUTE, Kind.ATTRIBUTE]):
        raise RuleViolation(
            f"{names[0]} and {names[1]} are both {_PLURALS[kinds[0]]}: a pool is one Attribute "
            "plus one Ability."
        )
    return tuple(Trait(name, actor.sheet.rating(name)) for name in names)


def _difficulty(request: RollRequest, table: Table) -> tuple[int, int]:
    """(difficulty used, difficulty asked before the clamp); RuleViolation if out of range."""
    asked = request.difficulty
    if asked is None:
        asked = table.standing_difficulty or DEFAULT_DIFFICULTY
    if not MIN_DIFFICULTY <= asked <= MAX_DIFFICULTY:
        raise RuleViolation(f"A difficulty is {MIN_DIFFICULTY} to {MAX_DIFFICULTY}, not {asked}.")
    if abs(request.difficulty_modifier) > MAX_DIFFICULTY:
        raise RuleViolation(
            f"A difficulty modifier of {request.difficulty_modifier:+d} is beyond any "
            "difficulty: write -8 to +8."
        )
    modified = asked + request.difficulty_modifier
    if MIN_DIFFICULTY <= modified <= MAX_DIFFICULTY:
        return modified, modified
    if table.rulings.difficulty_clamp:
        return min(max(modified, MIN_DIFFICULTY), MAX_DIFFICULTY), modified
    raise RuleViolation(
        f"The modified difficulty {modified} is outside {MIN_DIFFICULTY}-{MAX_DIFFICULTY} "
        "(this campaign does not clamp it, ruling difficulty_clamp = false)."
    )


def _check_willpower(request: RollRequest, actor: Actor | None, rulings: PoolRulings) -> None:
    if not request.willpower:
        return
    if not rulings.willpower_success:
        raise RuleViolation(
            "In this campaign Willpower does not buy a success (ruling willpower_success = false)."
        )
    if not request.willpower_allowed:
        raise RuleViolation(
            "The GM has forbidden Willpower here (on this roll, or in this thread)."
        )
    if actor is None:
        raise RuleViolation("A bare pool has no Willpower to spend: roll for a character.")
    state, sheet = actor.state, actor.sheet
    if state.willpower_points < 1:
        raise RuleViolation(
            f"{sheet.name} has no Willpower point to spend (0 of {sheet.willpower}); "
            "the GM gives points back."
        )
    if request.turn is not None and state.willpower_turn == request.turn:
        raise RuleViolation(
            f"{sheet.name} has already spent a Willpower point this turn (one a turn); "
            f"{state.willpower_points} left."
        )


def plan_roll(request: RollRequest, actor: Actor | None, table: Table, penalty: int = 0) -> Plan:
    """The pool ``request`` asks for, from ``actor``'s sheet; UserError saying what to fix.

    ``penalty`` is the dice this action loses to multiple actions (R-34).
    """
    spec, rulings, limits = request.pool, table.rulings, table.limits
    if (spec.dice is None) == (not spec.traits):
        raise TagError("Roll traits or a number of dice, not both or neither.", POOL_USAGE)
    if abs(spec.modifier) > limits.max_dice:
        raise RuleViolation(f"A pool takes at most {limits.max_dice} dice; {spec.modifier:+d}?")
    if spec.dice is not None:
        if not 0 <= spec.dice <= limits.max_dice:
            raise RuleViolation(f"A pool has 0 to {limits.max_dice} dice, not {spec.dice}.")
        traits: tuple[Trait, ...] = ()
        base = spec.dice
    else:
        traits = _traits_of(spec, actor, table.traits)
        base = sum(trait.rating for trait in traits)
    difficulty, asked = _difficulty(request, table)
    _check_willpower(request, actor, rulings)
    dice = base + spec.modifier - penalty
    if dice > limits.max_dice:
        raise RuleViolation(f"A pool has at most {limits.max_dice} dice, not {dice}.")
    if dice > HUMAN_MAXIMUM and rulings.pool_over_10 is OverTen.REFUSE:
        raise RuleViolation(
            f"A pool of {dice} dice is beyond the human maximum of {HUMAN_MAXIMUM} "
            "(ruling pool_over_10 = refuse)."
        )
    if dice <= 0 and (penalty or rulings.empty_pool is EmptyPool.REFUSE):
        raise EmptyPoolError(
            f"The pool comes to {dice} dice ({_pool_sum(traits, base, spec.modifier, penalty)}): "
            "an action needs at least one die."
        )
    roller = actor.sheet.name if actor else request.roller
    free_botch = bool(actor and rulings.free_botch and not actor.state.free_botch_used)
    return Plan(
        roller=roller,
        traits=traits,
        base=base,
        modifier=spec.modifier,
        penalty=penalty,
        dice=max(dice, 0),
        difficulty=difficulty,
        difficulty_asked=asked,
        willpower=request.willpower,
        reflexive=request.reflexive,
        extraordinary=dice > HUMAN_MAXIMUM,
        free_botch=free_botch,
    )


def _pool_sum(traits: tuple[Trait, ...], base: int, modifier: int, penalty: int) -> str:
    """'dexterity 3 + dodge 3 - 5 for multiple actions', for a refusal."""
    parts = [f"{t.name} {t.rating}" for t in traits] or [f"{base} dice"]
    text = " + ".join(parts)
    if modifier:
        text += f" {'+' if modifier > 0 else '-'} {abs(modifier)}"
    if penalty:
        text += f" - {penalty} for multiple actions"
    return text


def _mark(values: Sequence[int], difficulty: int) -> tuple[Die, ...]:
    """Each value as a Die; each 1 cancels the lowest success still standing."""
    faces = [
        Face.SUCCESS if v >= difficulty else Face.ONE if v == 1 else Face.BLANK for v in values
    ]
    successes = sorted((v, i) for i, v in enumerate(values) if faces[i] is Face.SUCCESS)
    ones = [i for i, face in enumerate(faces) if face is Face.ONE]
    pairs = min(len(successes), len(ones))
    cancelled = {i for _, i in successes[:pairs]} | set(ones[:pairs])
    return tuple(Die(v, faces[i], i in cancelled) for i, v in enumerate(values))


def roll_plan(plan: Plan, rulings: PoolRulings, dice: DiceSource) -> PoolRoll:
    """Roll ``plan``'s pool: one d10 per die, in order, and read the outcome."""
    values = [dice.roll(FACES) for _ in range(plan.dice)]
    marked = _mark(values, plan.difficulty)
    successes = sum(d.face is Face.SUCCESS for d in marked)
    ones = sum(d.face is Face.ONE for d in marked)
    net = max(successes - ones, 0) + plan.willpower
    botch = successes == 0 and ones > 0 and not plan.willpower
    forgiven = botch and plan.free_botch
    if net > 0:
        outcome = Outcome.SUCCESS
    elif botch and not forgiven:
        outcome = Outcome.BOTCH
    else:
        outcome = Outcome.FAILURE
    distribution = odds.net_distribution(
        plan.dice, plan.difficulty, plan.willpower, plan.free_botch
    )
    key = odds.BOTCH if outcome is Outcome.BOTCH else net
    return PoolRoll(
        plan=plan,
        dice=marked,
        successes=successes,
        ones=ones,
        tens=values.count(FACES),
        net=net,
        outcome=outcome,
        label=rulings.label_for(net),
        botch_forgiven=forgiven,
        chance=odds.chance_of_band(
            plan.dice, plan.difficulty, plan.willpower, plan.free_botch, key, len(rulings.labels)
        ),
        distribution=distribution,
    )


def roll_changes(roll: PoolRoll, request: RollRequest, actor: Actor | None) -> tuple[Change, ...]:
    """What ``roll`` changes on its roller: a Willpower point, the free botch."""
    if actor is None:
        return ()
    name, state = actor.sheet.name, actor.state
    changes: list[Change] = []
    if roll.plan.willpower:
        points = state.willpower_points
        changes.append(Change("character", name, "willpower_points", points, points - 1))
        if request.turn is not None:
            changes.append(
                Change("character", name, "willpower_turn", state.willpower_turn, request.turn)
            )
    if roll.botch_forgiven:
        changes.append(Change("character", name, "free_botch_used", False, True))
    return tuple(changes)


def resolve_roll(
    request: RollRequest, actor: Actor | None, table: Table, dice: DiceSource
) -> RollVerdict:
    """Plan and roll one action; UserError (nothing rolled) if the rules refuse it."""
    plan = plan_roll(request, actor, table)
    roll = roll_plan(plan, table.rulings, dice)
    return RollVerdict(roll, roll_changes(roll, request, actor))


def action_penalties(requests: Sequence[RollRequest]) -> list[int]:
    """Dice each action loses when declared together (R-34); reflexive actions lose none.

    N actions: the first loses N, each further one a die more; one action loses nothing.

    >>> action_penalties([RollRequest(PoolSpec(dice=7))] * 3)
    [3, 4, 5]
    >>> soak = RollRequest(PoolSpec(dice=2), reflexive=True)
    >>> action_penalties([RollRequest(PoolSpec(dice=7)), soak])
    [0, 0]
    """
    counted = sum(not r.reflexive for r in requests)
    penalties: list[int] = []
    k = 0
    for request in requests:
        if request.reflexive or counted < 2:
            penalties.append(0)
        else:
            penalties.append(counted + k)
            k += 1
    return penalties


def resolve_actions(
    requests: Sequence[RollRequest], actor: Actor | None, table: Table, dice: DiceSource
) -> ActionsVerdict:
    """Several actions of one roller in one turn; all are refused if any cannot be taken.

    Every pool is planned before a die falls, so a declaration with a problem (two
    Willpower points, an unknown trait, an action left without dice) is refused whole,
    with every problem, and the player can declare again. Under R-34's
    ``empty_action = "skip"`` an action left without dice is instead reported as not
    taken, and the others roll with the penalties of the declaration as made.
    """
    if not requests:
        raise TagError("Declare at least one action.", POOL_USAGE)
    if len(requests) > table.limits.max_terms:
        raise RuleViolation(f"At most {table.limits.max_terms} actions in one declaration.")
    if sum(r.willpower for r in requests) > 1:
        raise RuleViolation("At most one Willpower point a turn: put `willpower` on one action.")
    problems: list[tuple[int, str]] = []
    skipped: list[tuple[int, str]] = []
    planned: list[tuple[int, RollRequest, Plan]] = []
    skip = table.rulings.empty_action is EmptyAction.SKIP
    for number, (request, penalty) in enumerate(
        zip(requests, action_penalties(requests), strict=True), 1
    ):
        try:
            planned.append((number, request, plan_roll(request, actor, table, penalty)))
        except EmptyPoolError as error:
            (skipped if skip else problems).append((number, error.message))
        except UserError as error:
            problems.append((number, error.message))
    reasons = [f"action {number}: {why}" for number, why in problems]
    if sum(plan.dice for _, _, plan in planned) > table.limits.max_dice:
        reasons.append(f"at most {table.limits.max_dice} dice in one declaration.")
    if not planned and not reasons:
        reasons.append("no action is left with a die to roll.")
    if reasons:
        raise RuleViolation("\n".join(["These actions cannot all be taken:", *reasons]))
    rolls: list[PoolRoll] = []
    changes: list[Change] = []
    for _, request, plan in planned:
        if actor is not None:  # an earlier action may have spent the free botch
            plan = replace(plan, free_botch=plan.free_botch and not actor.state.free_botch_used)
        roll = roll_plan(plan, table.rulings, dice)
        step = roll_changes(roll, request, actor)
        if actor is not None:
            state = apply_changes(actor.state, "character", actor.sheet.name, step)
            actor = replace(actor, state=state)
        rolls.append(roll)
        changes.extend(step)
    taken = tuple(number for number, _, _ in planned)
    return ActionsVerdict(tuple(rolls), tuple(changes), taken, tuple(skipped))
