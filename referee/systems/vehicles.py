"""Vehicles and ships for the ``stepped`` system (seed 002, RULES.md §1.5-1.6, R-8..R-12).

Pure functions over frozen values, like :mod:`referee.systems.stepped`, whose wild-die
machinery every roll here goes through. Randomness comes in as a
:class:`~referee.dice.DiceSource`; dice are drawn in a fixed order so a worked example
replays with :class:`~referee.dice.FixedDice`:

* a roll draws its parameter (or trait) dice, then the wild d6 if it has one (R-11:
  the wild die works on the faces), then one ordinal d10 per die if the scale table
  says so (R-12);
* an attack draws the hit roll, the hit-defence roll, the damage roll, the armour roll.

A parameter with the ordinal d10 reads its die as tens and the d10 as units (10 is 0)
for d4-d10, and multiplies the die by the d10 (1-10) for d12 and d20 (R-10)::

    Vehicle + pilot --plan--> (dice, wild?, modifiers) + ordinal? --dice--> ScaledRoll
                                        \\--odds--> exact chance (vehicles_odds)

>>> from referee.dice import FixedDice
>>> walker = Vehicle("Walker", Craft.VEHICLE, Size.HEAVY, {Param.WEAPON: 12,
...     Param.SPEED: 4, Param.ARMOUR: 12, Param.SENSORS: 8})
>>> roll = stat_roll(Crewed(walker), Param.ARMOUR, example_rules(), FixedDice([7, 4])).roll
>>> [(p.die.value, p.ordinal.value, p.value) for p in roll.parts], roll.total
([(7, 4, 28)], 28)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from typing import Any

from referee.dice import DiceSource
from referee.errors import ConfigError, RuleViolation, UnknownName, UserError
from referee.systems import stepped, vehicles_odds
from referee.systems.stepped import (
    LADDER,
    AttackKind,
    Character,
    DieRoll,
    Location,
    Modifier,
    RollPlan,
    Rulings,
    Stat,
)
from referee.systems.vehicles_odds import ORDINAL_SIDES, ScaledSpec

# ---------------------------------------------------------------------------
# Crafts, classes and parameters


class Craft(str, Enum):
    """A ground (or air) vehicle, or a ship."""

    VEHICLE = "vehicle"
    SHIP = "ship"


class Size(str, Enum):
    """The class of a vehicle or ship; it sets the points to distribute."""

    LIGHT = "light"
    MEDIUM = "medium"
    HEAVY = "heavy"


BUDGETS: dict[Size, int] = {Size.LIGHT: 3, Size.MEDIUM: 5, Size.HEAVY: 7}


class Param(str, Enum):
    """A parameter of a vehicle (Weapon power, Speed, Armour, Sensors) or ship (Acceleration)."""

    WEAPON = "weapon"  # Weapon power: set by the GM as a die, costs no points
    SPEED = "speed"  # vehicles only
    ACCELERATION = "acceleration"  # ships only
    ARMOUR = "armour"
    SENSORS = "sensors"


PARAM_NAMES: dict[Param, str] = {
    Param.WEAPON: "Weapon power",
    Param.SPEED: "Speed",
    Param.ACCELERATION: "Acceleration",
    Param.ARMOUR: "Armour",
    Param.SENSORS: "Sensors",
}
PARAM_WORDS: dict[str, Param] = {
    **{param.value: param for param in Param},
    "weapon power": Param.WEAPON,
    "weapons": Param.WEAPON,
    "power": Param.WEAPON,
    "guns": Param.WEAPON,
    "spd": Param.SPEED,
    "accel": Param.ACCELERATION,
    "acc": Param.ACCELERATION,
    "armor": Param.ARMOUR,
    "arm": Param.ARMOUR,
    "sensor": Param.SENSORS,
    "sens": Param.SENSORS,
    "sen": Param.SENSORS,
}
PARAMS: dict[Craft, tuple[Param, ...]] = {
    Craft.VEHICLE: (Param.WEAPON, Param.SPEED, Param.ARMOUR, Param.SENSORS),
    Craft.SHIP: (Param.WEAPON, Param.ACCELERATION, Param.ARMOUR, Param.SENSORS),
}
MOBILITY: dict[Craft, Param] = {Craft.VEHICLE: Param.SPEED, Craft.SHIP: Param.ACCELERATION}
# the pilot's stat that stands in for a parameter at 0.
PILOT_STAND_IN: dict[Param, Stat] = {
    Param.WEAPON: Stat.STRENGTH,
    Param.SPEED: Stat.AGILITY,
    Param.ACCELERATION: Stat.AGILITY,
    Param.ARMOUR: Stat.ENDURANCE,
    Param.SENSORS: Stat.PERCEPTION,
}
# Most points a parameter may hold, where the seed caps it (otherwise 6, a d20).
CAPS: dict[tuple[Craft, Size, Param], int] = {
    (Craft.SHIP, Size.LIGHT, Param.ARMOUR): 3,  # light ships: Armour at most d8
    (Craft.SHIP, Size.HEAVY, Param.ACCELERATION): 3,  # heavy ships: Acceleration at most d8
}


def default_points(craft: Craft, size: Size) -> dict[Param, int]:
    """The free points a craft starts with (R-8; ships d4 everywhere, light ships d6 Acceleration).

    >>> default_points(Craft.VEHICLE, Size.HEAVY)
    {<Param.SPEED: 'speed'>: 1}
    >>> default_points(Craft.SHIP, Size.LIGHT)[Param.ACCELERATION]
    2
    """
    if craft == Craft.VEHICLE:
        return {Param.SPEED: 1}
    return {
        Param.ACCELERATION: 2 if size == Size.LIGHT else 1,
        Param.ARMOUR: 1,
        Param.SENSORS: 1,
    }


def points_of(sides: int) -> int:
    """The points a die costs: d4 1 ... d20 6, and 0 for none (the pilot stands in).

    >>> points_of(0), points_of(8), points_of(20)
    (0, 3, 6)
    """
    return 0 if sides == 0 else LADDER.index(sides) + 1


def parse_param(word: str, craft: Craft | None = None) -> Param:
    """The parameter a player named; speed and acceleration mean the craft's own.

    >>> parse_param("Armor"), parse_param("speed", Craft.SHIP)
    (<Param.ARMOUR: 'armour'>, <Param.ACCELERATION: 'acceleration'>)
    >>> parse_param("shields")
    Traceback (most recent call last):
    ...
    referee.errors.UnknownName: 'shields' is not a parameter; the parameters are weapon, \
