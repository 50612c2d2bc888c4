"""Resolving ``hits`` rolls in a campaign: the stored state in, the engine's verdicts out.

Each resolver finds its characters through the core (``require_control``: approved, and
the poster's own unless he is a GM), asks the pure engine (:mod:`.rolls`, :mod:`.odds`,
:mod:`.influence`) and writes back through ``context.roster`` and ``context.table``, so
a refused tag writes nothing.

Where the state lives (fixed keys, one campaign at a time):

* ``hits_campaign``, key ``campaign``: the scene (mode, Tension), the chapter with every
  Influence spend, the timers and the duels in progress (:mod:`.state`). A campaign plays
  one scene at a time, as the seed's table does; its threads share it.
* ``hits_rolls``, keyed by character: the character's last roll, which All in redoes.

A roll names its sources: attributes and the sheet's skills, abilities and benefits
(summed), or for a GM a number of dice. The character's standing Advantage and
Disadvantage (set by the GM) add to the tag's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, RuleViolation
from referee.store.entries import character_key
from referee.system import Context, Resolution, require_control
from referee.systems.changes import Change, find_name
from referee.systems.roster import find_character

from . import influence, redo
from .duels import DuelStatus
from .odds import OpposedOdds, at_least, group_odds, level_odds, opposed_odds, quick_odds
from .rolls import (
    LevelRoll,
    Outcome,
    PoolRoll,
    PoolSpec,
    QuickSpec,
    level_outcome,
    roll_group,
    roll_opposed,
    roll_pool,
    roll_quick,
)
from .rulings import Rulings, TraitsInRoll
from .scene import CampaignClock, Mode, Spend
from .sheet import DICE_TRAITS, Attribute, Character, Standing
from .state import CampaignState, state_from_dict, state_to_dict
from .tags import Group, Named, Opposed, Pool
from .views import GroupView, OpposedView, PoolView, QuickAsked, QuickView, Side, Source, shown

STATE_TABLE = "hits_campaign"
STATE_KEY = "campaign"
ROLLS_TABLE = "hits_rolls"
# Character key -> the scene in which the GM asked for his quick roll (one roll, that scene).
QUICK_TABLE = "hits_quick"
ROLL_VERSION = 1


# --------------------------------------------------------------------------- the store


def load_state(context: Context) -> CampaignState:
    """The campaign's scene, chapter, timers and duels (empty before the first)."""
    record = context.table(STATE_TABLE).get(STATE_KEY)
    return CampaignState() if record is None else state_from_dict(record)


def save_state(context: Context, before: CampaignState, after: CampaignState) -> None:
    """Keep the campaign state if it changed."""
    if before != after:
        context.table(STATE_TABLE).put(STATE_KEY, state_to_dict(after))


def rulings_of(context: Context) -> Rulings:
    """The campaign's hits rulings."""
    return context.rules.rulings


def every_character(context: Context) -> list[Character]:
    """Every approved character of the campaign, in name order."""
    found = []
    for key in sorted(context.roster.known_names):
        if context.roster.record(key).get("approved"):
            found.append(context.roster.find(key))
    return found


def store_characters(
    context: Context, before: Iterable[Character], after: Iterable[Character]
) -> None:
    """Write back each character that changed."""
    for old, new in zip(before, after, strict=True):
        if old != new:
            context.roster.update(new)


def scene_mode(clock: CampaignClock) -> Mode:
    """The mode rolls are made in: the running scene's, else unstructured play."""
    return clock.scene.mode if clock.scene.open else Mode.UNSTRUCTURED


def require_in_play(character: Character) -> None:
    """Refuse a character who cannot act in the scene: out, dead, or facing a knockout."""
    if character.standing == Standing.KNOCKOUT_PENDING:
        raise RuleViolation(
            f"{character.name} is being knocked out: his player chooses first, "
            f"[[stakes {character.name} life]] (or a skill, ability or benefit) or "
            f"[[knockout {character.name}]]."
        )
    if character.standing != Standing.ACTIVE:
        raise RuleViolation(
            f"{character.name} is {character.standing.value.replace('_', ' ')} and cannot act "
            "in this scene."
        )


# ----------------------------------------------------------------------------- pools


