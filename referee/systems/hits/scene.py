"""Scenes, chapters, Tension and timers of ``hits``: the campaign's clock.

A scene has a mode (unstructured play or combat) and a Tension that starts at 1 and
returns to 1 when the scene ends; a new scene starts at a cut, a pause, or a switch of
mode. A chapter keeps every Influence spend (:class:`SpendRecord`), which its end turns
into XP (:mod:`.xp`). Timers have an even number of segments; filling one empties it and
fires its event.

Functions take the current value and return the new one with a change set; nothing here
rolls a die.

>>> started = start_scene(CampaignClock(), (), Mode.COMBAT)
>>> started.clock.scene.mode, started.clock.scene.tension, started.clock.scene.number
(<Mode.COMBAT: 'combat'>, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from referee.base.errors import RuleViolation, UnknownName
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.changes import Change, changes_between

from .sheet import MAX_COUNTER, Character, Standing

START_TENSION = 1
CAMPAIGN = "campaign"  # the name under which the clock's changes are addressed
MAX_TIMERS = 50  # timers one campaign shows at once
MAX_SEGMENTS = 100


class Mode(str, Enum):
    """The two modes of play; a switch between them starts a new scene."""

    UNSTRUCTURED = "unstructured"
    COMBAT = "combat"


class Spend(str, Enum):
    """The universal ways to spend Influence; each is a "way" for chapter XP."""

    ALL_IN = "all_in"  # redo a roll
    LEAVE = "leave"  # a free non-attack action at the end of one's combat turn
    DUEL = "duel"  # start a duel


class TimerKind(str, Enum):
    """The seed's two kinds of timers; they work the same way."""

    STORY = "story"  # any granular task the GM measures
    FIXED = "fixed"  # tied to an ability, with fixed ways to fill it


@dataclass(frozen=True)
class Scene:
    """The current scene; number 0 means none has started yet."""

    number: int = 0
    mode: Mode = Mode.UNSTRUCTURED
    tension: int = START_TENSION
    open: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))


@dataclass(frozen=True)
class SpendRecord:
    """One Influence spend in the chapter (kept when refunded: R-47 counts those too)."""

    character: str
    way: Spend
    cost: int
    refunded: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "way", Spend(self.way))


@dataclass(frozen=True)
class Chapter:
    """The current chapter and every Influence spend in it; number 0 means none yet."""

    number: int = 0
    open: bool = False
    spends: tuple[SpendRecord, ...] = ()


@dataclass(frozen=True)
class Timer:
    """A segmented counter shown to everyone; filling it empties it and fires ``event``."""

    name: str
    segments: int
    filled: int = 0
    event: str = ""  # what happens when it fills, as the GM wrote it
    kind: TimerKind = TimerKind.STORY
    knocks_out: str = ""  # a character this timer knocks out when filled (an NPC resisting)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", TimerKind(self.kind))


@dataclass(frozen=True)
class CampaignClock:
    """Scene, chapter and timers: the per-campaign state that is not a duel or a sheet."""

    scene: Scene = field(default_factory=Scene)
    chapter: Chapter = field(default_factory=Chapter)
    timers: tuple[Timer, ...] = ()


@dataclass(frozen=True)
class ClockResult:
    """A clock step: the new clock, the characters it touched, and what changed."""

    clock: CampaignClock
    characters: tuple[Character, ...]
    changes: tuple[Change, ...]
    fired: tuple[Timer, ...] = ()  # timers that filled (as they stood when full)


def _clock_changes(before: CampaignClock, after: CampaignClock) -> tuple[Change, ...]:
    return changes_between("scene", CAMPAIGN, before.scene, after.scene) + changes_between(
        "chapter", CAMPAIGN, before.chapter, after.chapter
    )


def _leave_scene(character: Character) -> Character:
    """A character as a scene ends: back in play, stakes of the scene settled."""
    standing = character.standing
    if standing in (Standing.KNOCKED_OUT, Standing.KNOCKOUT_PENDING):
        standing = Standing.ACTIVE
    return replace(character, standing=standing, stakes=())


def _step(
    before: CampaignClock,
    after: CampaignClock,
    old: Sequence[Character],
    new: Sequence[Character],
    fired: tuple[Timer, ...] = (),
) -> ClockResult:
    changes = _clock_changes(before, after)
    for a, b in zip(old, new, strict=True):
        changes += changes_between("character", a.name, a, b)
    return ClockResult(after, tuple(new), changes, fired)


def end_scene(clock: CampaignClock, characters: Sequence[Character]) -> ClockResult:
    """End the scene: Tension back to 1, knocked-out characters back, stakes settled."""
    if not clock.scene.open:
        raise RuleViolation("No scene is running; start one first.")
    after = replace(clock, scene=replace(clock.scene, open=False, tension=START_TENSION))
    return _step(clock, after, characters, [_leave_scene(c) for c in characters])


def start_scene(clock: CampaignClock, characters: Sequence[Character], mode: Mode) -> ClockResult:
    """Start a new scene in ``mode`` at Tension 1, ending the running one if any."""
    new = [_leave_scene(c) for c in characters] if clock.scene.open else list(characters)
    scene = Scene(number=clock.scene.number + 1, mode=Mode(mode), open=True)
    return _step(clock, replace(clock, scene=scene), characters, new)