speed (or acceleration), armour and sensors.
    """
    param = PARAM_WORDS.get(" ".join(word.split()).casefold())
    if param is None:
        raise UnknownName(
            f"'{word}' is not a parameter; the parameters are weapon, speed (or acceleration), "
            "armour and sensors."
        )
    if craft is not None and param in (Param.SPEED, Param.ACCELERATION):
        return MOBILITY[craft]
    return param


@dataclass(frozen=True)
class Vehicle:
    """A vehicle or ship sheet as the rules see it."""

    name: str
    craft: Craft
    size: Size
    dice: Mapping[Param, int]  # die sides per parameter; 0: the pilot's stat stands in
    named: bool = False  # rolls the wild d6
    pilot: str | None = None  # the character flying it
    wounds_survived: int | None = None  # None: the class's, from the scale table's [rulings]
    wounds: int = 0


@dataclass(frozen=True)
class Crewed:
    """A vehicle with its pilot, as a fight sees it (the pilot may be missing)."""

    vehicle: Vehicle
    pilot: Character | None = None

    @property
    def name(self) -> str:
        return self.vehicle.name


Combatant = Character | Crewed


def _join(words: Sequence[str], conjunction: str = "and") -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


# ---------------------------------------------------------------------------
# The scale table


class ScaleKind(str, Enum):
    """What a combatant is, for the scale table."""

    INFANTRY = "infantry"  # every character
    LIGHT_VEHICLE = "light_vehicle"
    MEDIUM_VEHICLE = "medium_vehicle"
    HEAVY_VEHICLE = "heavy_vehicle"
    SHIP = "ship"  # any class of ship


class ScaleRoll(str, Enum):
    """A roll of one attack by an attacker kind on a defender kind (see data/scale.toml)."""

    ATTACK = "attack"  # the attacker's hit roll
    HIT_DEFENCE = "hit_defence"  # the defender's roll against the hit
    DAMAGE = "damage"  # the attacker's Weapon power (or weapon dice / Strength)
    ARMOUR = "armour"  # the defender's Armour (or Endurance + armour)
    SPEED = "speed"  # the attacker kind's Speed against the defender kind, outside an attack
    SENSORS = "sensors"  # the attacker kind's Sensors against the defender kind: initiative


Cell = tuple[ScaleKind, ScaleKind, ScaleRoll]


@dataclass(frozen=True)
class Scale:
    """Which (attacker kind, defender kind, roll) carry the ordinal d10."""

    ordinal_cells: frozenset[Cell] = frozenset()

    def ordinal(self, attacker: ScaleKind, defender: ScaleKind, roll: ScaleRoll) -> bool:
        """Whether ``roll`` of an attack by ``attacker`` on ``defender`` rolls the ordinal."""
        return (attacker, defender, roll) in self.ordinal_cells


def read_scale(
    document: Mapping[str, Any],
    base: Scale | None = None,
    where: str = "data/scale.toml",
    base_wounds: Mapping[Size, int] | None = None,
) -> tuple[Scale, dict[Size, int]]:
    """The scale table and the wounds each class survives, from a parsed scale.toml.

    Without ``base`` every cell must be there; with it, the document overrides cells of
    ``base`` (a campaign's own scale.toml), and its ``[rulings]`` those of ``base_wounds``.
    ConfigError lists every problem.

    >>> scale, _ = read_scale({"ship": {"heavy_vehicle": {"armour": False}}}, Scale(
    ...     frozenset({(ScaleKind.SHIP, ScaleKind.HEAVY_VEHICLE, ScaleRoll.ARMOUR)})))
    >>> scale.ordinal(ScaleKind.SHIP, ScaleKind.HEAVY_VEHICLE, ScaleRoll.ARMOUR)
    False
    >>> read_scale({"tank": {}}, Scale())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.errors.ConfigError: data/scale.toml has problems:
    - [tank] is not a kind; the kinds are infantry, light_vehicle, ...
    """
    problems: list[str] = []
    cells = set(base.ordinal_cells) if base is not None else set()
    seen: set[Cell] = set()
    kinds = _join([kind.value for kind in ScaleKind])
    rolls = _join([roll.value for roll in ScaleRoll])
    wounds = dict(DEFAULT_WOUNDS_SURVIVED if base_wounds is None else base_wounds)
    for attacker_word, row in document.items():
        if attacker_word == "rulings":
            problems.extend(_read_scale_rulings(row, wounds))
            continue
        attacker = _member(ScaleKind, attacker_word)
        if attacker is None or not isinstance(row, Mapping):
            problems.append(
                f"[{attacker_word}] is not a kind; the kinds are {kinds}."
                if attacker is None
                else f"[{attacker_word}] must be a table."
            )
            continue
        for defender_word, column in row.items():
            defender = _member(ScaleKind, defender_word)
            at = f"[{attacker_word}] {defender_word}"
            if defender is None or not isinstance(column, Mapping):
                problems.append(
                    f"{at}: '{defender_word}' is not a kind; the kinds are {kinds}."
                    if defender is None
                    else f"{at} must be a table of rolls."
                )
                continue
            for roll_word, value in column.items():
                roll = _member(ScaleRoll, roll_word)
                if roll is None:
                    problems.append(f"{at}: '{roll_word}' is not a roll; the rolls are {rolls}.")
                elif not isinstance(value, bool):
                    problems.append(f"{at}: {roll_word} = {value!r}; write true or false.")
                else:
                    cell = (attacker, defender, roll)
                    seen.add(cell)
                    (cells.add if value else cells.discard)(cell)
    if base is None:
        missing = [
            f"[{a.value}] {d.value} {r.value}"
            for a in ScaleKind
            for d in ScaleKind
            for r in ScaleRoll
            if (a, d, r) not in seen
        ]
        if missing:
            problems.append(
                f"{len(missing)} cells are missing, the first {missing[0]}; "
                "the shipped table fills every cell."
            )
    if problems:
        raise ConfigError(f"{where} has problems:\n" + "\n".join(f"- {p}" for p in problems))
    return Scale(frozenset(cells)), wounds


def _member(enum: type[Any], word: object) -> Any:
    try:
        return enum(word)
    except ValueError:
        return None


# ruling: wounds a craft survives by class (overridden by data/scale.toml [rulings]).
DEFAULT_WOUNDS_SURVIVED: dict[Size, int] = {Size.LIGHT: 0, Size.MEDIUM: 1, Size.HEAVY: 2}


def _read_scale_rulings(row: object, wounds: dict[Size, int]) -> list[str]:
    if not isinstance(row, Mapping):
        return ["[rulings] must be a table."]
    problems = []
    for key, value in row.items():
        if key != "wounds_survived" or not isinstance(value, Mapping):
            problems.append(
                f"[rulings] {key}: the only ruling here is "
                "wounds_survived = { light = 0, medium = 1, heavy = 2 }."
            )
            continue
        for word, count in value.items():
            size = _member(Size, word)
            if size is None or not (stepped.is_whole_number(count) and 0 <= count <= 3):
                problems.append(
                    f"[rulings] wounds_survived.{word} = {count!r}; name light, "
                    "medium or heavy and give 0 to 3 wounds."
                )
            else:
                wounds[size] = count
    return problems


@dataclass(frozen=True, kw_only=True)
class VehicleRules(stepped.Rules):
    """The stepped rules of a campaign, with its scale table and the vehicle rulings."""

    scale: Scale
    wounds_survived: Mapping[Size, int] = field(
        default_factory=lambda: dict(DEFAULT_WOUNDS_SURVIVED)
    )


def example_rules(rulings: Rulings | None = None) -> VehicleRules:
    """Rules whose scale follows the shipped data/scale.toml, built in code for examples.

    Only the cells the doctests and worked examples touch are set: vehicles roll the
    ordinal among themselves; everything else is plain. Campaigns load the real table.
    """
    vehicle_kinds = (ScaleKind.LIGHT_VEHICLE, ScaleKind.MEDIUM_VEHICLE, ScaleKind.HEAVY_VEHICLE)
    cells = frozenset((a, d, r) for a in vehicle_kinds for d in vehicle_kinds for r in ScaleRoll)
    return VehicleRules(rulings=rulings or Rulings(), scale=Scale(cells))


def scale_kind(c: Combatant) -> ScaleKind:
    """The scale table's kind of a combatant: characters are infantry.

    >>> scale_kind(Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {})))
    <ScaleKind.HEAVY_VEHICLE: 'heavy_vehicle'>
    """
    if isinstance(c, Character):
        return ScaleKind.INFANTRY
    if c.vehicle.craft == Craft.SHIP:
        return ScaleKind.SHIP
    return ScaleKind(f"{c.vehicle.size.value}_vehicle")


# ---------------------------------------------------------------------------
# Wounds and state


class VehicleState(str, Enum):
    """Where a vehicle stands in a fight."""

    INTACT = "intact"
    DAMAGED = "damaged"  # carries wounds but still fights (machines feel no pain shock)
    DESTROYED = "destroyed"


def wounds_survived(v: Vehicle, rules: VehicleRules) -> int:
    """The wounds ``v`` survives: its sheet's, else its class's.

    >>> tank = Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {})
    >>> wounds_survived(tank, example_rules()), wounds_survived(replace(tank, wounds_survived=3),
    ...                                                      example_rules())
    (2, 3)
    """
    if v.wounds_survived is not None:
        return v.wounds_survived
    return rules.wounds_survived.get(v.size, DEFAULT_WOUNDS_SURVIVED[v.size])


def vehicle_state(v: Vehicle, rules: VehicleRules) -> VehicleState:
    """Destroyed past the wounds it survives, else damaged, else intact.

    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {})
    >>> rules = example_rules()
    >>> vehicle_state(bike, rules), vehicle_state(replace(bike, wounds=1), rules)
    (<VehicleState.INTACT: 'intact'>, <VehicleState.DESTROYED: 'destroyed'>)
    """
    if v.wounds > wounds_survived(v, rules):
        return VehicleState.DESTROYED
    return VehicleState.DAMAGED if v.wounds else VehicleState.INTACT


def damage(v: Vehicle, count: int, rules: VehicleRules) -> Vehicle:
    """``v`` after ``count`` more wounds; never past destroyed.

    >>> walker = Vehicle("Walker", Craft.VEHICLE, Size.HEAVY, {})
    >>> damage(walker, 5, example_rules()).wounds
    3
    """
    if count < 0:
        raise ValueError(f"cannot apply {count} wounds; repair instead")
    wounds = min(v.wounds + count, wounds_survived(v, rules) + 1)
    return v if wounds == v.wounds else replace(v, wounds=wounds)


def repair(v: Vehicle, count: int | None = None) -> Vehicle:
    """``v`` with ``count`` wounds repaired (None: all); a destroyed craft is beyond repair.

    >>> repair(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {}, wounds=1, wounds_survived=2)).wounds
    0
    """
    if count is not None and count < 0:
        raise ValueError(f"cannot repair {count} wounds")
    return replace(v, wounds=0 if count is None else max(0, v.wounds - count))


def _refuse_if_down(c: Combatant, rules: VehicleRules, doing: str) -> None:
    if isinstance(c, Character):
        stepped.refuse_if_down(c, doing)
    elif vehicle_state(c.vehicle, rules) == VehicleState.DESTROYED:
        raise RuleViolation(f"{c.name} is destroyed and cannot {doing}.")


# ---------------------------------------------------------------------------
# Validation


def validate_vehicle(v: Vehicle) -> list[str]:
    """Every problem with a vehicle or ship sheet, each a sentence a player can act on.

    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.WEAPON: 6, Param.SPEED: 8,
    ...     Param.ARMOUR: 4, Param.SENSORS: 0})
    >>> validate_vehicle(bike)
    []
    >>> skiff = Vehicle("Skiff", Craft.SHIP, Size.LIGHT, {Param.WEAPON: 8,
    ...     Param.ACCELERATION: 4, Param.ARMOUR: 10, Param.SENSORS: 4})
    >>> for problem in validate_vehicle(skiff): print(problem)
    Acceleration is d4, but a light ship starts with Acceleration d6; it cannot be lower.
    Armour is d10; a light ship's Armour may be at most d8.
    The parameters spend 2 points above the free ones (Acceleration d6, Armour d4 and \
Sensors d4); a light ship has 3, so 1 is unspent.
    """
    return _vehicle_problems(v)


def _spent(v: Vehicle) -> int:
    free = default_points(v.craft, v.size)
    return sum(
        points_of(v.dice.get(p, 0)) - free.get(p, 0)
        for p in PARAMS[v.craft]
        if p != Param.WEAPON and (v.dice.get(p, 0) in LADDER or not v.dice.get(p, 0))
    )


def _vehicle_problems(v: Vehicle) -> list[str]:
    problems: list[str] = []
    add = problems.append
    what = f"a {v.size.value} {v.craft.value}"
    if not v.name.strip():
        add(f"The {v.craft.value} needs a name.")
    allowed = PARAMS[v.craft]
    for param in v.dice:
        if param not in allowed:
            names = _join([PARAM_NAMES[p] for p in allowed])
            add(f"A {v.craft.value} has no {PARAM_NAMES[param]}; its parameters are {names}.")
    free = default_points(v.craft, v.size)
    for param in allowed:
        sides = v.dice.get(param, 0)
        name = PARAM_NAMES[param]
        if sides and sides not in LADDER:
            add(f"{name} is d{sides}; a parameter is d4, d6, d8, d10, d12 or d20.")
            continue
        points = points_of(sides)
        if points < free.get(param, 0):
            start = f"d{LADDER[free[param] - 1]}"
            shown = f"d{sides}" if sides else "0"
            add(f"{name} is {shown}, but {what} starts with {name} {start}; it cannot be lower.")
        cap = CAPS.get((v.craft, v.size, param))
        if cap is not None and points > cap:
            add(f"{name} is d{sides}; {what}'s {name} may be at most d{LADDER[cap - 1]}.")
    spent = _spent(v)
    budget = BUDGETS[v.size]
    free_words = _join([f"{PARAM_NAMES[p]} d{LADDER[n - 1]}" for p, n in free.items()])
    if spent != budget:
        which = "over" if spent > budget else "unspent"
        off = abs(spent - budget)
        add(
            f"The parameters spend {spent} points above the free ones ({free_words}); "
            f"{what} has {budget}, so {off} {'is' if off == 1 else 'are'} {which}."
        )
    if v.wounds_survived is not None and not 0 <= v.wounds_survived <= 3:
        add(f"The {v.craft.value} survives {v.wounds_survived} wounds; it must be 0 to 3.")
    if v.wounds < 0:
        add(f"The {v.craft.value} carries {v.wounds} wounds; it cannot be negative.")
    if v.pilot is not None and not v.pilot.strip():
        add("The pilot's name is empty; name a character or leave the pilot out.")
    return problems


# ---------------------------------------------------------------------------
# Sheets: records (parsed TOML or JSON) <-> vehicles

_SHEET_KEYS = (
    "name",
    "craft",
    "class",
    "named",
    "pilot",
    "weapon",
    "speed",
    "acceleration",
    "armour",
    "sensors",
    "wounds_survived",
    "wounds",
)
_DIE = re.compile(r"^\s*1?\s*[dD]\s*(\d{1,3})\s*$")
_NO_DIE = ("0", "", "none", "pilot", "-")


def _read_die(reader: Any, record: Mapping[str, Any], param: Param) -> int:
    value = record.get(param.value, 0)
    where = PARAM_NAMES[param]
    if value == 0 and not isinstance(value, bool):
        return 0
    if isinstance(value, str):
        if value.strip().casefold() in _NO_DIE:
            return 0
        match = _DIE.match(value)
        if match is not None and int(match.group(1)) in LADDER:
            return int(match.group(1))
    reader.problems.append(
        f"{param.value} = {value!r}: write {where} as a die (d4, d6, d8, d10, d12 or d20), "
        "or 0 to use the pilot's."
    )
    return 0


def vehicle_from_record(record: Mapping[str, Any]) -> Vehicle:
    """A vehicle or ship from a sheet record; UserError listing every problem it cannot read.

    Parameters are dice ("d6"); 0 (or "pilot") leaves it to the pilot (R-9). Rules
    problems (points, caps) are :func:`validate_vehicle`'s.

    >>> v = vehicle_from_record({"name": "Bike", "craft": "vehicle", "class": "light",
    ...     "weapon": "d6", "speed": "d8", "armour": "d4", "sensors": "pilot"})
    >>> v.dice[Param.SPEED], v.dice[Param.SENSORS]
    (8, 0)
    >>> vehicle_from_record({"name": "Bike", "class": "huge", "speed": 3})
    Traceback (most recent call last):
    ...
    referee.errors.UserError: The vehicle sheet has 3 problems:
    - craft is missing; it is one of vehicle or ship.
    - class 'huge' is not one of light, medium or heavy.
    - speed = 3: write Speed as a die (d4, d6, d8, d10, d12 or d20), or 0 to use the pilot's.
    """
    if not isinstance(record, Mapping):
        raise UserError("The vehicle sheet must be a table of fields, like name and class.")
    reader = stepped.SheetReader()
    reader.unknown(record, _SHEET_KEYS, "")
    name = reader.text(record, "name", "", None)
    craft = reader.choice(record, "craft", "", {c.value: c for c in Craft}, None)
    size = reader.choice(record, "class", "", {s.value: s for s in Size}, None)
    named = reader.flag(record, "named", "", False)
    pilot = record.get("pilot")
    if pilot is not None and not isinstance(pilot, str):
        reader.problems.append(f"pilot must be a character's name, not {pilot!r}.")
        pilot = None
    survived = record.get("wounds_survived")
    if survived is not None:
        survived = reader.integer(record, "wounds_survived", "", None)
    wounds = reader.integer(record, "wounds", "", 0)
    dice: dict[Param, int] = {}
    for param in Param:
        if param.value in record:
            dice[param] = _read_die(reader, record, param)
    if reader.problems:
        count = "1 problem" if len(reader.problems) == 1 else f"{len(reader.problems)} problems"
        raise UserError(
            f"The vehicle sheet has {count}:\n"
            + "\n".join(f"- {problem}" for problem in reader.problems)
        )
    for param in PARAMS[craft]:
        dice.setdefault(param, 0)
    return Vehicle(name, craft, size, dice, named, pilot, survived, wounds)


def vehicle_to_record(v: Vehicle) -> dict[str, Any]:
    """The JSON-safe sheet record of ``v``; :func:`vehicle_from_record` reads it back exactly.

    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.WEAPON: 6, Param.SPEED: 8,
    ...     Param.ARMOUR: 4, Param.SENSORS: 0}, pilot="Kara")
    >>> vehicle_from_record(vehicle_to_record(bike)) == bike
    True
    """
    record: dict[str, Any] = {
        "name": v.name,
        "craft": Craft(v.craft).value,
        "class": Size(v.size).value,
        "named": v.named,
    }
    if v.pilot is not None:
        record["pilot"] = v.pilot
    for param, sides in v.dice.items():
        record[Param(param).value] = f"d{sides}" if sides else 0
    if v.wounds_survived is not None:
        record["wounds_survived"] = v.wounds_survived
    record["wounds"] = v.wounds
    return record


# ---------------------------------------------------------------------------
# Rolls with the ordinal d10


@dataclass(frozen=True)
class Part:
    """One die of a scaled roll as a verdict shows it."""

    label: str  # "speed", "sensors (pilot Kara Venn's perception)", "agility", "d6"
    die: DieRoll  # the parameter's die; not kept when the wild d6 replaced it
    face: int  # what counts: the die, or the wild d6 that replaced it
    ordinal: DieRoll | None  # the ordinal d10 as rolled; None when the scale drops it
    reading: int  # what the d10 counts as: units 0-9, or a factor 1-10; 0 if none
    product: bool  # d12 and d20 multiply by the d10 instead of taking it as units
    value: int  # the composed value of this die


@dataclass(frozen=True)
class ScaledRoll:
    """A roll with the ordinal d10 on each die (or without, where the scale drops it)."""

    roller: str
    label: str  # e.g. "speed + sensors", "armour", "agility + perception"
    parts: tuple[Part, ...]
    wild: DieRoll | None  # the wild d6 of a named roller
    modifiers: tuple[Modifier, ...]
    total: int
    exceptional: bool  # the wild d6 matched a die
    critical: bool  # the dice showed 1
    ordinal: bool  # the ordinal d10 was rolled
    spec: ScaledSpec  # what it was before the dice fell, for its odds


@dataclass(frozen=True)
class _ScaledPlan:
    plan: RollPlan
    labels: tuple[str, ...]  # one per die
    ordinal: bool

    def spec(self) -> ScaledSpec:
        plan = self.plan
        return ScaledSpec(
            plan.sides, plan.named, plan.wild, self.ordinal, sum(m.value for m in plan.modifiers)
        )


def _roll(scaled: _ScaledPlan, rulings: Rulings, dice: DiceSource) -> ScaledRoll:
    """Roll a plan: its dice and wild d6 through stepped (R-1..R-4), then the ordinals."""
    base = stepped.execute_plan(scaled.plan, rulings, dice)
    parts = []
    for label, die in zip(scaled.labels, base.dice, strict=True):
        face = die.value if die.kept else base.wild.value  # type: ignore[union-attr]
        ordinal = reading = None
        value = face
        if scaled.ordinal:
            ordinal = DieRoll(ORDINAL_SIDES, dice.roll(ORDINAL_SIDES))
            reading = vehicles_odds.ordinal_reading(die.sides, ordinal.value)
            value = vehicles_odds.compose(die.sides, face, reading)
        parts.append(
            Part(
                label, die, face, ordinal, reading or 0, die.sides > vehicles_odds.TENS_UP_TO, value
            )
        )
    total = sum(p.value for p in parts) + sum(m.value for m in base.modifiers)
    return ScaledRoll(
        base.roller,
        base.label,
        tuple(parts),
        base.wild,
        base.modifiers,
        total,
        base.exceptional,
        base.critical,
        scaled.ordinal,
        scaled.spec(),
    )


def _standing(roll: ScaledRoll, rulings: Rulings) -> tuple[int, int]:
    """(grade, total): criticals and exceptionals decide first, as in stepped."""
    return (vehicles_odds.stepped_odds.grade(roll.exceptional, roll.critical, rulings), roll.total)


def _wins(attack: ScaledRoll, defence: ScaledRoll, rulings: Rulings) -> bool:
    a, d = _standing(attack, rulings), _standing(defence, rulings)
    return a > d or (a == d and rulings.ties == stepped.Ties.ATTACKER)


def _param_die(c: Crewed, param: Param) -> tuple[int, str]:
    """The die a parameter rolls and how a verdict names it; the pilot's stat at 0 (R-9)."""
    sides = c.vehicle.dice.get(param, 0)
    if sides:
        return sides, param.value
    stat = PILOT_STAND_IN[param]
    pilot = c.pilot
    if pilot is None:
        raise RuleViolation(
            f"{c.name} has no {PARAM_NAMES[param]} of its own and no pilot to stand in; "
            f"the GM names a pilot on its sheet."
        )
    state = stepped.state_of(pilot)
    if state in (stepped.State.DEAD, stepped.State.INCAPACITATED):
        raise RuleViolation(
            f"{c.name} relies on its pilot for {PARAM_NAMES[param]}, and {pilot.name} is "
            f"{state.value}."
        )
    points = pilot.stats.get(stat)
    if points is None or not 1 <= points <= 6:
        raise RuleViolation(f"{pilot.name}'s {stat.value} has no points to stand in with.")
    return stepped.die_for_points(points), f"{param.value} ({pilot.name}'s {stat.value})"


