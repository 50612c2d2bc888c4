"""The ``hits`` system as the core sees it: :data:`SYSTEM`, a :class:`referee.system.System`.

This module only assembles: the rulings (:mod:`.rulings`, all in ``[rulings]``), the
verbs (parsers of :mod:`.tags`; resolvers of :mod:`.handlers` for rolls, :mod:`.play`
for a player's choices, :mod:`.gm` for the GM's), the sheet (:mod:`.application`), the
roster view (characters, the scene, the chapter, timers and duels, shown to everyone),
the exact odds the conformance kit checks, and the templates in ``templates/``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from referee.store.records import Undone
from referee.system import (
    CampaignFiles,
    Context,
    ExampleCampaign,
    OddsCase,
    approved_rows,
    verb,
)
from referee.system.base import BaseSystem

from . import gm, handlers, invariants, play, tags, who
from .application import HitsSheet
from .duels import Duel
from .odds_cases import odds_cases
from .rolls import PoolRoll
from .rulings import Rulings
from .scene import Timer
from .sheet import Attribute, Character
from .state import state_from_dict
from .views import StepView, by_character, words


@dataclass(frozen=True)
class HitsRules:
    """What every ``hits`` verb reads of the campaign: its rulings."""

    rulings: Rulings


# Help lists the verbs in this order; the conformance kit resolves their examples in it
# too, so a verb whose example needs a scene (Leave, a duel) comes after ``scene``.
VERBS = (
    verb(
        "roll",
        tags.parse_roll,
        handlers.resolve_roll,
        tags.ROLL_USAGE,
        form="roll <character> <attribute> [+ skill, ability or benefit...] [adv N] [dis N]",
        help="a pool: hits on 4+, a natural 6 explodes; the Level table outside combat",
        example="roll Kara body + Swordsmanship adv 1",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.ROLL_OPTIONS,
    ),
    verb(
        "allin",
        tags.named_parser(tags.ALL_IN_USAGE),
        handlers.resolve_all_in,
        tags.ALL_IN_USAGE,
        aliases=("all", "all-in"),
        form="all in <character>",
        help="1 Influence: the character's last roll is redone once; the new result stands",
        example="all in Kara",
    ),
    verb(
        "quick",
        tags.parse_quick,
        handlers.resolve_quick,
        tags.QUICK_USAGE,
        form="quick <character> <source> [+ <source>...] [adv N] [dis N]",
        help="a quick roll: a die per source (two for 5+), no crits; 0 fail, 1 partial, 2+",
        example="quick Kara body + Swordsmanship",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.QUICK_OPTIONS,
    ),
    verb(
        "opposed",
        tags.parse_opposed,
        handlers.resolve_opposed,
        tags.OPPOSED_USAGE,
        form="opposed <character> <sources> vs <character> <sources> [vs ...] [tie=all]",
        help="most hits wins; those tied for most reroll (a GM's tie=all gives it to all)",
        example="opposed Kara body vs Ogre body",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.OPPOSED_OPTIONS,
    ),
    verb(
        "group",
        tags.parse_group,
        handlers.resolve_group,
        tags.GROUP_USAGE,
        form="group <character> <sources> & <character> <sources> [& ...]",
        help="everyone doing the same thing rolls; the roll with most hits counts",
        example="group Kara mind & Nova mind",
        player_options=who.PLAYER_OPTIONS,
        gm_options=who.GROUP_OPTIONS,
    ),
    verb(
        "scene",
        tags.parse_scene,
        gm.resolve_scene,
        tags.SCENE_USAGE,
        form="scene combat|unstructured|end",
        help="GM: starts a new scene (Tension 1) or ends it; knocked-out characters return",
        example="scene combat",
        gm_only="start or end a scene",
    ),
    verb(
        "tension",
        tags.parse_tension,
        gm.resolve_tension,
        tags.TENSION_USAGE,
        form="tension <N>",
        help="GM: sets the scene's Tension (a combat duel costs 4 − Tension, at least 1)",
        example="tension 2",
        gm_only="set the Tension",
    ),
    verb(
        "leave",
        tags.named_parser(tags.LEAVE_USAGE, note=True),
        play.resolve_leave,
        tags.LEAVE_USAGE,
        form='leave <character> ["what he does"]',
        help="1 Influence: a free non-attack action at the end of one's combat turn",
        example='leave Kara "pulls Nova behind the wall"',
    ),
    verb(
        "duel",
        tags.parse_duel,
        play.resolve_duel,
        tags.DUEL_USAGE,
        form=(
            "duel <character> -> <target> with <sources> [later]; duel <N> roll|withdraw|"
            "accept|resist; duel <N> with <sources>"
        ),
        help="Influence for a duel (1; in combat 4 − Tension); the loser takes Stress or Wounds",
        example="duel Kara -> Ogre with body, Swordsmanship",
        player_options=("later",),
        gm_options=who.DUEL_OPTIONS,
    ),
    verb(
        "stakes",
        tags.parse_stakes,
        play.resolve_stakes,
        tags.STAKES_USAGE,
        form="stakes <character> life | skill|ability|benefit <name>",
        help="instead of a knockout: Stress 2, Health full, something wagered",
        example="stakes Wren skill Lore",
    ),
    verb(
        "knockout",
        tags.named_parser(tags.KNOCKOUT_USAGE),
        play.resolve_knockout,
        tags.KNOCKOUT_USAGE,
        form="knockout <character>",
        help="takes the knockout: the character leaves the scene",
        example="knockout Dax",
    ),
    verb(
        "levelup",
        tags.parse_levelup,
        play.resolve_levelup,
        tags.LEVELUP_USAGE,
        aliases=("level-up",),
        form=(
            "levelup <character> <attribute>, <attribute>[, highest <attribute>]"
            "[, skill|ability|benefit|technique <name>...]"
        ),
        help="one Level's gains; gains not named are saved for Awakening",
        example="levelup Kara body, mind, skill Swordsmanship",
    ),
    verb(
        "awaken",
        tags.parse_awaken,
        play.resolve_awaken,
        tags.AWAKEN_USAGE,
        form="awaken <character> skill|ability|benefit|technique <name>[, ...]",
        help="Awakening: takes saved level-up gains by name",
        example="awaken Kara technique Fire Lance",
    ),
    verb(
        "chapter",
        tags.parse_chapter,
        gm.resolve_chapter,
        tags.CHAPTER_USAGE,
        form="chapter start|end",
        help="GM: starts a chapter (+1 Influence to those with none) or ends it (XP, Levels)",
        example="chapter start",
        gm_only="start or end a chapter",
    ),
    verb(
        "intermission",
        tags.parse_intermission,
        gm.resolve_intermission,
        tags.INTERMISSION_USAGE,
        form="intermission [<character>, <character>...]",
        help="GM: clears the Stress and Wounds of those taking part (everyone by default)",
        example="intermission",
        gm_only="call an Intermission",
    ),
    verb(
        "set",
        tags.parse_set,
        gm.resolve_set,
        tags.SET_USAGE,
        form="set <character> <counter, standing, legend, saved ..., or a trait> <value>",
        help="GM: edits a counter (stress, xp, advantage...), standing, Legend or a trait",
        example="set Kara stress 1",
        gm_only="edit characters",
    ),
    verb(
        "harm",
        tags.parse_harm,
        gm.resolve_harm,
        tags.HARM_USAGE,
        form="harm <character> [stress N] [wounds N]",
        help="GM: Stress or Wounds (Influence for a PC; a knockout at 3)",
        example="harm Ogre wounds 1",
        gm_only="deal Stress and Wounds",
    ),
    verb(
        "timer",
        tags.parse_timer,
        gm.resolve_timer,
        tags.TIMER_USAGE,
        form="timer new <name> <segments> [event] | timer <name> +N | <N> | size <N> | remove",
        help="GM: story timers everyone sees; filling one empties it and fires its event",
        example='timer new Alarm 6 "the guards come"',
        gm_only="create and advance timers",
    ),
    verb(
        "legend",
        tags.named_parser(tags.LEGEND_USAGE),
        gm.resolve_legend,
        tags.LEGEND_USAGE,
        form="legend <character>",
        help="GM: the character becomes a Legend (a Bond Action): +1 Influence",
        example="legend Kara",
        gm_only="make a character a Legend",
    ),
)


@dataclass(frozen=True)
class CharacterRow:
    """One approved character as the roster shows it."""

    name: str
    owner: str | None
    level: int
    xp: int
    attributes: tuple[tuple[str, int], ...]
    health: int
    max_health: int
    stress: int
    wounds: int
    influence: int
    standing: str
    stakes: str
    traits: str  # skills, abilities, benefits... in words
    saved: str
    legend: bool


@dataclass(frozen=True)
class RosterView:
    """What ``roster.md.j2`` receives: the characters and the campaign's shared state."""

    campaign: str
    players: tuple[CharacterRow, ...]
    npcs: tuple[CharacterRow, ...]
    scene: str
    chapter: str
    timers: tuple[Timer, ...]
    duels: tuple[Duel, ...]


