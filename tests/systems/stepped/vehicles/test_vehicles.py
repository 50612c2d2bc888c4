"""Vehicle and ship rules: sheets, the ordinal d10, the scale table, combat, dice for dice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import ConfigError, RuleViolation, UnknownName, UserError
from referee.systems.stepped import AttackKind, Character, Kind, Location, Stat, Weapon, WeaponKind
from referee.systems.stepped.vehicles import (
    Craft,
    Crewed,
    Param,
    ScaleKind,
    ScaleRoll,
    Size,
    Vehicle,
    VehicleRules,
    VehicleState,
    attack,
    initiative,
    read_scale,
    scale_kind,
    stat_roll,
    validate_vehicle,
    vehicle_from_record,
    vehicle_state,
    vehicle_to_record,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCALE_FILE = Path(__file__).resolve().parents[4] / "data" / "scale.toml"
DOCUMENT = tomllib.loads(SCALE_FILE.read_text(encoding="utf-8"))
SCALE, WOUNDS = read_scale(DOCUMENT)
RULES = VehicleRules(scale=SCALE, wounds_survived=WOUNDS)

INF, L, M, H, S = (
    ScaleKind.INFANTRY,
    ScaleKind.LIGHT_VEHICLE,
    ScaleKind.MEDIUM_VEHICLE,
    ScaleKind.HEAVY_VEHICLE,
    ScaleKind.SHIP,
)
VEHICLES = (L, M, H)
A, HD, D, AR, SP, SE = (
    ScaleRoll.ATTACK,
    ScaleRoll.HIT_DEFENCE,
    ScaleRoll.DAMAGE,
    ScaleRoll.ARMOUR,
    ScaleRoll.SPEED,
    ScaleRoll.SENSORS,
)


def bike(**fields) -> Vehicle:
    values = {
        "name": "Bike",
        "craft": Craft.VEHICLE,
        "size": Size.LIGHT,
        "dice": {Param.WEAPON: 6, Param.SPEED: 8, Param.ARMOUR: 4, Param.SENSORS: 0},
    }
    values.update(fields)
    return Vehicle(**values)


def ship(size: Size = Size.LIGHT, **dice) -> Vehicle:
    base = {Param.WEAPON: 10, Param.ACCELERATION: 6, Param.ARMOUR: 8, Param.SENSORS: 6}
    return Vehicle("Kestrel", Craft.SHIP, size, {**base, **dice})


TANK = Vehicle(
    "Tank",
    Craft.VEHICLE,
    Size.HEAVY,
    {Param.WEAPON: 12, Param.SPEED: 4, Param.ARMOUR: 12, Param.SENSORS: 6},
)
DAX = Character(
    "Dax",
    Kind.PC,
    {Stat.STRENGTH: 3, Stat.AGILITY: 2, Stat.ENDURANCE: 2, Stat.PERCEPTION: 2},
    named=True,
    wounds_survived=3,
    weapons=(Weapon("blaster", WeaponKind.RANGED, 2, 6),),
)
GUARD = Character(
    "Guard", Kind.NPC, dict.fromkeys(Stat, 2), weapons=(Weapon("carbine", WeaponKind.RANGED, 2, 6),)
)

# ---------------------------------------------------------------------------- sheets


def test_a_legal_light_vehicle_has_no_problems() -> None:
    """Speed d8 (2 above the free d4) and Armour d4 spend a light vehicle's 3 points."""
    assert [] == validate_vehicle(bike())