def _plan_params(
    c: Crewed,
    params: Sequence[Param],
    modifiers: Sequence[Modifier],
    ordinal: bool,
    *,
    wild: bool = True,
) -> _ScaledPlan:
    dice = [_param_die(c, param) for param in params]
    label = " + ".join(param.value for param in params)
    named = c.vehicle.named
    plan = RollPlan(
        c.name,
        label,
        tuple(s for s, _ in dice),
        named,
        named and wild,
        tuple(m for m in modifiers if m.value),
    )
    return _ScaledPlan(plan, tuple(words for _, words in dice), ordinal)


def _plan_stats(
    c: Character,
    stats: Sequence[Stat],
    rules: VehicleRules,
    modifiers: Sequence[Modifier],
    ordinal: bool,
) -> _ScaledPlan:
    plan = stepped.plan_trait(c, stats, rules, tuple(m for m in modifiers if m.value))
    return _ScaledPlan(plan, tuple(Stat(s).value for s in stats), ordinal)


# ---------------------------------------------------------------------------
# Stat rolls


# The scale table's roll for a parameter rolled against another kind: Armour is a
# defence, read from the opponent's row; the rest are the roller's.
_STAT_ROLL: dict[Param, ScaleRoll] = {
    Param.WEAPON: ScaleRoll.DAMAGE,
    Param.SPEED: ScaleRoll.SPEED,
    Param.ACCELERATION: ScaleRoll.SPEED,
    Param.ARMOUR: ScaleRoll.ARMOUR,
    Param.SENSORS: ScaleRoll.SENSORS,
}


