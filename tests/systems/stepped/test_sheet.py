"""Stepped character sheets: validation of the application, records in and out."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from referee.base.errors import UserError
from referee.systems.stepped import (
    Background,
    Character,
    Kind,
    MagicParameter,
    Race,
    Rules,
    Rulings,
    Stat,
    Technique,
    Weapon,
    WeaponKind,
    character_from_record,
    character_to_record,
    validate_character,
)

KARA_RECORD = {
    "name": "Kara Venn",
    "kind": "pc",
    "race": "human",
    "background": "soldier",
    "named": True,
    "wounds_survived": 3,
    "wounds": 0,
    "incapacitated": False,
    "armour": 1,
    "stats": {"strength": 2, "agility": 3, "endurance": 3, "perception": 3},
    "weapons": [
        {"name": "blaster pistol", "kind": "ranged", "damage": "2d6"},
        {"name": "stun baton", "kind": "melee", "modifier": 1, "subdue": True},
    ],
    "magic": [
        {
            "name": "Force",
            "points": 2,
            "techniques": [
                {"name": "Telekinesis", "tier": "d4"},
                {"name": "Mind Trick", "tier": "d6"},
            ],
        }
    ],
}

# Magic points outside the budget (R-60 "free"): these tests are about the stats; the
# budget ruling has its own tests in tests/test_resolve_applications.py.
RULES = Rules(
    Rulings(magic_points="free"),
    races={"human": Race("human"), "wookiee": Race("wookiee", 4, {Stat.STRENGTH: 1})},
)


def kara(**changes: object) -> Character:
    """The brief's example sheet, valid."""
    return replace(character_from_record(KARA_RECORD), **changes)


def points(strength: int, agility: int, endurance: int, perception: int) -> dict[Stat, int]:
    """Four stats."""
    return dict(zip(Stat, (strength, agility, endurance, perception), strict=True))


def force(*techniques: tuple[str, int], points: int = 2) -> tuple[MagicParameter, ...]:
    """One Force parameter with the given (name, tier) techniques."""
    return (MagicParameter("Force", points, tuple(Technique(n, t) for n, t in techniques)),)


# ---------------------------------------------------------------------------
# Records


def test_example_record_reads() -> None:
    """The brief's sheet becomes the expected character."""
    expected = Character(
        "Kara Venn",
        Kind.PC,
        points(2, 3, 3, 3),
        Background.SOLDIER,
        "human",
        True,
        3,
        0,
        False,
        1,
        (
            Weapon("blaster pistol", WeaponKind.RANGED, 2, 6),
            Weapon("stun baton", WeaponKind.MELEE, modifier=1, can_subdue=True),
        ),
        force(("Telekinesis", 4), ("Mind Trick", 6)),
    )
    assert expected == character_from_record(KARA_RECORD)


def test_example_record_round_trips_through_json() -> None:
    """Writing a sheet and reading it back gives the same record and character."""
    record = character_to_record(character_from_record(KARA_RECORD))
    assert (KARA_RECORD, kara()) == (record, character_from_record(json.loads(json.dumps(record))))


@pytest.mark.parametrize(("kind", "survived"), [("pc", 3), ("npc", 0)])
def test_wounds_survived_defaults_by_kind(kind: str, survived: int) -> None:
    """A sheet without wounds_survived gets 3 for a PC and 0 for an NPC."""
    record = {k: v for k, v in KARA_RECORD.items() if k != "wounds_survived"} | {"kind": kind}
    assert survived == character_from_record(record).wounds_survived


@pytest.mark.parametrize(
    ("damage", "expected"),
    [("2d6", (2, 6, 0)), ("1d8+2", (1, 8, 2)), ("3D4 - 1", (3, 4, -1))],
)
def test_damage_strings(damage: str, expected: tuple[int, int, int]) -> None:
    """A ranged weapon's damage is NdX or NdX+M."""
    record = KARA_RECORD | {"weapons": [{"name": "gun", "kind": "ranged", "damage": damage}]}
    weapon = character_from_record(record).weapons[0]
    assert expected == (weapon.dice_count, weapon.dice_sides, weapon.modifier)