SHEET = HitsSheet()


def _traits(character: Character) -> str:
    parts = []
    for field in ("skills", "abilities", "benefits", "techniques", "bonds"):
        found = getattr(character, field)
        if found:
            parts.append(f"{field}: {words(found)}")
    return "; ".join(parts) or "-"


def _row(record: Mapping[str, Any]) -> CharacterRow:
    c: Character = SHEET.from_record(record["sheet"])
    return CharacterRow(
        c.name,
        record.get("owner"),
        c.level,
        c.xp,
        tuple((a.value, c.attribute(a)) for a in Attribute),
        c.health,
        c.max_health,
        c.stress,
        c.wounds,
        c.influence,
        words(c.standing),
        words(c.stakes) if c.stakes else "-",
        _traits(c),
        words(c.saved) + (f", {c.unchosen_levels} Level(s) to choose" if c.unchosen_levels else ""),
        c.legend,
    )


def hits_dice(roll: PoolRoll) -> str:
    """A pool's dice in draw order: hits in bold, a crit marked ``6!``, each wave of
    explosions after ``→``; a face changed by Advantage shows both (``3→4``).

    >>> from referee.base.dice import FixedDice
    >>> from .rolls import PoolSpec, roll_pool
    >>> hits_dice(roll_pool(PoolSpec(4), FixedDice([6, 6, 5, 1, 6, 2, 4])))
    '**6!** **6!** **5** 1 → explodes: **6!** 2 → explodes: **4**'
    """
    waves: list[list[str]] = []
    dice = list(roll.dice)
    size = sum(1 for d in dice if not d.from_crit)
    while dice:
        wave, dice = dice[:size], dice[size:]
        waves.append([_die(d) for d in wave])
        size = sum(d.crit for d in wave)
    if not waves:
        return "no dice"
    return " → explodes: ".join(" ".join(wave) for wave in waves)