@pytest.mark.parametrize(
    ("vehicle", "expected"),
    [
        (
            bike(dice={Param.WEAPON: 6, Param.SPEED: 0, Param.ARMOUR: 8, Param.SENSORS: 4}),
            ["Speed is 0, but a light vehicle starts with Speed d4; it cannot be lower."],
        ),
        (
            bike(size=Size.MEDIUM),
            [
                "The parameters spend 3 points above the free ones (Speed d4); a medium vehicle "
                "has 5, so 2 are unspent."
            ],
        ),
        (
            bike(dice={Param.WEAPON: 6, Param.SPEED: 20, Param.ARMOUR: 4, Param.SENSORS: 0}),
            [
                "The parameters spend 6 points above the free ones (Speed d4); a light vehicle "
                "has 3, so 3 are over."
            ],
        ),
        (
            ship(Size.LIGHT, **{Param.ARMOUR: 10, Param.SENSORS: 4}),
            ["Armour is d10; a light ship's Armour may be at most d8."],
        ),
        (
            ship(Size.HEAVY, **{Param.ACCELERATION: 10, Param.ARMOUR: 12, Param.SENSORS: 4}),
            ["Acceleration is d10; a heavy ship's Acceleration may be at most d8."],
        ),
        (
            ship(Size.LIGHT, **{Param.ACCELERATION: 4, Param.ARMOUR: 8, Param.SENSORS: 8}),
            [
                "Acceleration is d4, but a light ship starts with Acceleration d6; it cannot be "
                "lower."
            ],
        ),
        (
            bike(
                dice={
                    Param.WEAPON: 6,
                    Param.SPEED: 8,
                    Param.ARMOUR: 4,
                    Param.SENSORS: 0,
                    Param.ACCELERATION: 6,
                }
            ),
            [
                "A vehicle has no Acceleration; its parameters are Weapon power, Speed, Armour "
                "and Sensors."
            ],
        ),
    ],
)
def test_validation_names_each_problem(vehicle: Vehicle, expected: list[str]) -> None:
    """Defaults (R-8, ships' d4/d6), budgets, caps and parameters are each reported in words."""
    assert expected == validate_vehicle(vehicle)


def test_ship_defaults_are_free() -> None:
    """A medium ship with d4 everywhere but d12 Armour (4 points) and d6 Sensors (1) is legal."""
    medium = Vehicle(
        "Hauler",
        Craft.SHIP,
        Size.MEDIUM,
        {Param.WEAPON: 8, Param.ACCELERATION: 4, Param.ARMOUR: 12, Param.SENSORS: 6},
    )
    assert [] == validate_vehicle(medium)


def test_records_round_trip() -> None:
    """A sheet record reads back to the same vehicle, the pilot and 0s included."""
    vehicle = bike(named=True, pilot="Dax", wounds_survived=1, wounds=1)
    assert vehicle == vehicle_from_record(vehicle_to_record(vehicle))


def test_unreadable_record_lists_every_problem() -> None:
    """A bad craft, a non-die parameter and an unknown field are all reported at once."""
    with pytest.raises(UserError) as caught:
        vehicle_from_record(
            {"name": "X", "craft": "boat", "class": "light", "armour": "d7", "shields": "d6"}
        )
    assert 3 == caught.value.message.count("\n- ")


# ----------------------------------------------------------- the ordinal d10


@pytest.mark.parametrize(
    ("sides", "dice", "expected"),
    [
        (4, [1, 10], 10),  # the lowest a d4 parameter gives
        (4, [4, 9], 49),  # the highest
        (10, [10, 9], 109),  # d10: 10-109
        (10, [1, 10], 10),
        (12, [7, 4], 28),  # d12 multiplies
        (12, [12, 10], 120),  # the d10 reads 10 in a product
        (20, [3, 1], 3),
    ],
)
def test_ordinal_composition(sides: int, dice: list[int], expected: int) -> None:
    """d4-d10 are tens and the d10 units (10 reads 0); d12 and d20 multiply by 1-10."""
    tank = Crewed(Vehicle("T", Craft.VEHICLE, Size.HEAVY, {Param.ARMOUR: sides}))
    assert expected == stat_roll(tank, Param.ARMOUR, RULES, FixedDice(dice)).roll.total


def test_wild_die_replaces_the_face_before_the_ordinal() -> None:
    """R-11: a named d4 showing 2 with a wild 6 and a d10 of 3 is worth 63, exceptional never."""
    named = Crewed(bike(named=True))
    roll = stat_roll(named, Param.ARMOUR, RULES, FixedDice([2, 6, 3])).roll
    assert (63, 6, False, False) == (
        roll.total,
        roll.parts[0].face,
        roll.parts[0].die.kept,
        roll.exceptional,
    )


def test_pilot_stands_in_for_a_parameter_at_zero() -> None:
    """R-9: Sensors 0 rolls the pilot's Perception die (d6 for 2 points), still with the ordinal."""
    roll = stat_roll(Crewed(bike(), DAX), Param.SENSORS, RULES, FixedDice([5, 2])).roll
    assert ((6,), 52, "sensors (Dax's perception)") == (
        tuple(p.die.sides for p in roll.parts),
        roll.total,
        roll.parts[0].label,
    )


