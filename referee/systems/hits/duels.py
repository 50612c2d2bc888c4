"""Duels of ``hits``: an opposed roll bought with Influence, and what losing it costs.

A player character starts a duel by paying Influence (:func:`.influence.duel_cost`: 1
outside combat, 4 − Tension in combat, at least 1). Each side's pool is a number of dice:
a PC sums the Attributes, Skills, Abilities and Benefits he names (:func:`duel_pool`, the
GM may strike one); an NPC rolls about Level + 7 (:func:`npc_duel_dice`). The duel is
declared (:func:`declare_duel`), then rolled (:func:`resolve_duel`) at once or when the GM
or the combat turn order says.

The loser of a duel started outside combat takes 2 Stress if a PC; an NPC is knocked out,
or resists with a story timer of 4, 6 or 8 segments (the GM's choice) that knocks it out
when filled. In combat the loser takes 2 Wounds. A losing initiator chooses
(:func:`choose_after_loss`): Withdraw (nothing happens, no refund), Accept (the
consequences, and the Influence back) or Resist (both sides reroll once, R-49; if the
initiator loses again it is Accept, refunded under R-26). The target has no choice.

Readings noted: only a player character starts a duel, since a duel is bought with
Influence and NPCs hold none; the consequences follow the mode the duel *started* in (the
seed: "o risco vai ser baseado" on it), though the duel itself is an unstructured scene;
a refund gives the Influence back even after the chapter that recorded the spend ended.

>>> from referee.base.dice import FixedDice
>>> from .scene import CampaignClock, Mode, start_scene
>>> from .sheet import Attribute, new_character
>>> kara = replace(new_character("Kara", Attribute.BODY, Attribute.MIND), influence=2)
>>> ogre = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)
>>> clock = start_scene(CampaignClock(), (), Mode.UNSTRUCTURED).clock
>>> declared = declare_duel(DuelBook(), clock, kara, ogre, 4, npc_duel_dice(ogre))
>>> declared.characters[0].influence, declared.duel.status.value
(1, 'pending')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, UnknownName
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.changes import Change, changes_between

from .influence import duel_cost, refund, spend
from .rolls import OpposedRoll, PoolSpec, roll_opposed
from .rulings import DEFAULT_RULINGS, Rulings
from .scene import CAMPAIGN, CampaignClock, Mode, Spend, SpendRecord, Timer, create_timer
from .sheet import Character, Standing
from .stress import take_harm

DUEL_STRESS = 2  # a PC losing outside combat
DUEL_WOUNDS = 2  # anyone losing in combat
NPC_TIMER_SEGMENTS = (4, 6, 8)  # the GM's choice when an NPC resists a lost duel
MAX_PENDING_DUELS = 50


class DuelStatus(str, Enum):
    """Where a duel stands."""

    PENDING = "pending"  # paid for, not rolled yet
    INITIATOR_LOST = "initiator_lost"  # waiting for Withdraw, Accept or Resist
    DONE = "done"


class LossChoice(str, Enum):
    """A losing initiator's three options."""

    WITHDRAW = "withdraw"  # no one suffers the consequences; nothing is refunded
    ACCEPT = "accept"  # take the consequences, get the Influence back
    RESIST = "resist"  # reroll both sides once; losing again is Accept


@dataclass(frozen=True)
class Duel:
    """One duel between an initiator (a PC) and a target."""

    id: int
    initiator: str
    target: str
    mode: Mode  # where it started, which sets the consequences
    cost: int  # the Influence paid
    initiator_dice: int
    target_dice: int
    status: DuelStatus = DuelStatus.PENDING
    resisted: bool = False
    loser: str = ""  # once done: who lost ("" when the initiator withdrew)
    awaiting_target: bool = False  # a PC target has not named his pool yet
    deferred: bool = False  # rolled when the GM or the combat turn says, not at once

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        object.__setattr__(self, "status", DuelStatus(self.status))


@dataclass(frozen=True)
class DuelBook:
    """The campaign's duels in progress (finished ones are dropped)."""

    duels: tuple[Duel, ...] = ()
    next_id: int = 1


@dataclass(frozen=True)
class DuelResult:
    """A duel step: the duel, the book, clock and both duellists after it, and what changed."""

    duel: Duel
    book: DuelBook
    clock: CampaignClock
    characters: tuple[Character, Character]  # initiator, target
    changes: tuple[Change, ...]
    roll: OpposedRoll | None = None  # initiator first, target second


def duel_pool(sources: Mapping[str, int], struck: str = "", limits: Limits = DEFAULT_LIMITS) -> int:
    """A PC's duel dice: the sum of every source he names, but the one the GM strikes.

    >>> duel_pool({"Body": 4, "Swordsmanship": 2, "Fearless": 1}, struck="fearless")
    6
    """
    if struck and struck.casefold() not in {name.casefold() for name in sources}:
        raise UnknownName(f"{struck!r} is not among the named sources: {', '.join(sources)}.")
    total = 0
    for name, dice in sources.items():
        if not 0 <= dice <= limits.max_dice:
            raise RuleViolation(f"{name} gives 0 to {limits.max_dice} dice, not {dice}.")
        if name.casefold() != struck.casefold():
            total += dice
    if total > limits.max_dice:
        raise RuleViolation(f"A duel pool of {total} dice is over the {limits.max_dice} allowed.")
    return total


