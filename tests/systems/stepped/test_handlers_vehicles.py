"""Vehicle tags through resolve: the stat verb, mixed initiative, attacks, the store."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import ConfigError, RuleViolation
from referee.store.entries import character_key
from referee.system import Context
from referee.systems.stepped import vehicles
from referee.systems.stepped.system import SYSTEM
from referee.systems.stepped.verbs import VehicleStat
from referee.testing import parse, resolve_tag, sheet, tag_context

SHEETS = [sheet("Kara Venn"), sheet("Trooper 1", kind="npc")]
SPEEDER = {
    "name": "Speeder 1",
    "craft": "vehicle",
    "class": "light",
    "pilot": "Kara Venn",
    "weapon": "d6",
    "speed": "d10",
    "armour": 0,
    "sensors": 0,
}
CRAWLER = {
    "name": "Dune Crawler",
    "craft": "vehicle",
    "class": "heavy",
    "weapon": "d12",
    "speed": "d4",
    "armour": "d12",
    "sensors": "d6",
}
KESTREL = {
    "name": "Kestrel",
    "craft": "ship",
    "class": "light",
    "weapon": "d10",
    "acceleration": "d6",
    "armour": "d8",
    "sensors": "d6",
}


def _context(campaign) -> Context:
    table = campaign.store.table("vehicles")
    for record in (SPEEDER, CRAWLER, KESTREL):
        table.put(
            character_key(record["name"]),
            {"name": record["name"], "owner": None, "approved": True, "sheet": record},
        )
    return tag_context(campaign)


def _resolve(context: Context, text: str, dice: list[int]):
    return resolve_tag(context, text, FixedDice(dice))


def test_stat_tag_parses_name_parameter_opponent_and_modifier() -> None:
    """[[stat Dune Crawler weapon power vs Kestrel +2]] keeps the two-word parameter."""
    expected = VehicleStat("Dune Crawler", "weapon power", "Kestrel", 2)
    assert expected == parse("stat Dune Crawler weapon power vs Kestrel +2", SYSTEM)


def test_stat_roll_of_a_heavy_vehicle_multiplies_its_d12(open_campaign) -> None:
    """Armour d12 showing 7 with a d10 of 4 is 28, as a vehicle_stat verdict."""
    resolution = _resolve(_context(open_campaign(SHEETS)), "stat Dune Crawler armour", [7, 4])
    assert ("vehicle_stat", 28) == (resolution.kind, resolution.result.roll.total)


def test_pilot_stands_in_through_the_roster(open_campaign) -> None:
    """Speeder 1's Sensors 0 rolls its pilot Kara's Perception d8 with the ordinal."""
    resolution = _resolve(_context(open_campaign(SHEETS)), "stat Speeder 1 sensors", [5, 2, 3])
    part = resolution.result.roll.parts[0]
    assert (8, "sensors (Kara Venn's perception)") == (part.die.sides, part.label)


def test_character_init_is_unchanged_and_mixed_init_goes_to_vehicles(open_campaign) -> None:
    """Only an init naming a vehicle takes the vehicle path; both record the order."""
    context = _context(open_campaign(SHEETS))
    plain = _resolve(context, "init Kara Venn, Trooper 1", [3, 1, 2])
    mixed = _resolve(context, "init Dune Crawler, Trooper 1", [6, 10, 2])
    assert ("initiative", "vehicle_initiative", [("Dune Crawler",), ("Trooper 1",)]) == (
        plain.kind,
        mixed.kind,
        [turn.names for turn in mixed.tracker.tracker.groups],
    )


def test_a_ship_wounds_a_heavy_vehicle_and_the_store_keeps_it(open_campaign) -> None:
    """Kestrel hits the crawler's plain Speed and beats its Armour; R-61: one wound destroys."""
    campaign = open_campaign(SHEETS)
    context = _context(campaign)
    # hit: accel 6|9=69 + sensors 6|9=69 vs speed 1; damage d10 10|9 = 109 vs d12 1 x 1 = 1
    resolution = _resolve(context, "shoot Kestrel -> Dune Crawler", [6, 6, 9, 9, 1, 10, 9, 1, 1])
    stored = campaign.store.table("vehicles").get("dune crawler")["sheet"]
    change = resolution.changes[0]
    assert (True, 1, "intact", "destroyed") == (
        resolution.result.wounded,
        stored["wounds"],
        change.state_before,
        change.state_after,
    )


