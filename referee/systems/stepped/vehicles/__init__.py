"""Vehicles and ships for the ``stepped`` system (seed 002, RULES.md §1.5-1.6, R-8..R-12).

Split by topic: :mod:`.crafts` (crafts, parameters, sheets), :mod:`.scale` (R-12),
:mod:`.rolls` (state, the ordinal d10, parameter rolls, initiative), :mod:`.combat` and
:mod:`.odds`; this module re-exports their public names.

Pure functions over frozen values, like :mod:`referee.systems.stepped`, whose wild-die
machinery every roll here goes through. Randomness comes in as a
:class:`~referee.base.dice.DiceSource`; dice are drawn in a fixed order so a worked example
replays with :class:`~referee.base.dice.FixedDice`:

* a roll draws its parameter (or trait) dice, then the wild d6 if it has one (R-11:
  the wild die works on the faces), then one ordinal d10 per die if the scale table
  says so (R-12);
* an attack draws the hit roll, the hit-defence roll, the damage roll, the armour roll.

A parameter with the ordinal d10 reads its die as tens and the d10 as units (10 is 0)
for d4-d10, and multiplies the die by the d10 (1-10) for d12 and d20 (R-10)::

    Vehicle + pilot --plan--> (dice, wild?, modifiers) + ordinal? --dice--> ScaledRoll
                                        \\--odds--> exact chance (odds)

>>> from referee.base.dice import FixedDice
>>> walker = Vehicle("Walker", Craft.VEHICLE, Size.HEAVY, {Param.WEAPON: 12,
...     Param.SPEED: 4, Param.ARMOUR: 12, Param.SENSORS: 8})
>>> roll = stat_roll(Crewed(walker), Param.ARMOUR, example_rules(), FixedDice([7, 4])).roll
>>> [(p.die.value, p.ordinal.value, p.value) for p in roll.parts], roll.total
([(7, 4, 28)], 28)
"""

from .combat import AttackResult, attack
from .crafts import (
    BUDGETS,
    CAPS,
    MOBILITY,
    PARAM_NAMES,
    PARAM_WORDS,
    PARAMS,
    PILOT_STAND_IN,
    Combatant,
    Craft,
    Crewed,
    Param,
    Size,
    Vehicle,
    default_points,
    parse_param,
    points_of,
    validate_vehicle,
    vehicle_from_record,
    vehicle_to_record,
)
from .rolls import (
    InitiativeResult,
    Part,
    ScaledRoll,
    StatResult,
    VehicleState,
    damage,
    initiative,
    repair,
    stat_ordinal,
    stat_roll,
    vehicle_state,
    wounds_survived,
)
from .scale import (
    DEFAULT_WOUNDS_SURVIVED,
    Cell,
    Scale,
    ScaleKind,
    ScaleRoll,
    VehicleRules,
    example_rules,
    read_scale,
    scale_kind,
)

__all__ = [
    "BUDGETS",
    "CAPS",
    "DEFAULT_WOUNDS_SURVIVED",
    "MOBILITY",
    "PARAMS",
    "PARAM_NAMES",
    "PARAM_WORDS",
    "PILOT_STAND_IN",
    "AttackResult",
    "Cell",
    "Combatant",
    "Craft",
    "Crewed",
    "InitiativeResult",
    "Param",
    "Part",
    "Scale",
    "ScaleKind",
    "ScaleRoll",
    "ScaledRoll",
    "Size",
    "StatResult",
    "Vehicle",
    "VehicleRules",
    "VehicleState",
    "attack",
    "damage",
    "default_points",
    "example_rules",
    "initiative",
    "parse_param",
    "points_of",
    "read_scale",
    "repair",
    "scale_kind",
    "stat_ordinal",
    "stat_roll",
    "validate_vehicle",
    "vehicle_from_record",
    "vehicle_state",
    "vehicle_to_record",
    "wounds_survived",
]