def _die(die: Any) -> str:
    face = f"{die.face}→{die.value}" if die.value != die.face else str(die.face)
    face += "!" if die.crit else ""
    return f"**{face}**" if die.hit else face


class Hits(BaseSystem):
    """Seed 004: d6 pools with hits on 4+ and exploding 6s, stress, influence, XP."""

    name = "hits"
    version = "1"
    description = (
        "d6 pools: hits on 4+, exploding 6s, Level table; Stress, Wounds, Influence, duels, XP"
    )
    seed = "seed 004 (RULES.md §5)"
    verbs = VERBS
    sheet = SHEET
    rulings_type = Rulings
    tables = (handlers.STATE_TABLE, handlers.ROLLS_TABLE, handlers.QUICK_TABLE)

    def read_rulings(self, table: Mapping[str, Any]) -> Rulings:
        return Rulings.from_mapping(table)

    def load_rules(self, rulings: Rulings, campaign: CampaignFiles) -> HitsRules:
        return HitsRules(rulings)

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the stored state has left the rules (see :mod:`.invariants`)."""
        return invariants.invariants(tables)

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Undone, changes: list[list[Any]]
    ) -> Undone:
        """A voided tag's undo kept within the rules (see :mod:`.invariants`)."""
        return invariants.undo_within_rules(table, before, undone, changes)

    def end_encounter(self, context: Context) -> StepView | None:
        """The core's ``[[end encounter]]`` ends the running scene."""
        return gm.end_encounter(context)

    def roster_view(
        self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> RosterView:
        players, npcs = approved_rows(tables.get("characters", ()), _row)
        stored = list(tables.get(handlers.STATE_TABLE, ()))
        state = state_from_dict(stored[0]) if stored else None
        scene = "No scene is running."
        chapter = "No chapter has started."
        timers: tuple[Timer, ...] = ()
        duels: tuple[Duel, ...] = ()
        if state is not None:
            current = state.clock.scene
            if current.open:
                scene = f"Scene {current.number}: {current.mode.value}, Tension {current.tension}."
            elif current.number:
                scene = f"Scene {current.number} has ended; no scene is running."
            number = state.clock.chapter.number
            if number:
                chapter = f"Chapter {number}" + (
                    " is running." if state.clock.chapter.open else " has ended."
                )
            timers, duels = state.clock.timers, state.duels.duels
        return RosterView(
            campaign,
            players,
            npcs,
            scene,
            chapter,
            timers,
            duels,
        )

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: HitsRules
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row per stored character."""
        rows: list[tuple[str, ...]] = [
            (
                "name",
                "kind",
                "owner",
                "approved",
                "level",
                "xp",
                "attributes",
                "health",
                "stress",
                "wounds",
                "influence",
                "standing",
                "traits",
            )
        ]
        for record in records:
            c: Character = self.sheet.from_record(record["sheet"])
            rows.append(
                (
                    c.name,
                    "pc" if c.player else "npc",
                    str(record.get("owner") or "-"),
                    "yes" if record.get("approved") else "no",
                    str(c.level),
                    str(c.xp),
                    " ".join(f"{a.value} {c.attribute(a)}" for a in Attribute),
                    f"{c.health}/{c.max_health}",
                    str(c.stress),
                    str(c.wounds),
                    str(c.influence),
                    words(c.standing),
                    _traits(c),
                )
            )
        return rows

    def template_helpers(self) -> Mapping[str, Any]:
        return {"hits_dice": hits_dice, "by_character": by_character}

    def odds_cases(self) -> Iterable[OddsCase]:
        return odds_cases()

    def example_campaign(self) -> ExampleCampaign:
        return ExampleCampaign(
            {
                "characters": (
                    {
                        "name": "Kara",
                        "kind": "pc",
                        "primary": "body",
                        "secondary": "mind",
                        "influence": 5,
                        "xp": 8,
                        "unchosen_levels": 1,
                        "saved": {"tiers": 2},
                        "skills": {"Swordsmanship": 2},
                        "benefits": {"Fearless": 1},
                        "techniques": {"Fire Lance": 1},
                    },
                    {"name": "Nova", "kind": "pc", "primary": "mind", "secondary": "spirit"},
                    {
                        "name": "Dax",
                        "kind": "pc",
                        "primary": "talent",
                        "secondary": "body",
                        "stress": 3,
                        "standing": "knockout_pending",
                    },
                    {
                        "name": "Wren",
                        "kind": "pc",
                        "primary": "spirit",
                        "secondary": "mind",
                        "stress": 3,
                        "standing": "knockout_pending",
                        "skills": {"Lore": 1},
                    },
                    {
                        "name": "Ogre",
                        "kind": "npc",
                        "level": 2,
                        "body": 5,
                        "talent": 2,
                        "spirit": 1,
                        "mind": 1,
                    },
                )
            }
        )


SYSTEM = Hits()
