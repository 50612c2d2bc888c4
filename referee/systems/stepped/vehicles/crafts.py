"""Stepped vehicles and ships: crafts, classes and parameters, validation and sheet records."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from referee.base.errors import UnknownName, UserError

from ..sheet import SheetReader
from ..traits import LADDER, Character, Stat


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
    referee.base.errors.UnknownName: 'shields' is not a parameter; the parameters are weapon, \
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
    referee.base.errors.UserError: The vehicle sheet has 3 problems:
    - craft is missing; it is one of vehicle or ship.
    - class 'huge' is not one of light, medium or heavy.
    - speed = 3: write Speed as a die (d4, d6, d8, d10, d12 or d20), or 0 to use the pilot's.
    """
    if not isinstance(record, Mapping):
        raise UserError("The vehicle sheet must be a table of fields, like name and class.")
    reader = SheetReader()
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
