"""The ``hits`` GM's verbs: scenes, chapters, the Intermission, Tension, edits, harm, timers.

Every verb here is GM-only (the core refuses a player before it runs, saying why). Each
asks the engine (:mod:`.scene`, :mod:`.xp`, :mod:`.stress`, :mod:`.duels`) and writes
the characters and the campaign state back through the context (see :mod:`.handlers`).

``set`` edits any counter of a character (level, xp, health, stress, wounds,
influence, the attributes, unchosen_levels, advantage, disadvantage), its standing
(active, knockout_pending, knocked_out, dead), Legend (yes/no), saved gains
(``saved tiers 2``) and a trait's Rank (``skill Swordsmanship 3``; 0 takes it off).
Setting the Level recomputes Health (R-40), as the GM's "set Levels directly" does.
"""

from __future__ import annotations

from dataclasses import replace

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import read_int
from referee.system import Context, Resolution
from referee.systems.changes import Change, changes_between, find_name
from referee.systems.roster import find_character

from . import duels, influence, scene, stress, xp
from .handlers import (
    every_character,
    load_state,
    rulings_of,
    save_state,
    scene_mode,
    store_characters,
)
from .play import settle_wagers
from .sheet import (
    EDITABLE,
    MAX_COUNTER,
    Character,
    Standing,
    TraitKind,
    check_character,
    edit_counter,
    with_rank,
    without_trait,
)
from .state import CampaignState
from .tags import ChapterStep, Harm, Intermission, Named, SceneStep, SetValue, Tension, TimerStep
from .views import Award, ChapterView, StepView, shown


def scene_words(state: CampaignState) -> str:
    """The scene as a verdict names it."""
    current = state.clock.scene
    if not current.open:
        return "no scene running"
    return f"scene {current.number}, {current.mode.value}, Tension {current.tension}"


def _clock_step(
    context: Context,
    state: CampaignState,
    result: scene.ClockResult,
    characters: list[Character],
) -> tuple[CampaignState, tuple[Change, ...]]:
    store_characters(context, characters, result.characters)
    after = replace(state, clock=result.clock)
    save_state(context, state, after)
    return after, result.changes


def resolve_scene(request: SceneStep, context: Context, dice: DiceSource) -> Resolution:
    """Start a scene in a mode (ending the running one), or end it: Tension back to 1."""
    state = load_state(context)
    characters = every_character(context)
    if request.mode is None:
        result = scene.end_scene(state.clock, characters)
        action = "The scene ends: Tension back to 1, knocked-out characters return"
    else:
        result = scene.start_scene(state.clock, characters, request.mode)
        action = f"A new {request.mode.value} scene starts at Tension 1"
    after, changes = _clock_step(context, state, result, characters)
    view = StepView(action, changes=shown(changes), scene=scene_words(after))
    return Resolution("step", view, changes=view.changes)


def end_encounter(context: Context) -> StepView | None:
    """The core's ``[[end encounter]]``: the running scene ends (None if none runs)."""
    if not load_state(context).clock.scene.open:
        return None
    return resolve_scene(SceneStep(None), context, _NO_DICE).result


class _NoDice:
    """Ending a scene rolls nothing."""

    def roll(self, sides: int) -> int:
        raise AssertionError("ending a scene rolls no dice")


_NO_DICE = _NoDice()


def resolve_chapter(request: ChapterStep, context: Context, dice: DiceSource) -> Resolution:
    """Start a chapter (+1 Influence to PCs holding none) or end it (XP, Levels)."""
    state = load_state(context)
    characters = every_character(context)
    rulings = rulings_of(context)
    if request.start:
        result = scene.start_chapter(state.clock, characters)
        after, changes = _clock_step(context, state, result, characters)
        view = ChapterView(after.clock.chapter.number, True, changes=shown(changes))
        return Resolution("chapter", view, changes=view.changes)
    ended = xp.end_chapter(state.clock, characters, rulings)
    store_characters(context, characters, ended.characters)
    save_state(context, state, replace(state, clock=ended.clock))
    awards = tuple(
        Award(a.character.name, a.xp, a.levels, a.character.level, a.character.xp)
        for a in ended.awards
        if a.character.player
    )
    view = ChapterView(state.clock.chapter.number, False, awards, shown(ended.changes))
    return Resolution("chapter", view, changes=view.changes)


def resolve_intermission(request: Intermission, context: Context, dice: DiceSource) -> Resolution:
    """Clear the Stress and Wounds of each character taking part (everyone if none named)."""
    characters = every_character(context)
    names = None
    if request.names:
        names = [find_character(context, name).name for name in request.names]
    healed, changes = stress.intermission(characters, names)
    store_characters(context, characters, healed)
    if names:  # the names are the players' words: the template escapes them
        action = "An Intermission clears the Stress and Wounds of those taking part"
        taking_part = ", ".join(names)
    else:
        action, taking_part = "An Intermission clears everyone's Stress and Wounds", ""
    view = StepView(action, "", taking_part, shown(changes))
    return Resolution("step", view, changes=view.changes)


def resolve_tension(request: Tension, context: Context, dice: DiceSource) -> Resolution:
    """Set the scene's Tension (a combat duel then costs 4 − Tension, at least 1)."""
    state = load_state(context)
    result = scene.set_tension(state.clock, request.value, context.limits)
    after, _ = _clock_step(context, state, result, [])
    cost = influence.duel_cost(after.clock.scene.mode, after.clock.scene.tension)
    view = StepView(
        f"Tension {state.clock.scene.tension} → {request.value}; a duel now costs {cost} Influence",
        scene=scene_words(after),
    )
    return Resolution("step", view)


# --------------------------------------------------------------------- characters


