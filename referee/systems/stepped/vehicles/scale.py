"""The scale table (R-12): which craft rolls carry the ordinal d10; the rules value with it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from referee.base.errors import ConfigError

from ..rulings import Rules, Rulings, is_whole_number
from ..traits import Character
from .crafts import Combatant, Craft, Size, _join


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
    referee.base.errors.ConfigError: data/scale.toml has problems:
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


# the wounds a craft survives by class (data/scale.toml [rulings] craft_wounds).
# The seed's combat rules are "the same", so a craft dies at its first wound like an
# ordinary NPC; the GM may give one craft 1-3 on its sheet (wounds_survived).
DEFAULT_WOUNDS_SURVIVED: dict[Size, int] = {Size.LIGHT: 0, Size.MEDIUM: 0, Size.HEAVY: 0}

# craft_wounds is R-61's name; wounds_survived is what older scale.toml files wrote.
_CRAFT_WOUNDS_KEYS = ("craft_wounds", "wounds_survived")
_CRAFT_WOUNDS_HELP = (
    "craft_wounds = 0 (every class) or craft_wounds = { light = 0, medium = 0, heavy = 0 }"
)


def _read_scale_rulings(row: object, wounds: dict[Size, int]) -> list[str]:
    if not isinstance(row, Mapping):
        return ["[rulings] must be a table."]
    problems = []
    for key, value in row.items():
        if key not in _CRAFT_WOUNDS_KEYS:
            problems.append(f"[rulings] {key}: the only ruling here is {_CRAFT_WOUNDS_HELP}.")
            continue
        by_class = dict.fromkeys(Size, value) if not isinstance(value, Mapping) else value
        for word, count in by_class.items():
            size = _member(Size, word)
            if size is not None and is_whole_number(count) and 0 <= count <= 3:
                wounds[size] = count
                continue
            where = f"{key}.{word}" if isinstance(value, Mapping) else key
            problems.append(
                f"[rulings] {where} = {count!r}; give 0 to 3 wounds, as {_CRAFT_WOUNDS_HELP}."
            )
            if not isinstance(value, Mapping):
                break  # one value for every class: one problem, not three
    return problems


@dataclass(frozen=True, kw_only=True)
class VehicleRules(Rules):
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

    >>> from referee.systems.stepped.vehicles import Crewed, Vehicle
    >>> scale_kind(Crewed(Vehicle("Tank", Craft.VEHICLE, Size.HEAVY, {})))
    <ScaleKind.HEAVY_VEHICLE: 'heavy_vehicle'>
    """
    if isinstance(c, Character):
        return ScaleKind.INFANTRY
    if c.vehicle.craft == Craft.SHIP:
        return ScaleKind.SHIP
    return ScaleKind(f"{c.vehicle.size.value}_vehicle")