@pytest.mark.parametrize(
    ("param", "stat"),
    [
        (Param.SPEED, Stat.AGILITY),
        (Param.ARMOUR, Stat.ENDURANCE),
        (Param.SENSORS, Stat.PERCEPTION),
        (Param.WEAPON, Stat.STRENGTH),
    ],
)
def test_every_stand_in_of_r9(param: Param, stat: Stat) -> None:
    """Each parameter at 0 uses its R-9 stat: a pilot with 4 points there rolls a d10."""
    empty = Vehicle("Hulk", Craft.VEHICLE, Size.LIGHT, {p: 0 for p in Param})
    pilot = Character("P", Kind.NPC, {**dict.fromkeys(Stat, 1), stat: 4})
    roll = stat_roll(Crewed(empty, pilot), param, RULES, FixedDice([1, 1])).roll
    assert 10 == roll.parts[0].die.sides


def test_no_pilot_and_no_parameter_is_refused() -> None:
    """A parameter at 0 with nobody flying says who must fix it."""
    with pytest.raises(RuleViolation, match="no Sensors of its own and no pilot"):
        stat_roll(Crewed(bike()), Param.SENSORS, RULES, FixedDice([1, 1]))


def test_a_ship_has_no_speed_but_acceleration() -> None:
    """A ship's stat roll of Speed is refused with its real parameters named."""
    with pytest.raises(UnknownName, match="Acceleration"):
        stat_roll(Crewed(ship()), Param.SPEED, RULES, FixedDice([1]))


# ------------------------------------------------------------------------ the scale table

SEED_CELLS = [
    # infantry attacking a medium or heavy vehicle: its hit defence drops the ordinal
    (INF, M, HD, False),
    (INF, H, HD, False),
    (INF, L, HD, True),
    # ship against vehicle: the ship adds the ordinal to its attack and armour
    *[(S, v, A, True) for v in VEHICLES],
    *[(S, v, D, True) for v in VEHICLES],
    *[(v, S, AR, True) for v in VEHICLES],
    # vehicle against ship: drops it from attack and armour...
    *[(v, S, A, False) for v in VEHICLES],
    *[(v, S, D, False) for v in VEHICLES],
    (S, L, AR, False),
    (S, M, AR, False),
    # ...a heavy vehicle also from speed and sensors, but keeps it on armour (reading A)
    (H, S, SP, False),
    (H, S, SE, False),
    (S, H, HD, False),
    (S, H, AR, True),
    (L, S, SP, True),
    (L, S, SE, True),
    (M, S, SP, True),
    (M, S, SE, True),
    (S, L, HD, True),
    (S, M, HD, True),
    # the ship's own rolls stay plain otherwise (ship parameters are 1d4-1d20)
    *[(v, S, HD, False) for v in VEHICLES],
    *[(S, v, SP, False) for v in VEHICLES],
    *[(S, v, SE, False) for v in VEHICLES],
    # vehicles among themselves: the ordinal everywhere
    *[(a, d, r, True) for a in VEHICLES for d in VEHICLES for r in ScaleRoll],
    # ship against ship and infantry against infantry: plain dice
    *[(S, S, r, False) for r in ScaleRoll],
    *[(INF, INF, r, False) for r in ScaleRoll],
]


@pytest.mark.parametrize(("attacker", "defender", "roll", "expected"), SEED_CELLS)
def test_every_cell_the_seed_defines(attacker, defender, roll, expected) -> None:
    """data/scale.toml holds what seed 002 says for this (attacker, defender, roll)."""
    assert expected == SCALE.ordinal(attacker, defender, roll)


def test_the_shipped_table_fills_every_cell() -> None:
    """Reading data/scale.toml without a base succeeds: all 5 x 5 x 6 cells are there."""
    cells = {(a, d, r) for a in ScaleKind for d in ScaleKind for r in ScaleRoll}
    assert cells >= SCALE.ordinal_cells and len(cells) == 150


def test_a_campaign_overrides_single_cells() -> None:
    """Reading B of the heavy-vehicle sentence is one override cell; the rest stands."""
    override = {
        "ship": {"heavy_vehicle": {"armour": False}},
        "rulings": {"wounds_survived": {"heavy": 3}},
    }
    scale, wounds = read_scale(override, SCALE, base_wounds=WOUNDS)
    assert (False, True, 3, 0) == (
        scale.ordinal(S, H, AR),
        scale.ordinal(S, H, A),
        wounds[Size.HEAVY],
        wounds[Size.MEDIUM],
    )


def test_a_broken_scale_file_lists_every_problem() -> None:
    """Unknown kinds, unknown rolls and non-booleans are each named."""
    with pytest.raises(ConfigError) as caught:
        read_scale({"tank": {}, "ship": {"ship": {"shields": True, "attack": "yes"}}}, SCALE)
    assert 3 == caught.value.message.count("\n- ")


