"""The ``stepped`` system as the core sees it: :data:`SYSTEM`, a :class:`referee.system.System`.

This module only assembles: the verbs (parsers of :mod:`.verbs`, resolvers of
:mod:`.handlers`), the sheet (:mod:`.application`), the rulings, the rules value
(races and the scale table, read from the files ``config.toml`` names), the seeding
of a new store from ``characters.toml`` and ``vehicles.toml``, the roster view, the
exact odds the conformance kit checks, and the templates in ``templates/`` beside it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from referee.base.dice import DiceSource
from referee.base.errors import ConfigError
from referee.base.markdown import escape_markdown, format_die, signed
from referee.store.entries import character_key
from referee.system import CampaignFiles, Context, ExampleCampaign, OddsCase, verb
from referee.system.seeding import CHARACTERS_FILE, seed_table

from . import handlers, invariants, odds, verbs, who
from .application import SteppedSheet
from .checks import validate_character
from .combat import AttackKind, plan_damage
from .combat import _wins as wins
from .magic import cast
from .rolls import TraitRoll, execute_plan, plan_trait, roll_trait
from .roster import RosterView, roster_view
from .rulings import Race, Rulings, load_races
from .sheet import character_from_record, character_to_record
from .traits import (
    LADDER,
    Character,
    Kind,
    MagicParameter,
    Stat,
    Technique,
    Weapon,
    WeaponKind,
    die_for_points,
    state_of,
)
from .vehicles import odds as craft_odds
from .vehicles.crafts import (
    Craft,
    Crewed,
    Param,
    Size,
    Vehicle,
    validate_vehicle,
    vehicle_from_record,
    vehicle_to_record,
)
from .vehicles.rolls import _plan_params as plan_params
from .vehicles.rolls import _roll as roll_scaled
from .vehicles.scale import VehicleRules, example_rules, read_scale

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

VEHICLES_NAME = "vehicles.toml"  # vehicle and ship sheets, seeded like characters.toml
SCALE_NAME = "scale.toml"  # the scale table; a campaign's own overrides cells


ORDER_ONLY = ", for the GM to narrate: the order goes by the total"


def format_roll(roll: TraitRoll, ordering: bool = False) -> str:
    """A trait roll on one line: who, what, every die, the wild die, modifiers, the total.

    ``ordering`` marks a roll that only orders (initiative): a critical failure or an
    exceptional success changes nothing there, and the line says so.
    A filter rather than a template macro: it runs for every die of every verdict,
    and a Jinja2 macro call costs several times a Python call.
    """
    parts = [escape_markdown(roll.roller), escape_markdown(roll.label)]
    parts.extend(format_die(die) for die in roll.dice)
    if roll.wild is not None:
        parts.append("wild " + format_die(roll.wild))
    parts.extend(f"{signed(m.value)} ({escape_markdown(m.label)})" for m in roll.modifiers)
    text = " ".join(parts) + f" = **{roll.total}**"
    note = ORDER_ONLY if ordering else ""
    if roll.critical:
        return text + f" (**critical failure**{note})"
    if roll.exceptional:
        return text + f" (**exceptional success**{note})"
    return text


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}.") from error


def load_scale(scale_file: Path, data_dir: Path) -> tuple[Any, dict[Size, int]]:
    """The scale table config.toml names, with the cells data_dir/scale.toml overrides."""
    if not scale_file.is_file():
        raise ConfigError(
            f"No scale table at {scale_file}. Point [campaign] scale at one (referee's "
            "data/scale.toml is the seed's table)."
        )
    scale, wounds = read_scale(_read_toml(scale_file), where=str(scale_file))
    own = data_dir / SCALE_NAME
    if own.is_file() and own.resolve() != scale_file.resolve():
        scale, wounds = read_scale(_read_toml(own), scale, str(own), wounds)
    return scale, wounds


VERBS = (
    verb(
        "roll",
        verbs.parse_roll,
        handlers.resolve_stat,
        verbs.USAGE_OF["roll"],
        form="roll <character> <stat>[+<stat>…] [+N/-N]",
        help="rolls a character's stats (with the wild d6 if named)",
        example="roll Kara agility+perception -1",
        player_options=who.PLAYER_ROLL_OPTIONS,
        gm_options=who.ROLL_OPTIONS,
    ),
    verb(
        "init",
        verbs.parse_init,
        handlers.resolve_initiative,
        verbs.USAGE_OF["init"],
        form="init <name>, <name>, …",
        help="rolls initiative on Perception (Sensors for crafts); highest acts first",
        example="init Kara, Trooper 1, Trooper 2",
        aliases=("initiative",),
    ),
    verb(
        "shoot",
        verbs._attack_parser("shoot"),
        handlers.resolve_attack,
        verbs.USAGE_OF["shoot"],
        form="shoot <attacker> -> <target> [head, arm or leg] [unaware] [subdue] "
        "[with <weapon>] [env N] [+N/-N]",
        help="a ranged attack: hit, defence, damage and soak, with the wound it deals",
        example="shoot Kara -> Trooper 1 head with blaster",
        aliases=("fire", "attack"),
        player_options=who.PLAYER_ATTACK_OPTIONS,
        gm_options=who.SHOOT_OPTIONS,
    ),
    verb(
        "melee",
        verbs._attack_parser("melee"),
        handlers.resolve_attack,
        verbs.USAGE_OF["melee"],
        form="melee <attacker> -> <target> [options as shoot]",
        help="a melee attack: Agility + Endurance to hit, Strength + weapon to wound",
        example="melee Kara -> Trooper 2 subdue with baton",
        aliases=("strike", "hit"),
        player_options=who.PLAYER_ATTACK_OPTIONS,
        gm_options=who.MELEE_OPTIONS,
    ),
    verb(
        "cast",
        verbs.parse_cast,
        handlers.resolve_cast,
        verbs.USAGE_OF["cast"],
        form="cast <character> <technique> [+N/-N]",
        help="casts a technique: the magic die must reach the tier's top face",
        example="cast Kara Telekinesis",
        player_options=who.PLAYER_ROLL_OPTIONS,
        gm_options=who.CAST_OPTIONS,
    ),
    verb(
        "stat",
        verbs.parse_vehicle_stat,
        handlers.resolve_vehicle_stat,
        verbs.USAGE_OF["stat"],
        form="stat <vehicle> <parameter> [vs <opponent>] [+N/-N]",
        help="rolls a vehicle's or ship's parameter with the ordinal d10",
        example="stat Kestrel armour",
        aliases=("param",),
        player_options=who.PLAYER_ROLL_OPTIONS,
        gm_options=who.STAT_OPTIONS,
    ),
    verb(
        "npc",
        verbs.parse_npc,
        handlers.resolve_npc,
        verbs.USAGE_OF["npc"],
        form="npc <name> as <template>, or npc <name>: str N, agi N, end N, per N[, named]",
        help="GM: puts an NPC into play, from a template or inline stats",
        example="npc Bandit: str 2, agi 3, end 2, per 2",
        gm_only="create NPCs",
    ),
    verb(
        "wound",
        verbs._wound_parser("wound"),
        handlers.resolve_wounds,
        verbs.USAGE_OF["wound"],
        form="wound <name> +N (or -N)",
        help="GM: adds (or takes away) wounds",
        example="wound Trooper 1 +1",
        gm_only="change wounds",
    ),
    verb(
        "heal",
        verbs._wound_parser("heal"),
        handlers.resolve_wounds,
        verbs.USAGE_OF["heal"],
        form="heal <name> [N]",
        help="GM: heals every wound, or N",
        example="heal Kara",
        gm_only="change wounds",
    ),
)


class VehicleSheet:
    """A craft's stored record <-> :class:`Vehicle` (crafts come from vehicles.toml)."""

    def from_record(self, record: Mapping[str, Any]) -> Vehicle:
        return vehicle_from_record(record)

    def to_record(self, vehicle: Vehicle) -> dict[str, Any]:
        return vehicle_to_record(vehicle)


