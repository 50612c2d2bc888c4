"""A ``hits`` player's choices by tag: duels, Leave, raising the stakes, knockouts, level-ups.

Each resolver checks the poster may act for the character (``require_control``), asks
the engine (:mod:`.duels`, :mod:`.influence`, :mod:`.stress`, :mod:`.xp`) and writes the
characters and the campaign state back through the context (see :mod:`.handlers`).

Duels: ``duel Kara -> Ogre with body, Swordsmanship`` pays the cost (1 outside combat,
4 − Tension in combat) and, outside combat, rolls at once when the target's pool is
known: an NPC's is Level + 7 (``npc_duel_bonus``; a GM may add ``adjust N``), a PC
target names his with ``duel 1 with mind, Persuasion``. In combat, or with ``later``,
the duel waits for ``duel 1 roll`` (either duellist or the GM: it resolves when one of
them starts his turn). A losing initiator answers ``duel 1 withdraw|accept|resist``.
An NPC that loses is knocked out, unless the GM's step says ``timer 4|6|8``: it then
resists with a story timer that knocks it out when filled.
"""

from __future__ import annotations

from dataclasses import replace

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, RuleViolation
from referee.system import Context, Resolution, require_control
from referee.systems.changes import Change, changes_between, find_name
from referee.systems.roster import find_character

from . import duels, influence, stress, xp
from .handlers import (
    cached_opposed_odds,
    load_state,
    require_in_play,
    require_in_scene,
    roller,
    rulings_of,
    save_state,
    scene_mode,
    side_of,
    sources_of,
)
from .odds import OpposedOdds
from .rolls import PoolSpec
from .scene import Mode
from .sheet import Character, SavedGains, Stake, TraitKind, Wager, with_rank, without_trait
from .state import CampaignState
from .tags import Awaken, DuelDeclare, DuelStep, LevelUp, Named, Pool, Stakes
from .views import DuelView, StepView, shown

DUEL_SOURCES = "attributes, skills, abilities and benefits"


def settle_wagers(before: Character, after: Character) -> Character:
    """``after`` with each wager it newly lost taken off the sheet (lost for ever)."""
    for lost in after.lost_wagers[len(before.lost_wagers) :]:
        if lost.wager == Wager.LIFE:
            continue
        after = without_trait(after, TraitKind(lost.wager.value), lost.what)
    return after