def _set(character: Character, key: str, text: str, context: Context) -> Character:
    """``character`` with one value a GM typed set; RuleViolation naming what is allowed."""
    words = key.split()
    head = words[0].casefold()
    if head in {k.value for k in TraitKind} and len(words) > 1:
        kind = TraitKind(head)
        rank = read_int(text, f"the {kind.value}'s Rank", 0, 99)
        name = " ".join(words[1:])
        current = dict((n.casefold(), (n, r)) for n, r in character.traits(kind))
        known, old = current.get(name.casefold(), (name, 0))
        changed = with_rank(character, kind, known, rank - old)
        if rank == 0:
            changed = without_trait(changed, kind, known)
        return check_character(changed)
    if head == "saved" and len(words) == 2:
        which = find_name(words[1], ["tiers", "ranks", "benefits"], "saved gain")
        value = read_int(text, f"saved {which}", 0, MAX_COUNTER)
        return check_character(replace(character, saved=replace(character.saved, **{which: value})))
    choices = [*EDITABLE, "standing", "legend"]
    found = find_name(key, choices, "counter", "counters (and standing, legend)")
    if found == "standing":
        standing = find_name(
            text.replace("_", " "), [s.value.replace("_", " ") for s in Standing], "standing"
        )
        return replace(character, standing=Standing(standing.replace(" ", "_")))
    if found == "legend":
        flag = find_name(text, ["yes", "no"], "answer")
        return replace(character, legend=flag == "yes")
    value = read_int(text, found, 0, MAX_COUNTER)
    if found == "level":
        return xp.set_level(character, value)[0]
    if found == "influence" and value and not character.player:
        raise RuleViolation(f"{character.name} is an NPC; only player characters hold Influence.")
    return edit_counter(character, found, value)


def resolve_set(request: SetValue, context: Context, dice: DiceSource) -> Resolution:
    """The GM edits one value of a character (see the module for what)."""
    character: Character = find_character(context, request.actor)
    after = _set(character, request.key, request.value, context)
    context.roster.update(after)
    changes = changes_between("character", character.name, character, after)
    view = StepView("edited by the GM", character.name, "", shown(changes))
    return Resolution("step", view, changes=view.changes)


def resolve_harm(request: Harm, context: Context, dice: DiceSource) -> Resolution:
    """Stress or Wounds: Influence for a PC (R-25), a knockout at 3 in the scene's mode."""
    character: Character = find_character(context, request.actor)
    state = load_state(context)
    result = stress.take_harm(
        character,
        scene_mode(state.clock),
        stress=request.stress,
        wounds=request.wounds,
        rulings=rulings_of(context),
    )
    after = settle_wagers(character, result.character)
    context.roster.update(after)
    changes = changes_between("character", character.name, character, after)
    action = "takes harm"
    if result.lost is not None:
        action = (
            "is knocked out a second time in the scene: the wager is lost for ever, +3 Influence"
        )
    elif after.standing == Standing.KNOCKOUT_PENDING:
        action = (
            "is being knocked out: the player raises the stakes (`stakes`, wagering a skill, "
            "ability, benefit or life) or takes it (`knockout`)"
        )
    elif after.standing == Standing.KNOCKED_OUT and character.standing != after.standing:
        action = "is knocked out and leaves the scene"
    view = StepView(action, character.name, "", shown(changes))
    return Resolution("step", view, changes=view.changes)


def resolve_legend(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The character becomes a Legend (through a Bond Action): +1 Influence, once."""
    character: Character = find_character(context, request.actor)
    after, changes = influence.become_legend(character)
    context.roster.update(after)
    view = StepView("becomes a Legend (+1 Influence)", character.name, "", shown(changes))
    return Resolution("step", view, changes=view.changes)


# ---------------------------------------------------------------------------- timers


def resolve_timer(request: TimerStep, context: Context, dice: DiceSource) -> Resolution:
    """Create, advance, set, resize or remove a timer (shown to everyone on the roster)."""
    state = load_state(context)
    clock = state.clock
    if request.action != "new" and clock.timers:  # a unique beginning names a timer
        name = find_name(request.name, [t.name for t in clock.timers], "timer")
        request = replace(request, name=name)
    characters: list[Character] = []
    fired_changes: tuple[Change, ...] = ()
    detail = ""
    if request.action == "new":
        result = scene.create_timer(
            clock, request.name, request.number, request.event, limits=context.limits
        )
        action = f"is a new timer of {request.number} segments, shown to everyone"
        detail = request.event
    elif request.action == "advance":
        result = scene.advance_timer(clock, request.name, request.number)
        action = f"advances {request.number} segment{'s' if request.number != 1 else ''}"
    elif request.action == "set":
        result = scene.edit_timer(clock, request.name, filled=request.number)
        action = f"is set to {request.number} filled"
    elif request.action == "size":
        result = scene.edit_timer(clock, request.name, segments=request.number)
        action = f"is resized to {request.number} segments"
    else:
        result = scene.remove_timer(clock, request.name)
        action = "is removed"
    if result.fired:
        doomed = {t.knocks_out for t in result.fired if t.knocks_out}
        characters = [c for c in every_character(context) if c.name in doomed]
        knocked, fired_changes = duels.fire_knockouts(result.fired, characters)
        store_characters(context, characters, knocked)
    save_state(context, state, replace(state, clock=result.clock))
    name = request.name
    standing = next((t for t in result.clock.timers if t.name.casefold() == name.casefold()), None)
    view = StepView(
        action,
        standing.name if standing else name,
        detail,
        shown(fired_changes),
        result.fired,
        standing,
    )
    return Resolution("step", view, changes=view.changes)