def stat_ordinal(kind: ScaleKind, param: Param, against: ScaleKind, scale: Scale) -> bool:
    """Whether a ``kind``'s ``param`` rolled against an ``against`` carries the ordinal.

    >>> stat_ordinal(ScaleKind.SHIP, Param.ARMOUR, ScaleKind.SHIP, example_rules().scale)
    False
    """
    roll = _STAT_ROLL[param]
    if roll == ScaleRoll.ARMOUR:
        return scale.ordinal(against, kind, roll)
    return scale.ordinal(kind, against, roll)


@dataclass(frozen=True)
class StatResult:
    """A vehicle's or ship's parameter roll with the ordinal d10 (R-10, R-11)."""

    vehicle: str
    parameter: Param
    against: str | None  # the opponent it was rolled against, if any (the scale's column)
    roll: ScaledRoll
    chance: Fraction  # exact chance of this total or more


def stat_roll(
    c: Crewed,
    param: Param,
    rules: VehicleRules,
    dice: DiceSource,
    *,
    against: Combatant | None = None,
    modifier: int = 0,
) -> StatResult:
    """Roll one parameter; against nobody it reads the scale as against its own kind.

    >>> from referee.dice import FixedDice
    >>> bike = Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.SPEED: 4}, named=True)
    >>> roll = stat_roll(Crewed(bike), Param.SPEED, example_rules(), FixedDice([2, 5, 10])).roll
    >>> roll.parts[0].face, roll.parts[0].reading, roll.total  # wild 5, then d10 10 reads 0
    (5, 0, 50)
    """
    param = Param(param)
    if param not in PARAMS[c.vehicle.craft]:
        names = _join([PARAM_NAMES[p] for p in PARAMS[c.vehicle.craft]])
        raise UnknownName(
            f"A {c.vehicle.craft.value} has no {PARAM_NAMES[param]}; "
            f"{c.name}'s parameters are {names}."
        )
    _refuse_if_down(c, rules, "roll")
    kind = scale_kind(c)
    other = scale_kind(against) if against is not None else kind
    ordinal = stat_ordinal(kind, param, other, rules.scale)
    situational = (Modifier("situational", modifier),)
    wild = param != Param.WEAPON or rules.rulings.wild_die_on_damage
    plan = _plan_params(c, [param], situational, ordinal, wild=wild)
    roll = _roll(plan, rules.rulings, dice)
    chance = vehicles_odds.chance_at_least(plan.spec(), rules.rulings, roll.total)
    return StatResult(c.name, param, against.name if against is not None else None, roll, chance)


