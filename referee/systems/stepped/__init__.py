"""The ``stepped`` system (seed 002, RULES.md §1.1-1.4): stepped dice, the wild d6, combat, magic.

The package is split by topic: :mod:`.traits` (stats, dice, characters), :mod:`.rulings`,
:mod:`.sheet` (validation and records), :mod:`.rolls` (trait rolls, the wild d6, initiative),
:mod:`.combat`, :mod:`.magic`, :mod:`.odds` (exact chances) and :mod:`.vehicles` (§1.5-1.6).
This module re-exports their public names, so ``stepped.roll_trait`` works.

Everything here is a pure function over small frozen values. Randomness comes in
through a :class:`~referee.base.dice.DiceSource`; the dice are drawn in a fixed order so
a worked example can be replayed with :class:`~referee.base.dice.FixedDice`:

* a roll draws its trait (or damage) dice in order, then the wild d6 if it has one;
* an attack draws the hit roll, the defence roll, the damage roll, then the soak roll.

The stages of one roll::

    Character --plan--> (dice, wild?, modifiers) --dice--> TraitRoll
                                   \\--odds--> exact chance (odds)

A Kara with Agility 3 (d8) rolls with her wild d6 and takes the higher:

>>> from referee.base.dice import FixedDice
>>> kara = Character("Kara", Kind.PC, {Stat.STRENGTH: 2, Stat.AGILITY: 3,
...     Stat.ENDURANCE: 3, Stat.PERCEPTION: 3}, named=True, wounds_survived=3)
>>> roll = roll_trait(kara, [Stat.AGILITY], Rules(), FixedDice([2, 5]))
>>> roll.total, roll.exceptional, roll.critical
(5, False, False)

Where RULES.md leaves a choice, :class:`Rulings` names it (R-1..R-7 and the few
options this module had to add), and a GM sets it in config.toml.
"""

from .checks import validate_character
from .combat import (
    DEFENCE_STATS,
    HIT_STATS,
    LOCATION_WORDS,
    SOAK_STATS,
    AttackKind,
    AttackResult,
    Exchange,
    Location,
    PlanT,
    RollT,
    apply_wounds,
    attack,
    automatic_hit,
    called_shot_modifier,
    exchange,
    heal,
    parse_location,
    plan_damage,
)
from .magic import CastResult, cast
from .rolls import (
    DieRoll,
    InitiativeResult,
    Modifier,
    RollPlan,
    TraitRoll,
    execute_plan,
    initiative,
    plan_trait,
    refuse_if_down,
    roll_dice_for,
    roll_trait,
    wound_penalty,
)
from .rulings import (
    CriticalWhen,
    ExceptionalOn,
    PenaltyAppliesTo,
    Rules,
    Rulings,
    Ties,
    WildReplaces,
    find_race,
    is_whole_number,
    load_races,
)
from .sheet import (
    SheetReader,
    character_from_record,
    character_to_record,
    parse_damage,
)
from .traits import (
    BACKGROUND_NAMES,
    BACKGROUND_WORDS,
    BUDGETS,
    DEFAULT_WOUNDS_SURVIVED,
    LADDER,
    STAT_WORDS,
    TIER_CAPACITY,
    UNARMED,
    Background,
    Character,
    Kind,
    MagicParameter,
    PersonalTrait,
    Race,
    Stat,
    State,
    Technique,
    Weapon,
    WeaponKind,
    die_for_points,
    is_named,
    parse_stat,
    state_of,
)

__all__ = [
    "BACKGROUND_NAMES",
    "BACKGROUND_WORDS",
    "BUDGETS",
    "DEFAULT_WOUNDS_SURVIVED",
    "DEFENCE_STATS",
    "HIT_STATS",
    "LADDER",
    "LOCATION_WORDS",
    "SOAK_STATS",
    "STAT_WORDS",
    "TIER_CAPACITY",
    "UNARMED",
    "AttackKind",
    "AttackResult",
    "Background",
    "CastResult",
    "Character",
    "CriticalWhen",
    "DieRoll",
    "ExceptionalOn",
    "Exchange",
    "InitiativeResult",
    "Kind",
    "Location",
    "MagicParameter",
    "Modifier",
    "PenaltyAppliesTo",
    "PersonalTrait",
    "PlanT",
    "Race",
    "RollPlan",
    "RollT",
    "Rules",
    "Rulings",
    "SheetReader",
    "Stat",
    "State",
    "Technique",
    "Ties",
    "TraitRoll",
    "Weapon",
    "WeaponKind",
    "WildReplaces",
    "apply_wounds",
    "attack",
    "automatic_hit",
    "called_shot_modifier",
    "cast",
    "character_from_record",
    "character_to_record",
    "die_for_points",
    "exchange",
    "execute_plan",
    "find_race",
    "heal",
    "initiative",
    "is_named",
    "is_whole_number",
    "load_races",
    "parse_damage",
    "parse_location",
    "parse_stat",
    "plan_damage",
    "plan_trait",
    "refuse_if_down",
    "roll_dice_for",
    "roll_trait",
    "state_of",
    "validate_character",
    "wound_penalty",
]