def test_infantry_wound_on_a_character_is_stored_as_a_character(open_campaign) -> None:
    """A speeder's wound on a trooper kills him in the characters table."""
    campaign = open_campaign(SHEETS)
    context = _context(campaign)
    # hit: speed d10 9 + Kara's perception d8 8 = 17 vs agility 1; damage d6 6|5=65 vs end 1
    resolution = _resolve(context, "shoot Speeder 1 -> Trooper 1", [9, 8, 1, 6, 5, 1])
    assert ("dead", 1) == (
        resolution.changes[0].state_after,
        campaign.store.table("characters").get("trooper 1")["sheet"]["wounds"],
    )


def test_a_character_name_cannot_take_the_stat_verb(open_campaign) -> None:
    """[[stat Kara ...]] points the player at [[roll]]."""
    with pytest.raises(RuleViolation, match="roll a character's stats"):
        _resolve(_context(open_campaign(SHEETS)), "stat Kara Venn armour", [1])


def test_campaign_seeds_vehicles_and_reads_a_scale_override(open_campaign, tmp_path) -> None:
    """data/vehicles.toml fills the store; data/scale.toml overrides one cell of the table."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "vehicles.toml").write_text(
        '[[vehicle]]\nname = "Dune Crawler"\ncraft = "vehicle"\nclass = "heavy"\n'
        'weapon = "d12"\nspeed = "d4"\narmour = "d12"\nsensors = "d6"\n',
        encoding="utf-8",
    )
    (data / "scale.toml").write_text(
        "[ship]\nheavy_vehicle = { armour = false }\n", encoding="utf-8"
    )
    campaign = open_campaign(SHEETS)
    scale = campaign.rules.scale
    assert (["dune crawler"], False, True) == (
        list(campaign.store.table("vehicles").keys()),
        scale.ordinal(
            vehicles.ScaleKind.SHIP, vehicles.ScaleKind.HEAVY_VEHICLE, vehicles.ScaleRoll.ARMOUR
        ),
        scale.ordinal(
            vehicles.ScaleKind.SHIP, vehicles.ScaleKind.HEAVY_VEHICLE, vehicles.ScaleRoll.ATTACK
        ),
    )


def test_campaign_refuses_an_illegal_vehicle_sheet(open_campaign, tmp_path) -> None:
    """A vehicle sheet over its budget stops the campaign with the problem in words."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "vehicles.toml").write_text(
        '[[vehicle]]\nname = "Bike"\ncraft = "vehicle"\nclass = "light"\nspeed = "d20"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="so 2 are over"):
        open_campaign(SHEETS)


def test_a_standing_in_pilots_race_and_pain_count(open_campaign) -> None:
    """Kara (miraluka, 1 wound) stands in for Sensors: 5|2 = 52, +2 race, -1 wound = 53."""
    sheets = [sheet("Kara Venn", race="miraluka", wounds=1), sheet("Trooper 1", kind="npc")]
    resolution = _resolve(_context(open_campaign(sheets)), "stat Speeder 1 sensors", [5, 2, 3])
    roll = resolution.result.roll
    assert (53, [("Kara Venn's race", 2), ("Kara Venn's 1 wound", -1)]) == (
        roll.total,
        [(m.label, m.value) for m in roll.modifiers],
    )


def test_a_standing_in_pilots_personal_trait_counts_like_his_race(open_campaign) -> None:
    """Kara's Keen eyes (+1 perception) follows her stat into Sensors: 5|2 = 52, +1 = 53."""
    keen = [{"name": "Keen eyes", "modifiers": {"perception": 1}}]
    sheets = [sheet("Kara Venn", traits=keen), sheet("Trooper 1", kind="npc")]
    resolution = _resolve(_context(open_campaign(sheets)), "stat Speeder 1 sensors", [5, 2, 3])
    roll = resolution.result.roll
    assert (53, [("Kara Venn's Keen eyes", 1)]) == (
        roll.total,
        [(m.label, m.value) for m in roll.modifiers],
    )


def test_a_crafts_own_parameter_ignores_the_pilots_race_and_pain(open_campaign) -> None:
    """Speeder 1's own Speed d10 rolls as it is, whoever pilots it: 7|3 = 73."""
    sheets = [sheet("Kara Venn", race="miraluka", wounds=1), sheet("Trooper 1", kind="npc")]
    resolution = _resolve(_context(open_campaign(sheets)), "stat Speeder 1 speed", [7, 3])
    assert (73, ()) == (resolution.result.roll.total, resolution.result.roll.modifiers)