def set_tension(clock: CampaignClock, tension: int, limits: Limits = DEFAULT_LIMITS) -> ClockResult:
    """The GM sets the scene's Tension (it builds during a scene; it is never below 1)."""
    if not clock.scene.open:
        raise RuleViolation("No scene is running; Tension belongs to a scene.")
    if not START_TENSION <= tension <= limits.max_modifier:
        raise RuleViolation(f"Tension is from 1 to {limits.max_modifier}, not {tension}.")
    return _step(clock, replace(clock, scene=replace(clock.scene, tension=tension)), (), ())


def start_chapter(clock: CampaignClock, characters: Sequence[Character]) -> ClockResult:
    """Start a chapter: each player character holding no Influence gains 1."""
    if clock.chapter.open:
        raise RuleViolation(
            f"Chapter {clock.chapter.number} is still running; end it first (that awards XP)."
        )
    chapter = Chapter(number=clock.chapter.number + 1, open=True)
    new = [replace(c, influence=1) if c.player and c.influence == 0 else c for c in characters]
    return _step(clock, replace(clock, chapter=chapter), characters, new)


def record_spend(clock: CampaignClock, record: SpendRecord) -> CampaignClock:
    """The clock with one more Influence spend in the chapter (kept even outside one)."""
    chapter = replace(clock.chapter, spends=(*clock.chapter.spends, record))
    return replace(clock, chapter=chapter)


def find_timer(clock: CampaignClock, name: str) -> Timer:
    """The timer of that name (case-insensitive), or UnknownName listing the timers."""
    for timer in clock.timers:
        if timer.name.casefold() == name.strip().casefold():
            return timer
    known = ", ".join(t.name for t in clock.timers) or "none yet"
    raise UnknownName(f"There is no timer {name!r}; the timers are: {known}.")


def _check_segments(segments: int) -> None:
    if segments < 2 or segments > MAX_SEGMENTS or segments % 2:
        raise RuleViolation(
            f"A timer has an even number of segments from 2 to {MAX_SEGMENTS}, not {segments}."
        )


def create_timer(
    clock: CampaignClock,
    name: str,
    segments: int,
    event: str = "",
    kind: TimerKind = TimerKind.STORY,
    knocks_out: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> ClockResult:
    """A new empty timer, shown to every player; its name must be new."""
    name = name.strip()
    if not name or len(name) > limits.max_name_chars:
        raise RuleViolation(f"A timer needs a name of 1 to {limits.max_name_chars} characters.")
    if len(event) > limits.max_tag_chars:
        raise RuleViolation(f"A timer's event is at most {limits.max_tag_chars} characters.")
    _check_segments(segments)
    if any(t.name.casefold() == name.casefold() for t in clock.timers):
        raise RuleViolation(f"A timer named {name!r} already exists; pick another name.")
    if len(clock.timers) >= MAX_TIMERS:
        raise RuleViolation(f"A campaign shows at most {MAX_TIMERS} timers; remove one first.")
    timer = Timer(name, segments, 0, event, TimerKind(kind), knocks_out)
    after = replace(clock, timers=(*clock.timers, timer))
    return ClockResult(after, (), changes_between("clock", CAMPAIGN, clock, after))


def _replace_timer(clock: CampaignClock, old: Timer, new: Timer | None) -> CampaignClock:
    timers = tuple(t for t in (new if t == old else t for t in clock.timers) if t is not None)
    return replace(clock, timers=timers)


def advance_timer(clock: CampaignClock, name: str, by: int = 1) -> ClockResult:
    """Fill ``by`` segments; a full timer empties and fires (segments past full are lost).

    >>> clock = create_timer(CampaignClock(), "Alarm", 4, "the guards come").clock
    >>> step = advance_timer(clock, "alarm", 5)
    >>> [t.name for t in step.fired], step.clock.timers[0].filled
    (['Alarm'], 0)
    """
    timer = find_timer(clock, name)
    if not 1 <= by <= MAX_SEGMENTS:
        raise RuleViolation(f"A timer advances 1 to {MAX_SEGMENTS} segments at a time, not {by}.")
    filled = timer.filled + by
    fired = (replace(timer, filled=timer.segments),) if filled >= timer.segments else ()
    new = replace(timer, filled=0 if fired else filled)
    after = _replace_timer(clock, timer, new)
    return ClockResult(after, (), changes_between("timer", timer.name, timer, new), fired)


def edit_timer(
    clock: CampaignClock, name: str, *, filled: int | None = None, segments: int | None = None
) -> ClockResult:
    """The GM sets a timer's filled segments or its size (still even; filled stays below)."""
    timer = find_timer(clock, name)
    new = replace(
        timer,
        segments=timer.segments if segments is None else segments,
        filled=timer.filled if filled is None else filled,
    )
    _check_segments(new.segments)
    if not 0 <= new.filled < new.segments:
        raise RuleViolation(
            f"{timer.name} has {new.segments} segments; filled is 0 to {new.segments - 1}."
        )
    after = _replace_timer(clock, timer, new)
    return ClockResult(after, (), changes_between("timer", timer.name, timer, new))


def remove_timer(clock: CampaignClock, name: str) -> ClockResult:
    """Take a timer off the board."""
    timer = find_timer(clock, name)
    after = _replace_timer(clock, timer, None)
    return ClockResult(after, (), changes_between("clock", CAMPAIGN, clock, after))


def check_counter(name: str, value: int) -> None:
    """RuleViolation unless a counter the GM edits is a whole number in range."""
    if not 0 <= value <= MAX_COUNTER:
        raise RuleViolation(f"{name} is from 0 to {MAX_COUNTER}, not {value}.")