def test_abbreviated_stats_and_numeric_tiers_read() -> None:
    """Stats may be abbreviated and tiers given as numbers."""
    record = KARA_RECORD | {
        "stats": {"STR": 2, "agi": 3, "End": 3, "per": 3},
        "magic": [{"name": "Force", "points": 2, "techniques": [{"name": "Push", "tier": 4}]}],
    }
    c = character_from_record(record)
    assert (points(2, 3, 3, 3), force(("Push", 4))) == (c.stats, c.magic)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name": ""}, "name must be a non-empty text"),
        ({"colour": "red"}, "'colour' is not a field"),
        ({"kind": "monster"}, "kind 'monster' is not one of pc or npc."),
        ({"background": "wizard"}, "background 'wizard' is not one of"),
        ({"named": "yes"}, "named must be true or false, not 'yes'."),
        ({"armour": 1.5}, "armour must be a whole number, not 1.5."),
        (
            {"stats": {"strength": "three", "agility": 3, "endurance": 3, "perception": 3}},
            "stats.strength must be a whole number, not 'three'.",
        ),
        (
            {"stats": {"venn": 1, "strength": 2, "agility": 3, "endurance": 3, "perception": 3}},
            "'venn' is not a stat; the stats are strength, agility, endurance and perception.",
        ),
        ({"stats": 7}, "stats is missing"),
        (
            {"weapons": [{"name": "gun", "kind": "ranged", "damage": "lots"}]},
            "weapon 'gun': 'lots' is not a damage roll; write it like 2d6 or 2d6+1.",
        ),
        ({"weapons": [{"name": "gun", "kind": "laser"}]}, "weapon 'gun': kind 'laser'"),
        ({"weapons": [{"kind": "melee"}]}, "weapon 1: name is missing."),
        (
            {"weapons": [{"name": "gun", "kind": "ranged", "damage": "1d6+1", "modifier": 1}]},
            "give the modifier once",
        ),
        ({"weapons": "gun"}, "weapons must be a list."),
        (
            {
                "magic": [
                    {"name": "Force", "points": 2, "techniques": [{"name": "X", "tier": "big"}]}
                ]
            },
            "magic 'Force': technique 1: tier must be a die like d4 or d6, not 'big'.",
        ),
        ({"magic": [{"name": "Force"}]}, "magic 'Force': points is missing."),
        ({"armour": 10**20}, "armour must be from -99 to 99, not 100000000000000000000."),
        (
            {"stats": {"str": 10**20, "agi": 2, "end": 2, "per": 2}},
            "stats.strength must be from -99 to 99, not 100000000000000000000.",
        ),
    ],
)
def test_structural_problems_are_refused(change: dict, problem: str) -> None:
    """A record the reader cannot use raises UserError naming the problem."""
    with pytest.raises(UserError) as error:
        character_from_record(KARA_RECORD | change)
    assert problem in error.value.message


def test_every_structural_problem_is_listed_at_once() -> None:
    """Missing name, a bad stat and an unknown key are all reported together."""
    record = {k: v for k, v in KARA_RECORD.items() if k != "name"} | {
        "stats": {"strength": "x", "agility": 3, "endurance": 3, "perception": 3},
        "hat": True,
    }
    with pytest.raises(UserError) as error:
        character_from_record(record)
    expected = [
        "The character sheet has 3 problems:",
        "- 'hat' is not a field;",
        "- name is missing.",
        "- stats.strength must be a whole number, not 'x'.",
    ]
    assert expected == [part for part in expected if part in error.value.message]


def test_a_stat_left_out_is_a_rules_problem_not_a_structural_one() -> None:
    """A sheet without perception reads; validation then names the missing stat."""
    record = KARA_RECORD | {"stats": {"strength": 2, "agility": 3, "endurance": 3}}
    expected = ["Perception has no points; every stat needs 1 to 6."]
    assert expected == validate_character(character_from_record(record), RULES)


def test_a_record_that_is_not_a_table_is_refused() -> None:
    """A list is no sheet."""
    with pytest.raises(UserError):
        character_from_record([1, 2])  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# Validation


def test_valid_sheet_has_no_problems() -> None:
    """The example sheet is a valid application."""
    assert [] == validate_character(kara(), RULES)


@pytest.mark.parametrize(
    ("background", "stats", "problem"),
    [
        (
            Background.NONCOMBATANT,
            points(2, 2, 2, 1),
            "The stats spend 3 points above 1 each; a non-combatant has 3, so 0",
        ),
        (
            Background.NONCOMBATANT,
            points(2, 2, 2, 2),
            "The stats spend 4 points above 1 each; a non-combatant has 3, so 1 is over.",
        ),
        (
            Background.EXPERIENCED,
            points(2, 2, 2, 2),
            "The stats spend 4 points above 1 each; a combat-experienced character has 5, "
            "so 1 is unspent.",
        ),
        (
            Background.SOLDIER,
            points(1, 1, 1, 1),
            "The stats spend 0 points above 1 each; a professional soldier has 7, "
            "so 7 are unspent.",
        ),
    ],
)
def test_budget_must_be_spent_exactly(background, stats, problem) -> None:
    """Points over or under the background's budget are reported with the count."""
    problems = validate_character(kara(background=background, stats=stats), RULES)
    expected = [] if "so 0" in problem else [problem]
    assert expected == problems


@pytest.mark.parametrize(
    ("race", "stats", "expected"),
    [
        ("human", points(1, 4, 3, 3), ["Agility has 4 points; a human may have at most 3."]),
        ("Wookiee", points(4, 3, 2, 2), []),  # a wookiee may reach 4; race names fold case
        ("wookiee", points(5, 2, 2, 2), ["Strength has 5 points; a wookiee may have at most 4."]),
    ],
)
def test_race_caps(race: str, stats: dict, expected: list[str]) -> None:
    """Humans stop at 3 points; a race may change the cap."""
    assert expected == validate_character(kara(race=race, stats=stats), RULES)