# ---------------------------------------------------------------------------
# Initiative


@dataclass(frozen=True)
class InitiativeResult:
    """Everyone's Sensors (or Perception) roll, highest first, and the order of acting."""

    rolls: tuple[ScaledRoll, ...]  # highest total first; equal totals keep the asked order
    groups: tuple[tuple[str, ...], ...]  # who acts together, first group first


def _sensors_plan(c: Combatant, kinds: Sequence[ScaleKind], rules: VehicleRules) -> _ScaledPlan:
    own = scale_kind(c)
    others = [k for k in kinds if k != own] or [own]
    # ruling: in a mixed fight a combatant's initiative carries the ordinal only if its
    # sensors column says so against every other kind present (the largest scale rules).
    ordinal = all(rules.scale.ordinal(own, k, ScaleRoll.SENSORS) for k in others)
    if isinstance(c, Character):
        return _plan_stats(c, [Stat.PERCEPTION], rules, (), ordinal)
    return _plan_params(c, [Param.SENSORS], (), ordinal)


def initiative(
    combatants: Sequence[Combatant], rules: VehicleRules, dice: DiceSource
) -> InitiativeResult:
    """Vehicles and ships roll Sensors, characters Perception; highest first, ties together.

    >>> from referee.dice import FixedDice
    >>> tank = Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {Param.SENSORS: 6}))
    >>> bike = Crewed(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.SENSORS: 4}))
    >>> initiative([tank, bike], example_rules(), FixedDice([2, 3, 3, 5])).groups
    (('Bike',), ('Tank',))
    """
    for c in combatants:
        _refuse_if_down(c, rules, "roll initiative")
    kinds = sorted({scale_kind(c) for c in combatants}, key=list(ScaleKind).index)
    rolls = [_roll(_sensors_plan(c, kinds, rules), rules.rulings, dice) for c in combatants]
    ordered = sorted(rolls, key=lambda roll: -roll.total)
    groups: list[list[str]] = []
    previous: int | None = None
    for roll in ordered:
        if roll.total == previous:
            groups[-1].append(roll.roller)
        else:
            groups.append([roll.roller])
        previous = roll.total
    return InitiativeResult(tuple(ordered), tuple(tuple(group) for group in groups))