@lru_cache(maxsize=256)
def cached_opposed_odds(specs: tuple[PoolSpec, ...], rulings: Rulings) -> OpposedOdds | None:
    """:func:`.odds.opposed_odds`, kept: five rollers take about a second to sum exactly,
    and a post may repeat the same roll (a duel's odds are shown at each of its steps)."""
    return opposed_odds(specs, rulings)


def source_names(character: Character) -> list[str]:
    """What a roll of ``character`` may name: the attributes and its dice traits."""
    names = [a.value for a in Attribute]
    for kind in DICE_TRAITS:
        names += [name for name, _ in character.traits(kind)]
    return names


def sources_of(context: Context, character: Character, typed: Sequence[str]) -> tuple[Source, ...]:
    """The dice each named source gives; a number is a GM's count of dice."""
    sources: list[Source] = []
    for name in typed:
        if name.isascii() and name.isdigit():  # the GM's (a player's: refused by .who)
            sources.append(Source(f"{int(name[:6])} dice", int(name[:6])))
            continue
        found = find_name(name, source_names(character), "source", "attributes and traits")
        attribute = next((a for a in Attribute if a.value == found), None)
        if attribute is not None:
            sources.append(Source(found, character.attribute(attribute)))
            continue
        for kind in DICE_TRAITS:
            rank = dict(character.traits(kind)).get(found)
            if rank is not None:
                sources.append(Source(found, rank))
                break
    seen = [s.name.casefold() for s in sources]
    if len(set(seen)) != len(seen):
        raise RuleViolation("Name each source once.")
    return tuple(sources)


def _standard(
    context: Context, character: Character, sources: tuple[Source, ...]
) -> tuple[Source, ...]:
    """A standard roll's sources: the dice of one attribute, the most relevant (the seed),
    and the traits named as Advantage (or as dice) under ``traits_in_roll``."""
    mode = rulings_of(context).traits_in_roll
    if mode is TraitsInRoll.DICE:
        return sources
    attributes = {a.value for a in Attribute}
    named = [s.name for s in sources if s.name in attributes]
    counted = [s for s in sources if s.name.endswith(" dice")]  # a GM's number of dice
    choices = ", ".join(a.value for a in Attribute)
    if len(named) > 1:
        raise RuleViolation(
            f"A roll throws the dice of one attribute, the most relevant, not {len(named)} "
            f"({', '.join(named)}): name one of {choices}, and any skills, abilities or "
            "benefits that help (they add Advantage)."
        )
    if not named and not counted:
        raise RuleViolation(
            f"Name the attribute the roll throws ({choices}): a skill, ability or benefit "
            f"adds Advantage to it, like [[roll {character.name} body + "
            f"{sources[0].name if sources else 'Swordsmanship'}]]."
        )
    return tuple(
        s
        if s.name in attributes or s in counted
        else Source(s.name, 0, s.dice if mode is TraitsInRoll.RANK else 1)
        for s in sources
    )


def side_of(context: Context, character: Character, pool: Pool, standard: bool = True) -> Side:
    """The roller's pool: his named sources, and Advantage from the tag and his standing.

    ``standard``: a roll, opposed or group roll (one attribute; traits add Advantage, see
    ``traits_in_roll``); otherwise (a duel, a quick roll) every source adds its dice.
    """
    sources = sources_of(context, character, pool.sources)
    if standard:
        sources = _standard(context, character, sources)
    dice = sum(s.dice for s in sources)
    if dice > context.limits.max_dice:
        raise RuleViolation(f"A pool holds at most {context.limits.max_dice} dice, not {dice}.")
    spec = PoolSpec(
        dice,
        pool.advantage + character.advantage + sum(s.advantage for s in sources),
        pool.disadvantage + character.disadvantage,
    )
    return Side(character.name, sources, spec, character.level)


def roller(context: Context, name: str, doing: str) -> Character:
    """A character the poster may roll for: his own, or any for a GM; one in the scene."""
    character: Character = require_control(context, name, doing)
    require_in_play(character)
    require_in_scene(context, character)
    return character