def resolve_leave(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """Leave: 1 Influence for a free non-attack action at the end of one's combat turn."""
    character = roller(context, request.actor, "Leave")
    state = load_state(context)
    spent = influence.leave(state.clock, character)
    context.roster.update(spent.character)
    save_state(context, state, replace(state, clock=spent.clock))
    view = StepView(
        "spends 1 Influence to Leave: a free non-attack action",
        character.name,
        request.note,
        shown(spent.changes),
    )
    return Resolution("step", view, changes=view.changes)


# ----------------------------------------------------------------------------- duels


def _duel_odds(duel: duels.Duel, context: Context) -> OpposedOdds | None:
    specs = (PoolSpec(duel.initiator_dice), PoolSpec(duel.target_dice))
    return cached_opposed_odds(specs, rulings_of(context))


def resolve_duel(request: DuelDeclare | DuelStep, context: Context, dice: DiceSource) -> Resolution:
    """Declare a duel, name a target's pool, roll it, or answer a loss."""
    if isinstance(request, DuelStep):
        return _duel_step(request, context, dice)
    initiator = roller(context, request.actor, "start a duel")
    if not initiator.player:
        raise RuleViolation(f"{initiator.name} is not a player character; a duel costs Influence.")
    target: Character = find_character(context, request.target, "be challenged")
    if not context.roster.record(target.name).get("approved"):
        target = require_control(context, target.name, "be challenged")
    require_in_play(target)
    require_in_scene(context, target)
    pool = side_of(context, initiator, Pool(initiator.name, request.sources), standard=False)
    rulings = rulings_of(context)
    initiator_dice = duels.duel_pool({s.name: s.dice for s in pool.sources}, limits=context.limits)
    if target.player:
        if request.adjust:
            raise RuleViolation("adjust changes an NPC's Level + 7; a player names his own pool.")
        target_dice = 0
    else:
        target_dice = duels.npc_duel_dice(target, rulings, request.adjust)
    state = load_state(context)
    declared = duels.declare_duel(
        state.duels, state.clock, initiator, target, initiator_dice, target_dice, context.limits
    )
    deferred = request.later or state.clock.scene.mode == Mode.COMBAT
    duel = replace(declared.duel, awaiting_target=target.player, deferred=deferred)
    book = replace(
        declared.book, duels=tuple(duel if d.id == duel.id else d for d in declared.book.duels)
    )
    context.roster.update(declared.characters[0])
    after = replace(state, clock=declared.clock, duels=book)
    save_state(context, state, after)
    changes = declared.changes
    if not deferred and not target.player:
        return _roll_duel(context, duel.id, dice, None, changes)
    view = DuelView("declared", duel, changes=shown(changes))
    return Resolution("duel", view, changes=view.changes)


def _duellists(context: Context, duel: duels.Duel) -> tuple[Character, Character]:
    return context.roster.find(duel.initiator), context.roster.find(duel.target)


def _may_act(context: Context, name: str, doing: str) -> None:
    require_control(context, name, doing)


def _duel_step(request: DuelStep, context: Context, dice: DiceSource) -> Resolution:
    state = load_state(context)
    duel = duels.find_duel(state.duels, request.duel)
    if request.action == "defend":
        _may_act(context, duel.target, "name a duel pool")
        target: Character = context.roster.find(duel.target)
        if not target.player:
            raise RuleViolation(f"{target.name} is an NPC: it duels with Level + 7 dice.")
        pool = sources_of(context, target, request.sources)
        dice_count = duels.duel_pool({s.name: s.dice for s in pool}, limits=context.limits)
        book = duels.defend(state.duels, duel.id, dice_count, context.limits)
        save_state(context, state, replace(state, duels=book))
        defended = duels.find_duel(book, duel.id)
        if not defended.deferred:
            return _roll_duel(context, duel.id, dice, request.timer, ())
        return Resolution("duel", DuelView("defended", defended))
    if request.action == "roll":
        if not context.by_gm:
            try:
                _may_act(context, duel.initiator, "roll a duel")
            except Forbidden:
                _may_act(context, duel.target, "roll a duel")
        return _roll_duel(context, duel.id, dice, request.timer, ())
    _may_act(context, duel.initiator, f"{request.action} after losing a duel")
    initiator, target = _duellists(context, duel)
    result = duels.choose_after_loss(
        state.duels,
        state.clock,
        duel.id,
        duels.LossChoice(request.action),
        initiator,
        target,
        dice,
        rulings_of(context),
        request.timer,
    )
    return _after_duel(context, state, result, request.action, ())


def _roll_duel(
    context: Context,
    duel_id: int,
    dice: DiceSource,
    timer: int | None,
    earlier: tuple[Change, ...],
) -> Resolution:
    state = load_state(context)
    duel = duels.find_duel(state.duels, duel_id)
    initiator, target = _duellists(context, duel)
    result = duels.resolve_duel(
        state.duels, state.clock, duel_id, initiator, target, dice, rulings_of(context), timer
    )
    return _after_duel(context, state, result, "rolled", earlier)


def _after_duel(
    context: Context,
    state: CampaignState,
    result: duels.DuelResult,
    step: str,
    earlier: tuple[Change, ...],
) -> Resolution:
    before = _duellists(context, result.duel)
    after = tuple(settle_wagers(b, a) for b, a in zip(before, result.characters, strict=True))
    for old, new in zip(before, after, strict=True):
        if old != new:
            context.roster.update(new)
    save_state(context, state, replace(state, clock=result.clock, duels=result.book))
    made = tuple(t for t in result.clock.timers if t not in state.clock.timers)
    odds = _duel_odds(result.duel, context) if result.roll is not None else None
    changes = shown((*earlier, *result.changes))
    view = DuelView(step, result.duel, result.roll, odds, changes, timers=made)
    chance = None
    if odds is not None and result.roll is not None and len(result.roll.winners) == 1:
        chance = odds.wins[result.roll.names.index(result.roll.winners[0])]
    return Resolution("duel", view, chance, changes)


# ------------------------------------------------------------------ knockouts, stakes


def resolve_stakes(request: Stakes, context: Context, dice: DiceSource) -> Resolution:
    """Raise the stakes instead of a knockout: Stress 2, Health full, the wager kept."""
    character: Character = require_control(context, request.actor, "raise the stakes")
    what = request.what
    if request.wager != Wager.LIFE:
        kind = TraitKind(request.wager.value)
        names = [name for name, _ in character.traits(kind)]
        if not names:
            raise RuleViolation(
                f"{character.name} has no {kind.value} to wager; wager another kind or life."
            )
        what = find_name(what, names, kind.value) if what else ""
    state = load_state(context)
    result = stress.raise_stakes(
        character, Stake(request.wager, what), scene_mode(state.clock), rulings_of(context)
    )
    context.roster.update(result.character)
    view = StepView(
        "raises the stakes, wagering " + (f"the {request.wager.value}" if what else "his life"),
        character.name,
        what,
        shown(result.changes),
    )
    return Resolution("step", view, changes=view.changes)


def resolve_knockout(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The player lets the knockout happen: the character leaves the scene."""
    character: Character = require_control(context, request.actor, "take the knockout")
    result = stress.accept_knockout(character)
    context.roster.update(result.character)
    view = StepView(
        "is knocked out and leaves the scene", character.name, "", shown(result.changes)
    )
    return Resolution("step", view, changes=view.changes)


# --------------------------------------------------------------------- levels, gains


def _named_gains(
    character: Character, gains: tuple[tuple[TraitKind, str], ...]
) -> tuple[Character, SavedGains]:
    """The character with each named gain written on the sheet; the counts they use."""
    counts = {"tiers": 0, "ranks": 0, "benefits": 0}
    for kind, name in gains:
        known = [n for n, _ in character.traits(kind)]
        match = next((n for n in known if n.casefold() == name.casefold()), name)
        if kind == TraitKind.BENEFIT and match in known:
            # The seed: "Um novo Benefício": a Level's Benefit is a new one, never a Rank more.
            raise RuleViolation(
                f"{character.name} already has the Benefit {match}: a Level grants a new "
                "Benefit; name one he does not have."
            )
        character = with_rank(character, kind, match, 1)
        counts[
            "tiers"
            if kind == TraitKind.TECHNIQUE
            else "benefits"
            if kind == TraitKind.BENEFIT
            else "ranks"
        ] += 1
    return character, SavedGains(**counts)


def resolve_levelup(request: LevelUp, context: Context, dice: DiceSource) -> Resolution:
    """One Level's gains: two +1s, Tiers or +1 highest, Ranks, a Benefit; named or saved."""
    character: Character = require_control(context, request.actor, "choose level-up gains")
    named, take_now = _named_gains(character, request.gains)
    gains = xp.LevelGains(request.raised, request.highest, take_now)
    up = xp.choose_gains(character, gains, rulings_of(context))
    after = replace(
        up.character,
        skills=named.skills,
        abilities=named.abilities,
        benefits=named.benefits,
        techniques=named.techniques,
    )
    context.roster.update(after)
    changes = changes_between("character", character.name, character, after)
    view = StepView("chooses the gains of a Level", character.name, "", shown(changes))
    return Resolution("step", view, changes=view.changes)


def resolve_awaken(request: Awaken, context: Context, dice: DiceSource) -> Resolution:
    """Awakening: saved Tiers, Ranks and Benefits taken by name."""
    character: Character = require_control(context, request.actor, "Awaken")
    require_in_play(character)
    named, used = _named_gains(character, request.gains)
    taken, _ = xp.awaken(named, used.tiers, used.ranks, used.benefits)
    context.roster.update(taken)
    changes = changes_between("character", character.name, character, taken)
    view = StepView("Awakens, taking saved gains", character.name, "", shown(changes))
    return Resolution("step", view, changes=view.changes)
