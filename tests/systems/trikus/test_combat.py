"""§3.8 combat vectors (3, 4, 10) dice for dice, and the rules of rounds, pools and blows."""

from __future__ import annotations

import pytest

from referee.base.dice import FixedDice
from referee.base.errors import RuleViolation
from referee.systems.trikus import combat
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.combat import Blow, start_fight
from referee.systems.trikus.duel import Boom, Throw
from referee.systems.trikus.policy import Policy
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.rulings import Rulings
from referee.systems.trikus.state import Item, LineStatus, Party, Status, Trait


def resolve_round(*args, **kwargs):
    """resolve_round without the exact odds, which test_odds checks."""
    return combat.resolve_round(*args, **kwargs, with_odds=False)


def throws(result) -> list[list[tuple[str, int]]]:
    return [[(d.who, d.value) for d in e.dice] for e in result.duel.events if isinstance(e, Throw)]


def test_vector_3_droid_dies_first_then_catastrophe(party: Party, character) -> None:
    """§3.8 #3: Z with a droid vs GM 2 over three rounds: the droid dies, a win, a Catastrophe."""
    party = party.with_character(character("Z", "advanced", allies=("droid",)))
    fight = start_fight(2)
    first = resolve_round(party, fight, [("Z", Policy(line=1))], FixedDice([4, 4, 9, 2]))
    assert [[("GM", 4), ("Z", 4)], [("GM", 9), ("Z", 2)]] == throws(first)
    assert ("Z",) == first.duel.throws[0].voided
    assert Change(ChangeKind.ALLY_DIED, "Z", 0, "droid") in first.changes
    party = apply(party, first.changes)
    assert () == party.character("Z").allies
    assert (1, ()) == (first.fight.pools[0].line_dice, first.fight.pools[0].allies)

    second = resolve_round(party, first.fight, [("Z", Policy())], FixedDice([1, 3, 2]))
    assert [[("GM", 1), ("Z", 3)], [("GM", 2)]] == throws(second)
    assert 1 == second.fight.gm_dice
    party = apply(party, second.changes)
    assert 1 == party.character("Z").morale

    third = resolve_round(party, second.fight, [("Z", Policy(morale=1))], FixedDice([10, 8, 9]))
    assert [[("GM", 10), ("Z", 8)], [("Z", 9)]] == throws(third)
    assert Outcome.FAILURE == third.participants[0].outcome
    assert third.over and "no dice" == third.fight.pools[0].out
    party = apply(party, third.changes)
    assert LineStatus.LOST == party.character("Z").lines[1].status
    assert ChangeKind.CATASTROPHE in [c.kind for c in third.changes]


def test_vector_4_team_round_attack_and_defend_in_order_of_value(party: Party) -> None:
    """§3.8 #4: P 1+1 Morale, Z 2, M 3 vs GM 5: M (10) attacks, Z (9) defends P; a Boom of 8s."""
    party = apply(party, [Change(ChangeKind.MORALE_GAINED, "P", 1)])
    declared = [("P", Policy(morale=1)), ("Z", Policy(line=2, defend="P")), ("M", Policy())]
    dice = FixedDice([8, 3, 5, 8, 8, 6, 9, 2, 7, 10, 3, 7])
    result = resolve_round(party, start_fight(5), declared, dice)
    assert 0 == dice.remaining
    assert [
        [("GM", 8), ("P", 3), ("Z", 5), ("M", 8)],
        [("GM", 8), ("P", 6), ("Z", 9), ("M", 2)],
        [("GM", 7), ("M", 10)],
        [("GM", 3)],
        [("GM", 7)],
    ] == throws(result)
    outcomes = [p.outcome for p in result.participants]
    assert [Outcome.FAILURE, Outcome.SUCCESS, Outcome.SUCCESS] == outcomes
    assert (Boom(8, 2),) == result.duel.booms
    assert (("M", None), ("Z", "P")) == result.actions
    assert 4 == result.fight.gm_dice
    assert 1 == result.fight.pool("P").dice  # defended: he keeps his die
    after = apply(party, result.changes)
    assert (0, 1, 1) == tuple(after.character(n).morale for n in "PZM")