def test_an_incomplete_table_is_refused_without_a_base() -> None:
    """The shipped table must fill every cell."""
    with pytest.raises(ConfigError, match="cells are missing"):
        read_scale({"ship": {"ship": {"attack": False}}})


def test_scale_kinds() -> None:
    """Characters are infantry; vehicles by class; every ship is a ship."""
    assert [INF, H, S] == [scale_kind(DAX), scale_kind(Crewed(TANK)), scale_kind(Crewed(ship()))]


# ------------------------------------------------------------------------------- combat


def test_vehicle_against_vehicle_dice_for_dice() -> None:
    """Speed+Sensors vs Speed, Weapon power vs Armour, every roll with the ordinal."""
    target = Crewed(bike(dice={Param.WEAPON: 6, Param.SPEED: 8, Param.ARMOUR: 4, Param.SENSORS: 4}))
    # hit: d4 speed 3|5 = 35, d6 sensors 4|2 = 42 -> 77; defence d8 6|1 = 61
    # damage: d12 7 x 7 = 49; armour d4 2|9 = 29
    result = attack(
        AttackKind.RANGED, Crewed(TANK), target, RULES, FixedDice([3, 4, 5, 2, 6, 1, 7, 7, 2, 9])
    )
    assert (77, 61, 49, 29, True, VehicleState.DESTROYED) == (
        result.hit_roll.total,
        result.defence_roll.total,
        result.damage_roll.total,
        result.armour_roll.total,
        result.wounded,
        vehicle_state(result.target_after.vehicle, RULES),
    )


def test_infantry_hits_a_heavy_vehicle_on_its_plain_speed() -> None:
    """Agility + Perception against the tank's plain d4 Speed; the armour keeps the ordinal."""
    # hit d6 4 + d6 3 + wild 1 = 7 vs speed 2; damage 2d6 6,5 + wild 2 = 11 vs d12 1 x 10 = 10
    result = attack(
        AttackKind.RANGED, DAX, Crewed(TANK), RULES, FixedDice([4, 3, 1, 2, 6, 5, 2, 1, 10])
    )
    assert (7, 2, False, 10, True, 1) == (
        result.hit_roll.total,
        result.defence_roll.total,
        result.defence_roll.ordinal,
        result.armour_roll.total,
        result.wounded,
        result.target_after.vehicle.wounds,
    )


def test_a_vehicle_strafes_a_man_with_plain_hit_and_ordinal_damage() -> None:
    """Ruling: against infantry the hit roll is plain, the Weapon power keeps the ordinal."""
    # hit speed d8 5 + sensors (Dax's perception d6) 2 = 7 vs guard agility d6 3;
    # damage d6 1|0 = 10 vs endurance d6 6
    result = attack(
        AttackKind.RANGED, Crewed(bike(), DAX), GUARD, RULES, FixedDice([5, 2, 3, 1, 10, 6])
    )
    assert (7, True, 10, True, "dead") == (
        result.hit_roll.total,
        result.hit,
        result.damage_roll.total,
        result.wounded,
        result.target_after and "dead" if result.target_after.wounds else "alive",
    )


def test_ship_against_heavy_vehicle_reading_a() -> None:
    """Ship on heavy vehicle: hit and damage gain the ordinal; Speed drops it, Armour keeps it."""
    result = attack(
        AttackKind.RANGED,
        Crewed(ship()),
        Crewed(TANK),
        RULES,
        FixedDice([1, 1, 1, 1, 4, 1, 1, 1, 1]),
    )
    assert (True, False, True, True) == (
        result.hit_roll.ordinal,
        result.defence_roll.ordinal,
        result.damage_roll.ordinal,
        result.armour_roll.ordinal,
    )


def test_heavy_vehicle_against_ship_rolls_plain_but_the_ship_armour() -> None:
    """A vehicle's attack on a ship is plain; the ship's Armour carries the ordinal."""
    result = attack(
        AttackKind.RANGED, Crewed(TANK), Crewed(ship()), RULES, FixedDice([4, 6, 1, 12, 1, 1])
    )
    assert (False, False, False, True) == (
        result.hit_roll.ordinal,
        result.defence_roll.ordinal,
        result.damage_roll.ordinal,
        result.armour_roll.ordinal,
    )


def test_ship_against_ship_is_plain_dice() -> None:
    """Two ships fight like infantry: no ordinal anywhere."""
    result = attack(
        AttackKind.RANGED,
        Crewed(ship()),
        Crewed(replace_name(ship(), "Hawk")),
        RULES,
        FixedDice([6, 6, 1, 10, 1]),
    )
    assert (12, 1, 10, 1, True) == (
        result.hit_roll.total,
        result.defence_roll.total,
        result.damage_roll.total,
        result.armour_roll.total,
        result.wounded,
    )


