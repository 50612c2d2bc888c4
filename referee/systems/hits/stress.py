"""Stress, Wounds, knockouts, raising the stakes and the Intermission of ``hits``.

A character is knocked out at 3 Stress in unstructured play or 3 Wounds in combat. A
player character first stands at :attr:`Standing.KNOCKOUT_PENDING`: the player either
accepts the knockout (:func:`accept_knockout`) or raises the stakes (:func:`raise_stakes`):
Stress becomes exactly 2, Health is fully restored, in combat Wounds become R-24's
``stakes_wounds``, and something is wagered. A second knockout in the same scene loses the
wager for ever and gives 3 Influence; R-46 decides whether the character is then out
(``out``) or may raise the stakes again (``rewager``). A lost life is death. NPCs are
knocked out at once.

Taking Stress or a Wound gives a player character Influence (R-25: +1 per event by
default, or +1 per point).

>>> from .sheet import Attribute, new_character
>>> kara = new_character("Kara", Attribute.BODY, Attribute.MIND)
>>> hurt = take_harm(kara, Mode.UNSTRUCTURED, stress=3)
>>> hurt.character.standing.value, hurt.character.influence
('knockout_pending', 1)
>>> raised = raise_stakes(hurt.character, Stake(Wager.LIFE), Mode.UNSTRUCTURED)
>>> raised.character.stress, raised.character.standing.value
(2, 'active')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from referee.base.errors import RuleViolation
from referee.systems.changes import Change, changes_between

from .rulings import DEFAULT_RULINGS, InfluencePer, Rulings, SecondKnockout
from .scene import Mode
from .sheet import KNOCKOUT_AT, MAX_COUNTER, Character, Stake, Standing, Wager

LOST_STAKE_INFLUENCE = 3


@dataclass(frozen=True)
class HarmResult:
    """A character after Stress, Wounds or a knockout choice, and what changed."""

    character: Character
    changes: tuple[Change, ...]
    lost: Stake | None = None  # the wager lost to a second knockout, if any


def harm_influence(stress: int, wounds: int, rulings: Rulings) -> int:
    """Influence a player character gains for taking Stress and Wounds at once (R-25)."""
    if rulings.influence_per == InfluencePer.POINT:
        return stress + wounds
    return int(stress > 0) + int(wounds > 0)


def _knockout_counter(character: Character, mode: Mode) -> int:
    return character.wounds if Mode(mode) == Mode.COMBAT else character.stress


def take_harm(
    character: Character,
    mode: Mode,
    *,
    stress: int = 0,
    wounds: int = 0,
    rulings: Rulings = DEFAULT_RULINGS,
) -> HarmResult:
    """Add Stress and Wounds, give Influence for them, and knock out at the mode's threshold."""
    for name, amount in (("Stress", stress), ("Wounds", wounds)):
        if not 0 <= amount <= MAX_COUNTER:
            raise RuleViolation(f"{name} taken is from 0 to {MAX_COUNTER}, not {amount}.")
    if character.standing == Standing.DEAD:
        raise RuleViolation(f"{character.name} is dead.")
    after = replace(
        character,
        stress=min(MAX_COUNTER, character.stress + stress),
        wounds=min(MAX_COUNTER, character.wounds + wounds),
    )
    if character.player:
        gained = harm_influence(stress, wounds, rulings)
        after = replace(after, influence=min(MAX_COUNTER, after.influence + gained))
    lost = None
    if character.standing == Standing.ACTIVE and _knockout_counter(after, mode) >= KNOCKOUT_AT:
        after, lost = _knock_out(after, rulings)
    return HarmResult(after, changes_between("character", character.name, character, after), lost)


def _knock_out(character: Character, rulings: Rulings) -> tuple[Character, Stake | None]:
    """The knockout itself: pending for a PC, out for an NPC, a stake lost the second time."""
    if not character.player:
        return replace(character, standing=Standing.KNOCKED_OUT), None
    if not character.stakes:
        return replace(character, standing=Standing.KNOCKOUT_PENDING), None
    lost = character.stakes[-1]
    if lost.wager == Wager.LIFE:
        standing = Standing.DEAD
    elif rulings.second_knockout == SecondKnockout.REWAGER:
        standing = Standing.KNOCKOUT_PENDING
    else:
        standing = Standing.KNOCKED_OUT
    after = replace(
        character,
        standing=standing,
        stakes=character.stakes[:-1],
        lost_wagers=(*character.lost_wagers, lost),
        influence=min(MAX_COUNTER, character.influence + LOST_STAKE_INFLUENCE),
    )
    return after, lost


def _pending(character: Character) -> None:
    if character.standing != Standing.KNOCKOUT_PENDING:
        raise RuleViolation(
            f"{character.name} is not being knocked out; the choice comes at 3 Stress"
            " (unstructured) or 3 Wounds (combat)."
        )


def accept_knockout(character: Character) -> HarmResult:
    """The player lets the knockout happen: the character leaves the scene."""
    _pending(character)
    after = replace(character, standing=Standing.KNOCKED_OUT)
    return HarmResult(after, changes_between("character", character.name, character, after))


def raise_stakes(
    character: Character, stake: Stake, mode: Mode, rulings: Rulings = DEFAULT_RULINGS
) -> HarmResult:
    """Raise the stakes instead of a knockout: Stress 2, Health full, the wager recorded."""
    _pending(character)
    if stake.wager != Wager.LIFE and not stake.what.strip():
        raise RuleViolation(
            f'Name the {stake.wager.value} you wager, e.g. "raise stakes {stake.wager.value}'
            ' Swordsmanship".'
        )
    if stake in character.lost_wagers:
        raise RuleViolation(f"{character.name} already lost {stake.what}; wager something else.")
    after = replace(
        character,
        standing=Standing.ACTIVE,
        stress=2,
        health=character.max_health,
        wounds=rulings.stakes_wounds if Mode(mode) == Mode.COMBAT else character.wounds,
        stakes=(*character.stakes, stake),
    )
    return HarmResult(after, changes_between("character", character.name, character, after))


def intermission(
    characters: Sequence[Character], taking_part: Iterable[str] | None = None
) -> tuple[tuple[Character, ...], tuple[Change, ...]]:
    """Clear the Stress and Wounds of each character taking part (everyone when None)."""
    names = None if taking_part is None else {n.casefold() for n in taking_part}
    out: list[Character] = []
    changes: tuple[Change, ...] = ()
    for c in characters:
        if names is None or c.name.casefold() in names:
            healed = replace(c, stress=0, wounds=0)
            changes += changes_between("character", c.name, c, healed)
            out.append(healed)
        else:
            out.append(c)
    return tuple(out), changes
