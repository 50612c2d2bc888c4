"""Stepped invariants under Hypothesis, and the attack hot path's speed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.systems.stepped import (
    LADDER,
    Background,
    Character,
    CriticalWhen,
    ExceptionalOn,
    Kind,
    MagicParameter,
    Modifier,
    Race,
    Rules,
    Rulings,
    Stat,
    Technique,
    Weapon,
    WeaponKind,
    WildReplaces,
    apply_wounds,
    character_from_record,
    character_to_record,
    heal,
    roll_dice_for,
    roll_trait,
    validate_character,
)
from referee.systems.stepped.odds import trait_distribution

names = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
).filter(lambda s: s.strip() != "")
small = st.integers(min_value=-3, max_value=8)

rulings = st.builds(
    Rulings,
    wild_die_replaces=st.sampled_from(WildReplaces),
    exceptional_on=st.sampled_from(ExceptionalOn),
    critical_when=st.sampled_from(CriticalWhen),
    critical_beats_exceptional=st.booleans(),
    wound_penalty=st.integers(0, 3),
    critical_for_unnamed=st.booleans(),
    wild_die_on_damage=st.booleans(),
)

weapons = st.builds(
    Weapon,
    names,
    st.sampled_from(WeaponKind),
    st.integers(0, 4),
    st.integers(0, 12),
    st.integers(-3, 3),
    st.booleans(),
)
techniques = st.builds(Technique, names, st.sampled_from((*LADDER, 5, 0)))
magic = st.builds(MagicParameter, names, small, st.lists(techniques, max_size=5).map(tuple))

characters = st.builds(
    Character,
    name=names,
    kind=st.sampled_from(Kind),
    stats=st.dictionaries(st.sampled_from(Stat), small),
    background=st.sampled_from(Background),
    race=st.sampled_from(["human", "wookiee", "elf"]),
    named=st.booleans(),
    wounds_survived=st.integers(-1, 5),
    wounds=st.integers(-1, 6),
    incapacitated=st.booleans(),
    armour=st.integers(-2, 3),
    weapons=st.lists(weapons, max_size=3).map(tuple),
    magic=st.lists(magic, max_size=2).map(tuple),
)

fighters = st.builds(
    Character,
    name=names,
    kind=st.sampled_from(Kind),
    stats=st.fixed_dictionaries({stat: st.integers(1, 6) for stat in Stat}),
    named=st.booleans(),
    wounds_survived=st.integers(0, 3),
    wounds=st.integers(0, 4),
).filter(lambda c: c.wounds <= c.wounds_survived + 1)

RULES = Rules(races={"human": Race("human"), "wookiee": Race("wookiee", 4, {Stat.STRENGTH: 1})})


@given(
    fighters,
    st.lists(st.sampled_from(Stat), min_size=1, max_size=4),
    rulings,
    st.integers(-5, 5),
    st.integers(0, 2**32),
)
def test_trait_total_lies_within_its_dice_bounds(c, stats, rulings, bonus, seed) -> None:
    """A total lies between all ones and all maxima (the wild d6 included) plus modifiers."""
    rules = Rules(rulings)
    roll = roll_trait(c, stats, rules, SeededDice(seed), [Modifier("situational", bonus)])
    sides = [die.sides for die in roll.dice]
    modifiers = sum(m.value for m in roll.modifiers)
    wild_top = max(0, 6 - min(sides)) if roll.wild else 0
    low, high = len(sides) + modifiers, sum(sides) + wild_top + modifiers
    exact = trait_distribution(sides, roll.wild is not None, modifiers, rulings)
    assert (True, True) == (low <= roll.total <= high, roll.total in exact)


@given(
    fighters, st.integers(1, 5), st.sampled_from((2, 4, 6, 10, 20)), rulings, st.integers(0, 2**32)
)
def test_damage_total_lies_within_its_dice_bounds(c, count, sides, rulings, seed) -> None:
    """Damage dice, with or without the wild d6, stay within their bounds plus modifiers."""
    roll = roll_dice_for(c, "gun", count, sides, Rules(rulings), SeededDice(seed))
    modifiers = sum(m.value for m in roll.modifiers)
    wild_top = max(0, 6 - sides) if roll.wild else 0
    assert count + modifiers <= roll.total <= count * sides + wild_top + modifiers


@given(
    fighters,
    st.lists(
        st.tuples(st.sampled_from(["wound", "subdue", "heal"]), st.integers(0, 5)), max_size=12
    ),
)
def test_wounds_never_pass_death(c, steps) -> None:
    """Whatever wounds, subdues and heals happen, wounds stay within 0..wounds_survived+1."""
    for action, count in steps:
        if action == "heal":
            if c.wounds <= c.wounds_survived:
                c = heal(c, count)
        else:
            c = apply_wounds(c, count, RULES, subdue=action == "subdue")
        assert 0 <= c.wounds <= c.wounds_survived + 1


@given(fighters.filter(lambda c: c.wounds <= c.wounds_survived), st.integers(0, 5))
def test_subdue_never_kills(c, count) -> None:
    """Subduing wounds alone never kill a living character."""
    after = apply_wounds(c, count, RULES, subdue=True)
    assert after.wounds <= c.wounds_survived


@settings(max_examples=300)
@given(characters)
def test_validate_character_never_raises(c) -> None:
    """Any sheet, however wrong, yields a list of sentences rather than an exception."""
    problems = validate_character(c, RULES)
    assert all(isinstance(p, str) and p.endswith(".") for p in problems)


@given(characters.filter(lambda c: all(w.dice_count >= 0 for w in c.weapons)))
def test_records_round_trip(c) -> None:
    """Every character written as a record reads back equal."""
    try:
        back = character_from_record(character_to_record(c))
    except UserError as error:  # pragma: no cover - a failure shows the message
        raise AssertionError(error.message) from error
    assert c == back