class Stepped:
    """Seed 002: stepped dice d4-d20, the wild d6, combat, wounds, magic, vehicles and ships."""

    name = "stepped"
    version = "1"
    description = "stepped dice d4-d20 with the wild d6: combat, wounds, magic, vehicles, ships"
    seed = "seed 002 (RULES.md §1)"
    verbs = VERBS
    sheet = SteppedSheet()
    rulings_type = Rulings
    tables = ("vehicles", "encounters")
    table_sheets: ClassVar[Mapping[str, VehicleSheet]] = {"vehicles": VehicleSheet()}
    named_tables = ("vehicles",)  # crafts are named in tags like characters
    templates = Path(__file__).resolve().parent / "templates"

    def read_rulings(self, table: Mapping[str, Any]) -> Rulings:
        """``[rulings]`` -> :class:`Rulings`; ConfigError naming every bad key or value."""
        return Rulings.from_mapping(table)

    def invariants(self, tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        """Every way the stored state has left the rules (see :mod:`.invariants`)."""
        return invariants.invariants(tables, rules)

    def undo_within_rules(
        self, table: str, before: dict[str, Any] | None, undone: Any, changes: list[list[Any]]
    ) -> Any:
        """A voided tag's undo kept within the rules (see :mod:`.invariants`)."""
        return invariants.undo_within_rules(table, before, undone, changes)

    def load_rules(self, rulings: Rulings, campaign: CampaignFiles) -> VehicleRules:
        """The rulings, the race table and the scale table (R-12) as one rules value."""
        races: dict[str, Race] = {"human": Race("human")}
        races_file = campaign.tables.get("races")
        if races_file is not None and races_file.is_file():
            races = load_races(_read_toml(races_file))
        scale, wounds = load_scale(campaign.tables["scale"], campaign.data_dir)
        return VehicleRules(rulings=rulings, races=races, scale=scale, wounds_survived=wounds)

    def seed_store(self, campaign: CampaignFiles, rules: Any, store: Any) -> None:
        """A new store starts from the sheets shipped in the data folder.

        A GM's NPCs need not keep to the players' budget; player characters must.
        Vehicles are read after characters, so a pilot must be one of them.
        """
        seed_table(
            store,
            campaign.data_dir / CHARACTERS_FILE,
            "character",
            "characters",
            character_from_record,
            character_to_record,
            lambda character, record: (
                validate_character(character, rules) if record.get("kind", "pc") == "pc" else []
            ),
        )
        characters = store.table("characters")

        def check(vehicle: Vehicle, record: Mapping[str, Any]) -> list[str]:
            issues = validate_vehicle(vehicle)
            if vehicle.pilot is not None and character_key(vehicle.pilot) not in characters:
                issues.append(f"The pilot {vehicle.pilot} is not a character of this campaign.")
            return issues

        seed_table(
            store,
            campaign.data_dir / VEHICLES_NAME,
            "vehicle",
            "vehicles",
            vehicle_from_record,
            vehicle_to_record,
            check,
        )

    def end_encounter(self, context: Context) -> bool:
        """Forget an initiative order stored before the core tracker; whether there was one."""
        return handlers.end_encounter(context)

    def roster_view(
        self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]
    ) -> RosterView:
        return roster_view(campaign, tables.get("characters", ()), tables.get("vehicles", ()))

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Any
    ) -> list[tuple[str, ...]]:
        """``referee characters``: a header row, then one row per stored character."""
        rows: list[tuple[str, ...]] = [
            ("name", "kind", "owner", "approved", "state", "wounds", "str agi end per")
        ]
        for record in records:
            character = character_from_record(record["sheet"])
            dice = " ".join(f"d{die_for_points(character.stats[s])}" for s in Stat)
            rows.append(
                (
                    character.name,
                    character.kind.value,
                    str(record.get("owner") or "-"),
                    "yes" if record.get("approved") else "no",
                    state_of(character).value,
                    f"{character.wounds}/{character.wounds_survived}",
                    dice,
                )
            )
        return rows

    def template_helpers(self) -> Mapping[str, Any]:
        return {"roll": format_roll, "ladder": LADDER, "order_only": ORDER_ONLY}

    def odds_cases(self) -> Iterable[OddsCase]:
        return _odds_cases()

    def example_campaign(self) -> ExampleCampaign:
        return ExampleCampaign(
            {
                "characters": (
                    {
                        "name": "Kara Venn",
                        "kind": "pc",
                        "background": "soldier",
                        "named": True,
                        "stats": {"strength": 2, "agility": 3, "endurance": 2, "perception": 2},
                        "weapons": [
                            {"name": "blaster", "kind": "ranged", "damage": "2d6"},
                            {"name": "baton", "kind": "melee", "modifier": 1, "subdue": True},
                        ],
                        "magic": [
                            {
                                "name": "Force",
                                "points": 1,
                                "techniques": [{"name": "Telekinesis", "tier": 4}],
                            }
                        ],
                    },
                    *(
                        {"name": f"Trooper {n}", "kind": "npc", "stats": dict.fromkeys(_STATS, 2)}
                        for n in (1, 2)
                    ),
                ),
                "vehicles": (
                    {
                        "name": "Kestrel",
                        "craft": "ship",
                        "class": "light",
                        "weapon": "d8",
                        "acceleration": "d6",
                        "armour": "d6",
                        "sensors": "d6",
                        "pilot": "Kara Venn",
                    },
                ),
            }
        )