@pytest.mark.parametrize(
    ("stats", "expected"),
    [
        (
            points(0, 3, 3, 5),
            [
                "Strength has 0 points; a stat has 1 to 6 points.",
                "Perception has 5 points; a human may have at most 3.",
            ],
        ),
        (
            points(7, 1, 1, 2),
            [
                "Strength has 7 points; a stat has 1 to 6 points.",
                "Strength has 7 points; a human may have at most 3.",
            ],
        ),
        (
            {Stat.STRENGTH: 2, Stat.AGILITY: 3, Stat.ENDURANCE: 3},
            ["Perception has no points; every stat needs 1 to 6."],
        ),
    ],
)
def test_points_outside_one_to_six(stats: dict, expected: list[str]) -> None:
    """0 and 7 points, and a missing stat, are each reported."""
    assert expected == validate_character(kara(stats=stats), RULES)


def test_unknown_race() -> None:
    """A race missing from the table is reported with the choices."""
    expected = ["The race 'elf' is not in the race table; choose human or wookiee."]
    assert expected == validate_character(kara(race="elf"), RULES)


@pytest.mark.parametrize(
    ("magic", "expected"),
    [
        (force(("a", 4), ("b", 4), ("c", 4), ("d", 4), ("e", 6), ("f", 6)), []),
        (
            force(("a", 4), ("b", 4), ("c", 4), ("d", 4), ("e", 4)),
            ["Force holds 5 techniques at d4; the d4 tier holds 4."],
        ),
        (
            force(("a", 6), ("b", 6), ("c", 6)),
            ["Force holds 3 techniques at d6; the d6 tier holds 2."],
        ),
        (force(("Lightning", 8)), ["Lightning sits at d8, above Force's own d6."]),
        (
            force(("a", 4), ("b", 4), ("c", 4), ("d", 4), ("e", 6), ("f", 6), ("g", 8), points=2),
            [
                "g sits at d8, above Force's own d6.",
                "Force holds 7 techniques; a d6 holds at most 6.",
            ],
        ),
        (
            force(
                *[(f"t{i}", 4) for i in range(4)],
                *[(f"u{i}", 20) for i in range(8)],
                *[(f"v{tier}.{i}", tier) for tier in (6, 8, 10, 12) for i in range(2)],
                points=6,
            ),
            [],
        ),
        (
            force(("a", 5)),
            ["a sits at d5, which is not a tier; the tiers are d4, d6, d8, d10, d12 and d20."],
        ),
        (force(points=0), ["Force has 0 points; a magic parameter has 1 to 6 points."]),
        (force(points=7), ["Force has 7 points; a magic parameter has 1 to 6 points."]),
        (
            force(("Push", 4), ("push", 4)),
            ["Two techniques are called 'push'; give each its own name."],
        ),
    ],
)
def test_magic_tiers_and_capacity(magic, expected: list[str]) -> None:
    """Tiers hold 4, 2, 2, 2, 2, 8 techniques; none above the own die; no more than its faces."""
    assert expected == validate_character(kara(magic=magic), RULES)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"weapons": (Weapon("rifle", WeaponKind.RANGED),)},
            ["The ranged weapon 'rifle' has no damage dice; write its damage as NdX, like 2d6."],
        ),
        (
            {"weapons": (Weapon("axe", WeaponKind.MELEE, 1, 6),)},
            [
                "The melee weapon 'axe' has damage dice; melee damage is a Strength roll plus the "
                "weapon's modifier, so give it a modifier instead."
            ],
        ),
        (
            {
                "weapons": (
                    Weapon("gun", WeaponKind.RANGED, 1, 6),
                    Weapon("Gun", WeaponKind.RANGED, 1, 8),
                )
            },
            ["Two weapons are called 'Gun'; give each its own name."],
        ),
        ({"armour": -1}, ["Armour is -1; it cannot be negative."]),
        (
            {"wounds_survived": 4},
            [
                "A player character always survives 3 wounds, not 4; only a GM sets "
                "tough (2 or 3) on an NPC."
            ],
        ),
        (
            {"kind": Kind.NPC, "wounds_survived": 1},
            ["An NPC survives 0 wounds (an ordinary NPC) or 2 or 3 (a tough one), not 1."],
        ),
        ({"wounds": 5}, ["The character carries 5 wounds; one past the 3 survived already kills."]),
        ({"name": " "}, ["The character needs a name."]),
    ],
)
def test_other_sheet_problems(changes: dict, expected: list[str]) -> None:
    """Weapons, armour, wounds and names are checked too."""
    assert expected == validate_character(kara(**changes), RULES)


def test_every_problem_is_reported_at_once() -> None:
    """Several problems come back together, one sentence each."""
    bad = kara(
        stats=points(4, 3, 3, 3),
        armour=-2,
        race="human",
        weapons=(Weapon("rifle", WeaponKind.RANGED),),
    )
    assert 4 == len(validate_character(bad, RULES))


def test_a_race_cap_names_the_race_with_its_article() -> None:
    """A race whose name opens with a vowel reads "an ewok may have at most 3"."""
    rules = replace(RULES, races={**RULES.races, "ewok": Race("ewok")})
    expected = ["Agility has 4 points; an ewok may have at most 3."]
    assert expected == validate_character(kara(race="ewok", stats=points(1, 4, 3, 3)), rules)