def require_in_scene(context: Context, character: Character) -> None:
    """Refuse a duellist: both leave the scene for the duel's own until it is settled
    ("ambos os participantes saem de Cena e entram em uma Cena separada")."""
    for duel in load_state(context).duels.duels:
        names = (duel.initiator.casefold(), duel.target.casefold())
        if character.name.casefold() in names and duel.status is not DuelStatus.DONE:
            other = duel.target if names[0] == character.name.casefold() else duel.initiator
            n = duel.id
            step = (
                f"[[duel {n} withdraw]], [[duel {n} accept]] or [[duel {n} resist]]"
                if duel.status is DuelStatus.INITIATOR_LOST
                else f"[[duel {n} roll]]"
            )
            raise RuleViolation(
                f"{character.name} is duelling {other} (duel {duel.id}), in a scene of their "
                f"own, and is back in this one when the duel is settled: {step}."
            )


def _pool_view(
    context: Context,
    side: Side,
    test: LevelRoll,
    clock: CampaignClock,
    redo_of: str = "",
    changes: tuple[Change, ...] = (),
    mode: Mode | None = None,
) -> PoolView:
    """The roll as the verdict shows it, judged in ``mode`` (default: the scene's now)."""
    rulings = rulings_of(context)
    combat = (mode or scene_mode(clock)) == Mode.COMBAT
    if combat:
        return PoolView(
            side,
            test.roll,
            True,
            None,
            None,
            at_least(test.roll.spec, test.roll.hits, rulings),
            redo_of,
            shown(changes),
        )
    odds = level_odds(test.roll.spec, test.level, rulings)
    return PoolView(side, test.roll, False, test.outcome, odds, None, redo_of, shown(changes))


def _remember(
    context: Context, side: Side, roll: PoolRoll, level: int, clock: CampaignClock
) -> None:
    """Keep the character's last roll for All in."""
    context.table(ROLLS_TABLE).put(
        character_key(side.name),
        {
            "version": ROLL_VERSION,
            "roll_id": context.roll_id,
            "dice": roll.spec.dice,
            "advantage": roll.spec.advantage,
            "disadvantage": roll.spec.disadvantage,
            "level": level,
            "sources": [[s.name, s.dice, s.advantage] for s in side.sources],
            "redone": roll.redo,
            # All in redoes a roll of the scene it was made in, judged as it was then.
            "scene": clock.scene.number,
            "open": clock.scene.open,
            "mode": scene_mode(clock).value,
        },
    )


def _remember_shared(
    context: Context, names: Iterable[str], record: dict[str, Any], clock: CampaignClock
) -> None:
    """A quick, opposed or group roll is now each roller's last roll, for All in (:mod:`.redo`)."""
    kept = {
        **record,
        "version": ROLL_VERSION,
        "roll_id": context.roll_id,
        "scene": clock.scene.number,
        "open": clock.scene.open,
        "mode": scene_mode(clock).value,
    }
    for name in names:
        context.table(ROLLS_TABLE).put(character_key(name), kept)