# ---------------------------------------------------------------------------
# Combat


@dataclass(frozen=True)
class AttackResult:
    """The verdict of one attack in which a vehicle or ship takes part."""

    kind: AttackKind
    attacker: str
    target: str
    attacker_kind: ScaleKind
    target_kind: ScaleKind
    weapon: str  # "Weapon power" for a craft, else the character's weapon
    location: Location  # where a character target is hit; the torso for crafts
    automatic_hit: bool  # the target was unaware: no hit or defence roll
    hit_roll: ScaledRoll | None
    defence_roll: ScaledRoll | None
    hit: bool
    damage_roll: ScaledRoll | None  # None on a miss
    armour_roll: ScaledRoll | None
    wounded: bool
    target_before: Combatant
    target_after: Combatant
    hit_chance: Fraction  # exact, before the dice
    wound_chance: Fraction  # exact P(wound | hit)


def _refuse(
    attacker: Combatant,
    target: Combatant,
    kind: AttackKind,
    weapon: str | None,
    location: Location,
    subdue: bool,
) -> None:
    if attacker.name.strip().casefold() == target.name.strip().casefold():
        raise RuleViolation(f"{attacker.name} cannot attack itself.")
    if isinstance(attacker, Crewed):
        if kind == AttackKind.MELEE:
            raise RuleViolation(
                f"{attacker.name} fights with its guns: write shoot, not melee "
                "(the rules have no ramming)."
            )
        if weapon is not None:
            raise RuleViolation(
                f"{attacker.name} fires its Weapon power; leave out 'with {weapon}'."
            )
    if subdue:
        raise RuleViolation(
            "Vehicles and ships cannot subdue or be subdued; attack without 'subdue'."
        )
    if isinstance(target, Crewed) and location != Location.TORSO:
        raise RuleViolation(
            f"{target.name} is a {target.vehicle.craft.value}: aim at it as a whole, "
            f"not at its {location.value}."
        )


