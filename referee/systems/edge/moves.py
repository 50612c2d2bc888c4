"""``edge`` moves (RULES.md §4): 2d6 + a stat or counter, three bands, the advantage die.

The stages of one move::

    MoveRequest + Actor + Table --resolve_move(dice)--> MoveVerdict (Move + changes)
    pending MoveVerdict (R-39 "ask") + the player's answer --settle--> MoveVerdict

**Dice order**: two d6, the first then the second. Nothing else is drawn: the
advantage die is a value, not a roll.

The advantage replaces the lower die when the policy in force says so
(:func:`~referee.systems.edge.bands.worth_using`); the verdict then shows both
readings and the advantage goes back to 1. Under R-39 ``"ask"`` a roll that the
advantage would lift to a better band stays **pending** until the player answers
``edge`` or ``keep`` (:func:`settle`), unless the tag itself named a policy.

§4.2's first vector: stat +1, dice 3 and 2, advantage 4:

>>> from referee.base.dice import FixedDice
>>> from referee.systems.edge.sheet import Sheet, State
>>> kara = Actor(Sheet("Kara", {"cool": 1}), State(advantage=4))
>>> verdict = resolve_move(MoveRequest("cool"), kara, Table(), FixedDice([3, 2]))
>>> verdict.move.plain.total, verdict.move.result.total, verdict.move.result.band.value
(6, 8, 'weak')
>>> verdict.changes
(Change(subject='character', name='Kara', key='advantage', before=4, after=1),)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, StoreError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.system.validation import check_version
from referee.systems.changes import Change, find_name
from referee.systems.edge import odds
from referee.systems.edge.bands import Band, band_of, with_advantage, worth_using
from referee.systems.edge.rulings import EdgeRulings, EdgeUse, Policy
from referee.systems.edge.sheet import ADVANTAGE_MIN, Sheet, State, StatLists

SIDES = 6
PENDING_VERSION = 1


@dataclass(frozen=True)
class MoveRequest:
    """A move as a tag declares it."""

    roll_on: str | None = None  # a stat or counter as typed; None: refused (none named)
    modifier: int = 0  # every other +N/-N
    policy: Policy | None = None  # this roll's advantage policy, overriding the standing one
    move: str = ""  # the move's name, shown in the verdict


@dataclass(frozen=True)
class Actor:
    """The character who makes the move: the approved sheet and the state play has left."""

    sheet: Sheet
    state: State


@dataclass(frozen=True)
class Table:
    """What the campaign fixes for every move."""

    rulings: EdgeRulings = field(default_factory=EdgeRulings)
    lists: StatLists = field(default_factory=StatLists)
    limits: Limits = DEFAULT_LIMITS


@dataclass(frozen=True)
class Reading:
    """One way to read the dice: the two values, the total and its band."""

    dice: tuple[int, int]
    total: int
    band: Band


@dataclass(frozen=True)
class Pending:
    """A move waiting for the player's ``edge`` or ``keep`` (R-39 "ask"): enough to settle it."""

    roller: str
    move: str
    roll_on: str | None  # the stat or counter, as the sheet names it
    rating: int  # its value at the roll
    modifier: int
    dice: tuple[int, int]
    advantage: int  # the advantage at the roll; settling refuses if it has changed

    def to_dict(self) -> dict[str, Any]:
        """The pending move as JSON-ready data, to keep it between posts.

        >>> p = Pending("Kara", "act under fire", "cool", 1, 0, (3, 2), 4)
        >>> Pending.from_dict(p.to_dict()) == p
        True
        """
        return {
            "version": PENDING_VERSION,
            "roller": self.roller,
            "move": self.move,
            "roll_on": self.roll_on,
            "rating": self.rating,
            "modifier": self.modifier,
            "dice": list(self.dice),
            "advantage": self.advantage,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Pending:
        """A pending move from :meth:`to_dict`'s data; StoreError if it is not that shape."""
        data = check_version(data, PENDING_VERSION, "pending edge move")
        try:
            first, second = (int(d) for d in data["dice"])
            roll_on = data["roll_on"]
            return cls(
                roller=str(data["roller"]),
                move=str(data["move"]),
                roll_on=None if roll_on is None else str(roll_on),
                rating=int(data["rating"]),
                modifier=int(data["modifier"]),
                dice=(first, second),
                advantage=int(data["advantage"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pending edge move is malformed: {error!r}") from error


@dataclass(frozen=True)
class Move:
    """A rolled move: both readings, whether the advantage was spent, and the exact odds."""

    roller: str
    move: str
    roll_on: str | None  # the stat or counter rolled, as the sheet names it
    rating: int  # its value
    modifier: int  # every other modifier
    dice: tuple[int, int]  # as rolled
    advantage: int  # the advantage die's value at the roll
    policy: Policy | None  # the policy that decided; None when the player is asked (R-39 "ask")
    plain: Reading  # without the advantage
    boosted: Reading  # with the advantage in place of the lower die
    used: bool  # the advantage was spent (and goes back to 1)
    pending: bool  # R-39 "ask": waiting for the player's `edge` or `keep`
    odds_plain: Mapping[Band, Fraction]  # exact P(band) without the advantage
    odds_with: Mapping[Band, Fraction]  # exact P(band) spending it under the policy (asked: `up`)
    # R-39 "ask": the roller's earlier move was still waiting; this tag let it stand as rolled.
    kept_earlier: bool = False
    answered: bool = False  # R-39 "ask": settled by the player's edge or keep (or a GM's final)

    @property
    def result(self) -> Reading:
        """The reading that stands: with the advantage if spent (provisional while pending)."""
        return self.boosted if self.used else self.plain

    @property
    def gm_moves(self) -> bool:
        """A miss stands: the GM makes a move."""
        return not self.pending and self.result.band is Band.MISS

    @property
    def chance(self) -> Fraction:
        """Exact P(the band that stands), spending the advantage the way this move decides it."""
        return self.odds_with[self.result.band]


@dataclass(frozen=True)
class MoveVerdict:
    """A resolved (or pending) move and the state it changes."""

    move: Move
    changes: tuple[Change, ...] = ()
    pending: Pending | None = None  # to keep until the player answers (R-39 "ask")


def _reading(dice: tuple[int, int], modifier: int) -> Reading:
    total = sum(dice) + modifier
    return Reading(dice, total, band_of(total))


def _rolled(request: MoveRequest, actor: Actor, lists: StatLists) -> tuple[str | None, int]:
    """The stat or counter the move rolls, as the sheet names it, and its value."""
    names = (*lists.stats, *lists.counters)
    if request.roll_on is None:
        # The seed: "2d6+характеристика или 2d6+счетчик"; a move always names one.
        raise RuleViolation(
            f"Name the stat or counter {actor.sheet.name} rolls: a move is 2d6 + a stat "
            f"({', '.join(lists.stats)}) or a counter ({', '.join(lists.counters) or 'none'}), "
            f"like [[move {actor.sheet.name} {lists.stats[0]}]]. Plain dice, [[roll 2d6]], "
            "are nobody's move and spend no advantage."
        )
    name = find_name(request.roll_on, names, "stat or counter", "stats and counters")
    if name in lists.stats:
        return name, actor.sheet.stats.get(name, 0)
    return name, actor.state.counters.get(name, 0)


def _settled(
    base: Pending, policy: Policy | None, used: bool, pending: bool, odds_policy: Policy
) -> MoveVerdict:
    """The verdict of ``base``'s dice, with the advantage spent or not."""
    total_modifier = base.rating + base.modifier
    move = Move(
        roller=base.roller,
        move=base.move,
        roll_on=base.roll_on,
        rating=base.rating,
        modifier=base.modifier,
        dice=base.dice,
        advantage=base.advantage,
        policy=policy,
        plain=_reading(base.dice, total_modifier),
        boosted=_reading(with_advantage(base.dice, base.advantage), total_modifier),
        used=used,
        pending=pending,
        odds_plain=odds.band_odds(total_modifier),
        odds_with=odds.band_odds(total_modifier, base.advantage, odds_policy),
    )
    changes: tuple[Change, ...] = ()
    if used:
        changes = (Change("character", base.roller, "advantage", base.advantage, ADVANTAGE_MIN),)
    return MoveVerdict(move, changes, base if pending else None)


def resolve_move(request: MoveRequest, actor: Actor, table: Table, dice: DiceSource) -> MoveVerdict:
    """Roll a move for ``actor``; UserError (nothing rolled) if the request is refused."""
    limits = table.limits
    if abs(request.modifier) > limits.max_modifier:
        raise RuleViolation(f"A modifier is at most {limits.max_modifier} either way.")
    if len(request.move) > limits.max_name_chars:
        raise RuleViolation(f"A move's name has at most {limits.max_name_chars} characters.")
    roll_on, rating = _rolled(request, actor, table.lists)
    first, second = dice.roll(SIDES), dice.roll(SIDES)
    base = Pending(
        roller=actor.sheet.name,
        move=request.move,
        roll_on=roll_on,
        rating=rating,
        modifier=request.modifier,
        dice=(first, second),
        advantage=actor.state.advantage,
    )
    modifier = rating + request.modifier
    asking = table.rulings.edge_use is EdgeUse.ASK and request.policy is None
    if asking:
        would_help = worth_using(Policy.UP, base.dice, modifier, base.advantage)
        return _settled(base, None, False, would_help, Policy.UP)
    policy = request.policy or actor.state.policy
    used = worth_using(policy, base.dice, modifier, base.advantage)
    return _settled(base, policy, used, False, policy)


def settle(pending: Pending, use: bool, state: State) -> MoveVerdict:
    """The player's answer to a pending move: ``edge`` (use) or ``keep`` (any other post).

    ``edge`` is refused if the advantage has changed since the roll (the GM lowered it,
    say): the player answered a choice that no longer exists. ``keep`` always stands.

    >>> p = Pending("Kara", "", "cool", 1, 0, (3, 2), 4)
    >>> settle(p, True, State(advantage=4)).move.result.total
    8
    >>> settle(p, False, State(advantage=1)).move.result.total
    6
    """
    if use and state.advantage != pending.advantage:
        raise RuleViolation(
            f"{pending.roller}'s advantage is {state.advantage} now, not the {pending.advantage} "
            f"of the roll, so it can no longer be spent on it: [[keep {pending.roller}]] "
            "lets the move stand as rolled."
        )
    verdict = _settled(pending, None, use, False, Policy.UP)
    return replace(verdict, move=replace(verdict.move, answered=True))