def _rewrite_shared(context: Context, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Every roller's copy of a redone roll, rewritten (another's All in sees the redo)."""
    table = context.table(ROLLS_TABLE)
    names = [str(s["name"]) for s in after.get("sides", ())] or [str(after["side"]["name"])]
    for name in names:
        key = character_key(name)
        if (table.get(key) or {}).get("roll_id") == before.get("roll_id"):
            table.put(key, after)


def resolve_roll(request: Pool, context: Context, dice: DiceSource) -> Resolution:
    """A standard roll: hits on 4+, natural 6s explode; the Level table outside combat."""
    character = roller(context, request.actor, "roll")
    side = side_of(context, character, request)
    rulings = rulings_of(context)
    roll = roll_pool(side.spec, dice, rulings, context.limits)
    test = LevelRoll(roll, character.level, level_outcome(roll.hits, character.level))
    clock = load_state(context).clock
    _remember(context, side, roll, character.level, clock)
    view = _pool_view(context, side, test, clock)
    return Resolution("pool", view, _headline(view))


def _headline(view: PoolView) -> Any:
    if view.odds is not None and view.outcome is not None:
        return view.odds[view.outcome]
    return view.at_least


def resolve_all_in(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """All in: 1 Influence, the character's last roll redone (R-44); the new result stands."""
    character = roller(context, request.actor, "go all in")
    record = context.table(ROLLS_TABLE).get(character_key(character.name))
    if record is None:
        raise RuleViolation(f"{character.name} has made no roll to redo.")
    if "kind" in record and "side" not in record and "sides" not in record:
        raise RuleViolation(
            f"{character.name}'s last roll ({record.get('roll_id') or 'earlier'}) was a "
            f"{record['kind']} roll made before All in could redo one; roll anew."
        )
    if "kind" not in record and record.get("redone"):
        raise RuleViolation(
            f"{character.name}'s last roll ({record.get('roll_id') or 'earlier'}) was already "
            "redone with All in; a roll is redone once."
        )
    state = load_state(context)
    scene, clock = record.get("scene"), state.clock
    ended = record.get("open") and not clock.scene.open  # its scene has ended since
    if scene is not None and (scene != clock.scene.number or ended):
        raise RuleViolation(
            f"{character.name}'s last roll ({record.get('roll_id') or 'earlier'}) was made "
            "in an earlier scene; All in redoes a roll of the scene at hand."
        )
    if record.get("kind") in redo.KINDS:
        return _all_in_shared(context, state, character, record, dice)
    spec = PoolSpec(record["dice"], record["advantage"], record["disadvantage"])
    level = int(record["level"])
    previous = LevelRoll(PoolRoll(spec, ()), level, Outcome.FAIL)
    rulings = rulings_of(context)
    spent = influence.all_in(state.clock, character, previous, dice, rulings)
    assert spent.test is not None
    context.roster.update(spent.character)
    save_state(context, state, replace(state, clock=spent.clock))
    sources = tuple(
        Source(str(source[0]), int(source[1]), int(source[2]) if len(source) > 2 else 0)
        for source in record.get("sources", [])
    )
    side = Side(character.name, sources, spent.test.roll.spec, level)
    _remember(context, side, spent.test.roll, level, state.clock)
    mode = Mode(record["mode"]) if record.get("mode") else None
    view = _pool_view(
        context,
        side,
        spent.test,
        state.clock,
        str(record.get("roll_id", "")),
        spent.changes,
        mode,
    )
    return Resolution("pool", view, _headline(view), view.changes)


def _all_in_shared(
    context: Context,
    state: CampaignState,
    character: Character,
    record: dict[str, Any],
    dice: DiceSource,
) -> Resolution:
    """All in on the character's last quick, opposed or group roll (:mod:`.redo`)."""
    redo.check_not_redone(record, character.name)
    spent = influence.spend(state.clock, character, Spend.ALL_IN, influence.COSTS[Spend.ALL_IN])
    rulings = rulings_of(context)
    roll_id = str(record.get("roll_id", ""))
    changes = shown(spent.changes)
    kind = record["kind"]
    done: redo.QuickRedo | redo.OpposedRedo | redo.GroupRedo
    if kind == "quick":
        done = redo.redo_quick(record, character.name, dice, context.limits)
        view: Any = QuickView(done.side, done.spec, done.roll, done.odds, roll_id, changes)
        chance: Fraction | None = done.odds[done.roll.outcome]
    elif kind == "opposed":
        done = redo.redo_opposed(record, character.name, dice, rulings)
        tie_all = bool(record.get("tie_all"))
        view = OpposedView(
            done.sides, done.roll, None, tie_all, roll_id, character.name, done.chances, changes
        )
        winner = "" if done.roll.awarded_to_all else done.roll.winners[0]
        chance = (done.chances or {}).get(winner)
    else:
        done = redo.redo_group(record, character.name, dice, rulings)
        view = GroupView(done.sides, done.roll, done.odds, roll_id, character.name, changes)
        chance = done.odds[done.roll.outcome]
    context.roster.update(spent.character)
    save_state(context, state, replace(state, clock=spent.clock))
    _rewrite_shared(context, record, {**done.record, "roll_id": roll_id})
    return Resolution(kind, view, chance, changes)