_STATS = ("strength", "agility", "endurance", "perception")


def _odds_cases() -> list[OddsCase]:
    rulings = Rulings()
    rules = example_rules(rulings)
    guard = Character("Guard", Kind.NPC, dict.fromkeys(Stat, 3))
    kara = Character(
        "Kara",
        Kind.PC,
        {Stat.STRENGTH: 2, Stat.AGILITY: 3, Stat.ENDURANCE: 2, Stat.PERCEPTION: 2},
        named=True,
        wounds_survived=3,
        weapons=(Weapon("blaster", WeaponKind.RANGED, 2, 6),),
        magic=(MagicParameter("Force", 3, (Technique("Push", 6),)),),
    )

    def trait(c: Character, stats: tuple[Stat, ...]) -> OddsCase:
        plan = plan_trait(c, stats, rules)
        spec = plan.spec()

        def sample(dice: DiceSource) -> Any:
            roll = roll_trait(c, stats, rules, dice)
            return (roll.total, roll.exceptional, roll.critical)

        label = "+".join(s.value for s in stats)
        return OddsCase(
            f"{c.name} {label}: total, exceptional, critical",
            odds.roll_distribution(spec.sides, spec.named, spec.modifier, rulings, wild=spec.wild),
            sample,
        )

    # The hit contest of an attack, rolled as attack() rolls it (its first two rolls).
    hit_plan = plan_trait(kara, (Stat.AGILITY, Stat.PERCEPTION), rules)
    defence_plan = plan_trait(guard, (Stat.AGILITY,), rules)
    hit = odds.hit_chance(hit_plan.spec(), defence_plan.spec(), rulings)

    def hits(dice: DiceSource) -> bool:
        attack_roll = execute_plan(hit_plan, rulings, dice)
        return wins(attack_roll, execute_plan(defence_plan, rulings, dice), rulings)

    # A cast rolls the magic parameter's die (Force 3 points: d8) with the wild d6.
    cast_chance = odds.cast_chance(odds.RollSpec((8,), True, True), 6, rulings)
    # The seed's example: a named d6 mage, a d4-tier technique on 4+, a d6-tier one on 6
    # only (10/36: R-58's matched wild die and R-2's wild 1 make no success).
    mira = replace(
        kara,
        name="Mira",
        magic=(MagicParameter("Force", 2, (Technique("Push", 4), Technique("Lift", 6))),),
    )

    def seed_cast(technique: str, tier: int) -> OddsCase:
        chance = odds.cast_chance(odds.RollSpec((6,), True, True), tier, rulings)
        return OddsCase(
            f"Mira casts a d{tier}-tier technique with a d6 magic die",
            {True: chance, False: 1 - chance},
            lambda dice: cast(mira, technique, rules, dice).success,
        )

    # The wound contest of an attack: the blaster's 2d6 (wild d6) against Endurance.
    _, damage_plan = plan_damage(AttackKind.RANGED, kara, None, rules)
    soak_plan = plan_trait(guard, (Stat.ENDURANCE,), rules)
    wound = odds.contest_chance(damage_plan.spec(), soak_plan.spec(), rulings)

    def wounds(dice: DiceSource) -> bool:
        damage_roll = execute_plan(damage_plan, rulings, dice)
        return wins(damage_roll, execute_plan(soak_plan, rulings, dice), rulings)

    ship = Vehicle("Kestrel", Craft.SHIP, Size.LIGHT, {Param.SENSORS: 8}, named=True)
    # A Sensors roll with the ordinal d10, planned and rolled as stat_roll does.
    craft_plan = plan_params(Crewed(ship), [Param.SENSORS], (), ordinal=True)
    craft_spec = craft_odds.ScaledSpec((8,), named=True, wild=True, ordinal=True)
    return [
        trait(guard, (Stat.AGILITY,)),
        trait(kara, (Stat.AGILITY, Stat.PERCEPTION)),
        OddsCase("Kara shoots a Guard: hit", {True: hit, False: 1 - hit}, hits),
        OddsCase(
            "Kara casts a d6-tier technique with a d8 magic die",
            {True: cast_chance, False: 1 - cast_chance},
            lambda dice: cast(kara, "Push", rules, dice).success,
        ),
        seed_cast("Push", 4),
        seed_cast("Lift", 6),
        OddsCase(
            "Kara's blaster against a Guard's Endurance: wound",
            {True: wound, False: 1 - wound},
            wounds,
        ),
        OddsCase(
            "a named light ship's Sensors d8 with the ordinal d10",
            craft_odds.total_distribution(craft_spec, rulings),
            lambda dice: roll_scaled(craft_plan, rulings, dice).total,
        ),
    ]


SYSTEM = Stepped()