def npc_duel_dice(npc: Character, rulings: Rulings = DEFAULT_RULINGS, adjustment: int = 0) -> int:
    """An NPC's duel dice: Level + 7 (``npc_duel_bonus``), adjusted by the GM; at least 0."""
    return max(0, npc.level + rulings.npc_duel_bonus + adjustment)


def find_duel(book: DuelBook, duel_id: int) -> Duel:
    """The duel in progress with that number, or UnknownName listing them."""
    for duel in book.duels:
        if duel.id == duel_id:
            return duel
    known = ", ".join(f"#{d.id} {d.initiator} vs {d.target}" for d in book.duels) or "none"
    raise UnknownName(f"There is no duel #{duel_id} in progress; the duels are: {known}.")


def _check_duellist(duel: Duel, initiator: Character, target: Character) -> None:
    if (initiator.name, target.name) != (duel.initiator, duel.target):
        raise RuleViolation(
            f"Duel #{duel.id} is {duel.initiator} against {duel.target}, not"
            f" {initiator.name} against {target.name}."
        )


def declare_duel(
    book: DuelBook,
    clock: CampaignClock,
    initiator: Character,
    target: Character,
    initiator_dice: int,
    target_dice: int,
    limits: Limits = DEFAULT_LIMITS,
) -> DuelResult:
    """Start a duel: the initiator pays its cost (by the scene's mode and Tension)."""
    if not clock.scene.open:
        raise RuleViolation("A duel happens in a scene; the GM starts one first.")
    if initiator.name.casefold() == target.name.casefold():
        raise RuleViolation(f"{initiator.name} cannot duel himself.")
    if target.standing != Standing.ACTIVE:
        raise RuleViolation(f"{target.name} is {target.standing.value.replace('_', ' ')}.")
    for who, dice in ((initiator.name, initiator_dice), (target.name, target_dice)):
        if not 0 <= dice <= limits.max_dice:
            raise RuleViolation(f"{who}'s duel pool is 0 to {limits.max_dice} dice, not {dice}.")
    if len(book.duels) >= MAX_PENDING_DUELS:
        raise RuleViolation(f"{MAX_PENDING_DUELS} duels are in progress; settle some first.")
    cost = duel_cost(clock.scene.mode, clock.scene.tension)
    paid = spend(clock, initiator, Spend.DUEL, cost)
    duel = Duel(
        book.next_id,
        initiator.name,
        target.name,
        clock.scene.mode,
        cost,
        initiator_dice,
        target_dice,
    )
    new_book = DuelBook((*book.duels, duel), book.next_id + 1)
    changes = (*paid.changes, *changes_between("duels", CAMPAIGN, book, new_book))
    return DuelResult(duel, new_book, paid.clock, (paid.character, target), changes)


def defend(
    book: DuelBook, duel_id: int, target_dice: int, limits: Limits = DEFAULT_LIMITS
) -> DuelBook:
    """A PC target names his pool (the sum of his sources) for a pending duel."""
    duel = find_duel(book, duel_id)
    if duel.status != DuelStatus.PENDING:
        raise RuleViolation(f"Duel #{duel.id} was already rolled.")
    if not 0 <= target_dice <= limits.max_dice:
        raise RuleViolation(f"A duel pool is 0 to {limits.max_dice} dice, not {target_dice}.")
    after = replace(duel, target_dice=target_dice, awaiting_target=False)
    return replace(book, duels=tuple(after if d.id == duel.id else d for d in book.duels))


def _roll(duel: Duel, dice: DiceSource, rulings: Rulings) -> OpposedRoll:
    return roll_opposed(
        [
            (duel.initiator, PoolSpec(duel.initiator_dice)),
            (duel.target, PoolSpec(duel.target_dice)),
        ],
        dice,
        rulings,
    )


def _lose(
    loser: Character,
    duel: Duel,
    clock: CampaignClock,
    rulings: Rulings,
    npc_timer: int | None,
) -> tuple[Character, CampaignClock, tuple[Change, ...]]:
    """The consequences of losing ``duel`` for ``loser``."""
    if duel.mode == Mode.COMBAT:
        harm = take_harm(loser, Mode.COMBAT, wounds=DUEL_WOUNDS, rulings=rulings)
        return harm.character, clock, harm.changes
    if loser.player:
        harm = take_harm(loser, Mode.UNSTRUCTURED, stress=DUEL_STRESS, rulings=rulings)
        return harm.character, clock, harm.changes
    if npc_timer is None:
        after = replace(loser, standing=Standing.KNOCKED_OUT)
        return after, clock, changes_between("character", loser.name, loser, after)
    if npc_timer not in NPC_TIMER_SEGMENTS:
        raise RuleViolation(f"An NPC resists with a timer of 4, 6 or 8 segments, not {npc_timer}.")
    made = create_timer(
        clock,
        f"{loser.name} resists (duel #{duel.id})",
        npc_timer,
        event=f"{loser.name} is knocked out",
        knocks_out=loser.name,
    )
    return loser, made.clock, made.changes