@pytest.mark.parametrize(
    ("defenders", "blow", "keeps"),
    [(("Z",), 8, False), (("Z",), 4, True), (("Z", "M"), 6, True), (("Z", "M"), 7, False)],
)
def test_vector_10_defenders_raise_the_gms_difficulty(
    party: Party, defenders: tuple[str, ...], blow: int, keeps: bool
) -> None:
    """§3.8 #10: difficulty 3, each defender +2: the GM needs 5 (one), 7 (two) to take P's die."""
    declared = [("P", Policy()), ("Z", Policy(line=1, defend="P"))]
    duel = [6, 3, 8]
    if "M" in defenders:
        declared.append(("M", Policy(defend="P")))
        duel.append(9)
    result = resolve_round(party, start_fight(1, difficulty=3), declared, FixedDice([*duel, blow]))
    needed = 3 + 2 * len(defenders)
    assert (Blow("GM", "P", blow, needed, not keeps),) == result.blows
    assert (1 if keeps else 0) == result.fight.pool("P").dice
    assert all(
        m == 0
        for m in (
            c.amount for c in result.changes if c.who == "P" and c.kind is ChangeKind.MORALE_GAINED
        )
    )


def test_vector_10_every_attacker_rolls_against_the_difficulty(party: Party) -> None:
    """§3.8 #10: all succeed and attack: P5 Z7 M2 against 3: the GM loses 2 dice, no Morale."""
    declared = [("P", Policy()), ("Z", Policy(line=1)), ("M", Policy())]
    dice = FixedDice([1, 9, 8, 7, 2, 3, 5, 7, 2])
    result = resolve_round(party, start_fight(3, difficulty=3), declared, dice)
    assert 0 == dice.remaining
    assert [("P", 5, True), ("Z", 7, True), ("M", 2, False)] == [
        (b.by, b.roll, b.lands) for b in result.blows
    ]
    assert 1 == result.fight.gm_dice
    after = apply(party, result.changes)
    assert (1, 1, 1) == tuple(after.character(n).morale for n in "PZM")


def test_losing_all_dice_to_a_master_npc_costs_the_master(party: Party) -> None:
    """The Master's sacrifice: P loses all dice to a master NPC; M fought, so he dies."""
    declared = [("P", Policy()), ("M", Policy())]
    fight = start_fight(2, master_npc=True)
    result = resolve_round(party, fight, declared, FixedDice([9, 3, 1, 2, 4, 5]))
    assert result.sacrifice
    after = apply(party, result.changes)
    assert Status.DEAD == after.character("M").status
    assert ("advanced", "master") == (
        after.character("P").tier.value,
        after.character("Z").tier.value,
    )


def test_later_rounds_refuse_a_new_line_and_outsiders(party: Party) -> None:
    """Pools carry over: a later round strikes no line, and only fighters may declare."""
    first = resolve_round(party, start_fight(3), [("M", Policy())], FixedDice([1, 9, 2, 3]))
    with pytest.raises(RuleViolation, match="no new line"):
        resolve_round(party, first.fight, [("M", Policy(line=3))], FixedDice([]))
    with pytest.raises(RuleViolation, match="not fighting"):
        resolve_round(party, first.fight, [("P", Policy())], FixedDice([]))


def test_owner_loss_order_keeps_the_ally(party: Party, character) -> None:
    """R-18 "owner": lose=line spends a line die before the ally."""
    party = party.with_character(character("Z", "advanced", allies=("droid",)))
    rulings = Rulings.from_mapping({"loss_order": "owner"})
    declared = [("Z", Policy(line=2, lose="line"))]
    result = resolve_round(party, start_fight(1), declared, FixedDice([9, 1, 2, 3]), rulings)
    assert ((1, ("droid",))) == (result.fight.pools[0].line_dice, result.fight.pools[0].allies)


def test_equipment_pips_move_the_difficulty_and_helpful_adds_a_die(party: Party, character) -> None:
    """R-21: an offensive pip lowers Z's attack to 4, a defensive pip raises the GM's to 6."""
    vibro = Item("Vibro", (Trait.OFFENSIVE, Trait.HELPFUL))
    shield = Item("Shield", (Trait.DEFENSIVE,), (False,))
    party = party.with_character(character("Z", "advanced", equipment=(vibro,)))
    party = party.with_character(character("P", "beginner", equipment=(shield,)))
    declared = [("P", Policy(use=("Shield",))), ("Z", Policy(line=1, use=("Vibro",)))]
    dice = FixedDice([6, 3, 8, 4, 5])
    result = resolve_round(party, start_fight(1, difficulty=5), declared, dice)
    assert 0 == dice.remaining
    assert (Blow("Z", "GM", 4, 4, True), Blow("GM", "P", 5, 6, False)) == result.blows
    assert (1, 1) == (result.fight.pool("Z").line_dice, result.fight.pool("Z").helpful)
    assert result.over
    assert Change(ChangeKind.TRAIT_REVEALED, "P", 0, "Shield") in result.changes