def resolve_quick(request: Pool, context: Context, dice: DiceSource) -> Resolution:
    """A quick roll: a die per source (two for 5+), ± Advantage (R-45); no crits.

    It is the GM's call ("pode ser pedido que um jogador faça"): he asks with ``quick
    Kara`` (no sources), and the player then makes that one quick roll in the scene.
    """
    character = roller(context, request.actor, "roll")
    clock = load_state(context).clock
    if scene_mode(clock) == Mode.COMBAT:
        raise RuleViolation("A quick roll is for unstructured play; this scene is combat.")
    asked = context.table(QUICK_TABLE)
    key = character_key(character.name)
    if not request.sources:  # the GM asks (a player's: refused by .who)
        asked.put(key, {"version": ROLL_VERSION, "scene": clock.scene.number})
        return Resolution("quick_asked", QuickAsked(character.name, clock.scene.number))
    if not context.by_gm:
        record = asked.get(key)
        if record is None or record.get("scene") != clock.scene.number:
            raise Forbidden(
                f"A quick roll is the GM's call: he asks for one with [[quick "
                f"{character.name}]], then {character.name}'s player rolls it. Until then, "
                f"[[roll {character.name} ...]]."
            )
        asked.delete(key)
    side = side_of(context, character, request, standard=False)
    spec = QuickSpec(
        tuple(s.dice for s in side.sources), side.spec.advantage, side.spec.disadvantage
    )
    roll = roll_quick(spec, dice, context.limits)
    _remember_shared(context, [character.name], redo.quick_record(side, spec), clock)
    odds = quick_odds(spec)
    return Resolution("quick", QuickView(side, spec, roll, odds), odds[roll.outcome])


def _sides(context: Context, pools: Sequence[Pool], doing: str) -> tuple[Side, ...]:
    """Each roller's side; a player may roll his own characters and the GM's, no other's,
    and only a roll one of his own characters takes part in (the GM's NPCs among
    themselves are the GM's to roll)."""
    sides = []
    own = False
    for pool in pools:
        character: Character = find_character(context, pool.actor, doing)
        record = context.roster.record(character.name)
        if (record.get("owner") and not context.by_gm) or not record.get("approved"):
            character = require_control(context, character.name, doing)
        own = own or bool(record.get("owner"))
        require_in_play(character)
        require_in_scene(context, character)
        sides.append(side_of(context, character, pool))
    if not context.by_gm and not own:
        raise Forbidden(
            f"Only a GM may {doing} between the GM's characters alone; a player's roll "
            "names his own character among them."
        )
    return tuple(sides)


def resolve_opposed(request: Opposed, context: Context, dice: DiceSource) -> Resolution:
    """Most hits wins; those tied for most reroll (R-43), or the GM awards it to all."""
    sides = _sides(context, request.sides, "make an opposed roll")
    rulings = rulings_of(context)
    roll = roll_opposed(
        [(side.name, side.spec) for side in sides], dice, rulings, award_ties_to_all=request.tie_all
    )
    first = tuple(r for r in roll.rounds[0] if r is not None)
    _remember_shared(
        context,
        [side.name for side in sides],
        redo.opposed_record(sides, first, request.tie_all),
        load_state(context).clock,
    )
    odds = cached_opposed_odds(tuple(side.spec for side in sides), rulings)
    chance = None
    if odds is not None and roll.awarded_to_all:
        chance = odds.first_round_tie
    elif odds is not None and len(roll.winners) == 1:
        index = roll.names.index(roll.winners[0])
        chance = odds.first_round[index] if request.tie_all else odds.wins[index]
    return Resolution("opposed", OpposedView(sides, roll, odds, request.tie_all), chance)


def resolve_group(request: Group, context: Context, dice: DiceSource) -> Resolution:
    """Everyone doing the same thing rolls; the most hits counts (R-42 for the Level)."""
    clock = load_state(context).clock
    if scene_mode(clock) == Mode.COMBAT:
        raise RuleViolation(
            "A group roll is judged by the Level table, which is for unstructured play."
        )
    if len(request.members) < 2:
        raise RuleViolation(
            "A group roll is for two or more characters doing the same thing; one character "
            f"makes a standard roll: [[roll {request.members[0].actor} ...]]."
        )
    sides = _sides(context, request.members, "make a group roll")
    rulings = rulings_of(context)
    roll = roll_group([(s.name, s.spec, s.level) for s in sides], dice, rulings)
    _remember_shared(
        context, [side.name for side in sides], redo.group_record(sides, roll.rolls), clock
    )
    odds = group_odds([(s.spec, s.level) for s in sides], rulings)
    return Resolution("group", GroupView(sides, roll, odds), odds[roll.outcome])