def _finish(
    book: DuelBook,
    duel: Duel,
    after: Duel,
    clock: CampaignClock,
    characters: tuple[Character, Character],
    changes: tuple[Change, ...],
    roll: OpposedRoll | None,
) -> DuelResult:
    if after.status == DuelStatus.DONE:
        duels = tuple(d for d in book.duels if d.id != duel.id)
    else:
        duels = tuple(after if d.id == duel.id else d for d in book.duels)
    changes += changes_between("duel", str(duel.id), duel, after)
    return DuelResult(after, replace(book, duels=duels), clock, characters, changes, roll)


def fire_knockouts(
    fired: Sequence[Timer], characters: Sequence[Character]
) -> tuple[tuple[Character, ...], tuple[Change, ...]]:
    """Knock out each character a filled timer names (an NPC that resisted a lost duel).

    ``fired`` is :attr:`.scene.ClockResult.fired` from :func:`.scene.advance_timer`.
    """
    doomed = {t.knocks_out.casefold() for t in fired if t.knocks_out}
    out: list[Character] = []
    changes: tuple[Change, ...] = ()
    for c in characters:
        if c.name.casefold() in doomed and c.standing == Standing.ACTIVE:
            after = replace(c, standing=Standing.KNOCKED_OUT)
            changes += changes_between("character", c.name, c, after)
            out.append(after)
        else:
            out.append(c)
    return tuple(out), changes


def resolve_duel(
    book: DuelBook,
    clock: CampaignClock,
    duel_id: int,
    initiator: Character,
    target: Character,
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
    npc_timer: int | None = None,
) -> DuelResult:
    """Roll a pending duel (initiator's pool first, ties rerolled).

    If the initiator wins, the target loses at once (``npc_timer``: the GM's timer when an
    NPC target resists, None to knock it out). If the initiator loses, the duel waits for
    :func:`choose_after_loss`.
    """
    duel = find_duel(book, duel_id)
    _check_duellist(duel, initiator, target)
    if duel.status != DuelStatus.PENDING:
        raise RuleViolation(f"Duel #{duel.id} was already rolled; {duel.initiator} must choose.")
    if duel.awaiting_target:
        raise RuleViolation(
            f"Duel #{duel.id} waits for {duel.target} to name his pool:"
            f" [[duel {duel.id} with ...]]."
        )
    roll = _roll(duel, dice, rulings)
    if roll.winners == (duel.initiator,):
        loser, new_clock, changes = _lose(target, duel, clock, rulings, npc_timer)
        after = replace(duel, status=DuelStatus.DONE, loser=duel.target)
        return _finish(book, duel, after, new_clock, (initiator, loser), changes, roll)
    after = replace(duel, status=DuelStatus.INITIATOR_LOST)
    return _finish(book, duel, after, clock, (initiator, target), (), roll)


def choose_after_loss(
    book: DuelBook,
    clock: CampaignClock,
    duel_id: int,
    choice: LossChoice,
    initiator: Character,
    target: Character,
    dice: DiceSource,
    rulings: Rulings = DEFAULT_RULINGS,
    npc_timer: int | None = None,
) -> DuelResult:
    """The losing initiator's choice: Withdraw, Accept or Resist (see the module)."""
    duel = find_duel(book, duel_id)
    _check_duellist(duel, initiator, target)
    if duel.status != DuelStatus.INITIATOR_LOST:
        raise RuleViolation(
            f"Duel #{duel.id} has no loss to answer; {duel.initiator} did not lose."
        )
    choice = LossChoice(choice)
    done = replace(duel, status=DuelStatus.DONE)
    if choice == LossChoice.WITHDRAW:
        return _finish(book, duel, done, clock, (initiator, target), (), None)
    roll = None
    refunded = True
    if choice == LossChoice.RESIST:
        roll = _roll(duel, dice, rulings)
        done = replace(done, resisted=True)
        if roll.winners == (duel.initiator,):
            loser, new_clock, changes = _lose(target, duel, clock, rulings, npc_timer)
            done = replace(done, loser=duel.target)
            return _finish(book, duel, done, new_clock, (initiator, loser), changes, roll)
        refunded = rulings.resist_refund
    loser, new_clock, changes = _lose(initiator, duel, clock, rulings, npc_timer)
    if refunded:
        record = SpendRecord(duel.initiator, Spend.DUEL, duel.cost)
        back = refund(new_clock, loser, record)
        loser, new_clock, changes = back.character, back.clock, changes + back.changes
    done = replace(done, loser=duel.initiator)
    return _finish(book, duel, done, new_clock, (loser, target), changes, roll)