def replace_name(vehicle: Vehicle, name: str) -> Vehicle:
    from dataclasses import replace

    return replace(vehicle, name=name)


def test_every_craft_falls_at_its_first_wound_unless_its_sheet_says() -> None:
    """R-61: a craft of any class is destroyed by one wound; a sheet's 2 survives two."""
    from referee.systems.stepped.vehicles import damage

    states = [
        vehicle_state(damage(Vehicle("V", Craft.VEHICLE, size, {}, **sheet), wounds, RULES), RULES)
        for size, wounds, sheet in (
            (Size.LIGHT, 1, {}),
            (Size.MEDIUM, 1, {}),
            (Size.HEAVY, 1, {}),
            (Size.HEAVY, 2, {"wounds_survived": 2}),
            (Size.HEAVY, 3, {"wounds_survived": 2}),
        )
    ]
    destroyed, damaged = VehicleState.DESTROYED, VehicleState.DAMAGED
    assert [destroyed, destroyed, destroyed, damaged, destroyed] == states


def test_craft_wounds_reads_a_number_or_a_table_and_refuses_junk() -> None:
    """R-61: craft_wounds = 2 sets every class; a table sets some; 5 is refused with help."""
    _, every = read_scale({"rulings": {"craft_wounds": 2}}, SCALE, base_wounds=WOUNDS)
    _, some = read_scale({"rulings": {"craft_wounds": {"heavy": 1}}}, SCALE, base_wounds=WOUNDS)
    with pytest.raises(ConfigError) as caught:
        read_scale({"rulings": {"craft_wounds": 5}}, SCALE, base_wounds=WOUNDS)
    assert (
        {Size.LIGHT: 2, Size.MEDIUM: 2, Size.HEAVY: 2},
        {Size.LIGHT: 0, Size.MEDIUM: 0, Size.HEAVY: 1},
        True,
    ) == (every, some, "craft_wounds = 5; give 0 to 3 wounds" in caught.value.message)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": AttackKind.MELEE}, "write shoot, not melee"),
        ({"subdue": True}, "cannot subdue"),
        (
            {"location": Location.HEAD, "attacker": Crewed(TANK), "target": Crewed(ship())},
            "aim at it as a whole",
        ),
        ({"weapon": Weapon("laser", WeaponKind.RANGED)}, "leave out 'with laser'"),
    ],
)
def test_refusals(kwargs: dict, message: str) -> None:
    """Ramming, subduing, called shots on crafts and named weapons on crafts are refused."""
    values = {"kind": AttackKind.RANGED, "attacker": Crewed(TANK), "target": GUARD, **kwargs}
    with pytest.raises(RuleViolation, match=message):
        attack(
            values.pop("kind"),
            values.pop("attacker"),
            values.pop("target"),
            RULES,
            FixedDice([]),
            **values,
        )


def test_a_destroyed_vehicle_cannot_act_or_be_attacked() -> None:
    """Destroyed is final: no attack by it, none on it."""
    wreck = Crewed(
        bike(wounds=1, dice={Param.WEAPON: 6, Param.SPEED: 8, Param.ARMOUR: 4, Param.SENSORS: 4})
    )
    with pytest.raises(RuleViolation, match="destroyed"):
        attack(AttackKind.RANGED, wreck, GUARD, RULES, FixedDice([]))
    with pytest.raises(RuleViolation, match="already destroyed"):
        attack(AttackKind.RANGED, GUARD, wreck, RULES, FixedDice([]))


def test_initiative_in_a_mixed_fight() -> None:
    """Vehicles roll Sensors with the ordinal against infantry; the men roll plain Perception."""
    result = initiative([GUARD, Crewed(TANK)], RULES, FixedDice([6, 1, 10]))
    assert ((("Tank",), ("Guard",)), (10, 6)) == (
        result.groups,
        tuple(r.total for r in result.rolls),
    )


def test_initiative_heavy_vehicle_against_ship_is_plain() -> None:
    """A heavy vehicle drops the ordinal from Sensors when a ship is in the fight."""
    result = initiative([Crewed(TANK), Crewed(ship())], RULES, FixedDice([6, 5]))
    assert ((False, False), (("Tank",), ("Kestrel",))) == (
        tuple(r.ordinal for r in result.rolls),
        result.groups,
    )