def attack(
    kind: AttackKind,
    attacker: Combatant,
    target: Combatant,
    rules: VehicleRules,
    dice: DiceSource,
    *,
    weapon: stepped.Weapon | None = None,
    location: Location = Location.TORSO,
    aware: bool = True,
    subdue: bool = False,
    modifier: int = 0,
    environment: int = 0,
) -> AttackResult:
    """One attack with a vehicle or ship on either side (§1.5: same rules, other parameters).

    Hit: Speed (Acceleration) + Sensors against Speed (Acceleration); characters use
    their own stats (§1.3). Wound: Weapon power against Armour (+ ``environment``).
    Each roll carries the ordinal d10 where the scale table says so. Dice are drawn
    hit, defence, damage, armour.

    >>> from referee.dice import FixedDice
    >>> tank = Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {Param.WEAPON: 8,
    ...     Param.SPEED: 4, Param.ARMOUR: 10, Param.SENSORS: 6}))
    >>> bike = Crewed(Vehicle("Bike", Craft.VEHICLE, Size.LIGHT, {Param.WEAPON: 6,
    ...     Param.SPEED: 8, Param.ARMOUR: 4, Param.SENSORS: 4}))
    >>> # hit 3|5=35 + 4|2=42 = 77 vs speed 6|1=61; weapon 7|7=77 vs armour 2|9=29
    >>> result = attack(AttackKind.RANGED, tank, bike, example_rules(),
    ...                 FixedDice([3, 4, 5, 2, 6, 1, 7, 7, 2, 9]))
    >>> after = result.target_after.vehicle
    >>> result.hit, result.wounded, vehicle_state(after, example_rules()).value
    (True, True, 'destroyed')
    """
    kind = AttackKind(kind)
    location = Location(location)
    _refuse(
        attacker,
        target,
        kind,
        weapon.name if weapon and isinstance(attacker, Crewed) else None,
        location,
        subdue,
    )
    _refuse_if_down(attacker, rules, "attack")
    if isinstance(target, Crewed):
        if vehicle_state(target.vehicle, rules) == VehicleState.DESTROYED:
            raise RuleViolation(f"{target.name} is already destroyed; there is nothing to attack.")
    else:
        state = stepped.state_of(target)
        if state in (stepped.State.DEAD, stepped.State.INCAPACITATED):
            raise RuleViolation(
                f"{target.name} is already {state.value}; there is nothing to attack."
            )
    rulings, scale = rules.rulings, rules.scale
    a_kind, t_kind = scale_kind(attacker), scale_kind(target)

    def ordinal(roll: ScaleRoll) -> bool:
        return scale.ordinal(a_kind, t_kind, roll)

    hit_modifiers = [Modifier("situational", modifier)]
    if isinstance(target, Character):
        hit_modifiers.insert(
            0, Modifier(f"{location.value} shot", stepped.called_shot_modifier(location, rulings))
        )
    armour_modifiers = [Modifier("environment", environment)]
    if isinstance(attacker, Crewed):
        mobility = MOBILITY[attacker.vehicle.craft]
        hit_plan = _plan_params(
            attacker, [mobility, Param.SENSORS], hit_modifiers, ordinal(ScaleRoll.ATTACK)
        )
        damage_plan = _plan_params(
            attacker, [Param.WEAPON], (), ordinal(ScaleRoll.DAMAGE), wild=rulings.wild_die_on_damage
        )
        weapon_name = PARAM_NAMES[Param.WEAPON]
    else:
        hit_plan = _plan_stats(
            attacker, stepped.HIT_STATS[kind], rules, hit_modifiers, ordinal(ScaleRoll.ATTACK)
        )
        chosen, plan = stepped.plan_damage(kind, attacker, weapon, rules)
        labels = tuple(f"d{s}" for s in plan.sides) if kind == AttackKind.RANGED else ("strength",)
        damage_plan = _ScaledPlan(plan, labels, ordinal(ScaleRoll.DAMAGE))
        weapon_name = chosen.name
    if isinstance(target, Crewed):
        mobility = MOBILITY[target.vehicle.craft]
        defence_plan = _plan_params(target, [mobility], (), ordinal(ScaleRoll.HIT_DEFENCE))
        armour_plan = _plan_params(
            target, [Param.ARMOUR], armour_modifiers, ordinal(ScaleRoll.ARMOUR)
        )
    else:
        defence_plan = _plan_stats(
            target, stepped.DEFENCE_STATS, rules, (), ordinal(ScaleRoll.HIT_DEFENCE)
        )
        armour_plan = _plan_stats(
            target,
            stepped.SOAK_STATS,
            rules,
            [Modifier("armour", target.armour), *armour_modifiers],
            ordinal(ScaleRoll.ARMOUR),
        )

    automatic = stepped.automatic_hit(kind, aware, rulings)
    hit_chance = (
        Fraction(1)
        if automatic
        else vehicles_odds.contest_chance(hit_plan.spec(), defence_plan.spec(), rulings)
    )
    wound_chance = vehicles_odds.contest_chance(damage_plan.spec(), armour_plan.spec(), rulings)

    rolls = stepped.exchange(
        (hit_plan, defence_plan, damage_plan, armour_plan),
        lambda plan: _roll(plan, rulings, dice),
        lambda a, d: _wins(a, d, rulings),
        automatic,
    )
    after: Combatant = target
    if rolls.wounded:
        if isinstance(target, Crewed):
            after = replace(target, vehicle=damage(target.vehicle, 1, rules))
        else:
            after = stepped.apply_wounds(target, 1, rules)
    return AttackResult(
        kind,
        attacker.name,
        target.name,
        a_kind,
        t_kind,
        weapon_name,
        location,
        automatic,
        rolls.hit_roll,
        rolls.defence_roll,
        rolls.hit,
        rolls.damage_roll,
        rolls.soak_roll,
        rolls.wounded,
        target,
        after,
        hit_chance,
        wound_chance,
    )
