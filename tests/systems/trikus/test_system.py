"""trikus wired into a campaign: §3.8's vectors through tags, pending tests, GM verbs, state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden, RuleViolation, UserError
from referee.pipeline.campaign import Campaign
from referee.system import installed_systems, load_system
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.system import SYSTEM
from referee.testing.campaign import make_campaign
from referee.testing.conformance import check_system
from referee.testing.resolving import resolve_tag, tag_context

SIDES = {
    "beginner": {"light_sides": ["kind", "curious", "brave"], "dark_sides": ["greedy"]},
    "advanced": {"light_sides": ["bold", "loyal"], "dark_sides": ["vain", "rash"]},
    "master": {"light_sides": ["wise"], "dark_sides": ["proud", "cold", "cruel"]},
}


def sheet(name: str, tier: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "owner": name.lower(), "tier": tier, **SIDES[tier], **fields}


def party_sheets() -> list[dict[str, Any]]:
    """The seed's party: Pawel a Beginner, Zuzia Advanced, Michal a Master; Ida a Beginner."""
    return [
        sheet("Pawel", "beginner", morale=1),
        sheet("Zuzia", "advanced"),
        sheet("Michal", "master"),
        sheet("Ida", "beginner", allies=["R4 droid"]),
    ]


@pytest.fixture
def campaign(tmp_path: Path):
    opened = make_campaign(tmp_path, party_sheets(), system="trikus")
    yield opened
    opened.close()


def tag(campaign: Campaign, text: str, dice=(), author: str = "gm", thread: str = "t3_a"):
    return resolve_tag(tag_context(campaign, author, thread=thread), text, dice)


def state(campaign: Campaign, name: str) -> dict[str, Any]:
    record: dict[str, Any] = campaign.store.table("characters").get(name.casefold())["sheet"]
    return record


def lines(campaign: Campaign, name: str) -> list[str]:
    return [line["status"] for line in state(campaign, name)["lines"]]


def outcomes(resolution) -> dict[str, Outcome]:
    return {k.name: k.outcome for k in resolution.result.takings}


# --------------------------------------------------------------------------- registry


def test_trikus_is_a_built_in_system() -> None:
    """`referee systems` lists trikus, and the registry loads it by name."""
    assert ("trikus" in installed_systems(), "trikus") == (True, load_system("trikus").name)


def test_trikus_passes_the_conformance_kit(tmp_path: Path) -> None:
    """Help and a resolving example per verb, GM refusals, hostile tags, exact odds vs 100k."""
    report = check_system(SYSTEM, tmp_path)
    assert ([], {verb.name for verb in SYSTEM.verbs}) == (report.problems, set(report.examples))


# ------------------------------------------------------------------- §3.8 vectors


def test_vector_1_master_wins_after_the_gm_takes_control_on_a_tie(campaign: Campaign) -> None:
    """Master 3 vs GM 2: G5 P7; G7 (tie takes control); P1; P9 -> Success, +1 Morale."""
    played = tag(campaign, "test Michal vs 2", [5, 7, 7, 1, 9]).result
    controls = [event.control for event in played.duel.throws]
    assert [("Michal",), ("GM",), ("GM",), ("Michal",)] == controls
    assert ({"Michal": Outcome.SUCCESS}, 1) == (
        outcomes_of(played),
        state(campaign, "michal")["morale"],
    )


def outcomes_of(played) -> dict[str, Outcome]:
    return {k.name: k.outcome for k in played.takings}


def test_vector_2_team_test_pairs_are_separate_duels(campaign: Campaign) -> None:
    """GM 3 / P 1 / Z 2: G6 P9 Z3; G5 Z4; G2 -> P Success, Z Failure; only P gains Morale."""
    tag(campaign, "open test 3 Pawel, Zuzia")
    tag(campaign, "declare Pawel", author="pawel")
    result = tag(campaign, "declare Zuzia", [6, 9, 3, 5, 4, 2], author="zuzia")
    assert {"Pawel": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE} == outcomes(result)
    assert (2, 0) == (state(campaign, "pawel")["morale"], state(campaign, "zuzia")["morale"])


def test_vector_5_an_equal_die_takes_control(campaign: Campaign) -> None:
    """P 2 vs GM 1: G8 P3; P8 -> Success (8 = 8 takes control)."""
    result = tag(campaign, "test Zuzia vs 1", [8, 3, 8])
    assert {"Zuzia": Outcome.SUCCESS} == outcomes(result)


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        ([6, 9, 3, 8, 7, 2], {"Pawel": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE}),
        ([6, 9, 3, 8, 8, 2], {"Pawel": Outcome.SUCCESS, "Zuzia": Outcome.SUCCESS}),
    ],
)
def test_vector_7_a_pair_compares_the_highest_dice(
    campaign: Campaign, dice: list[int], expected: dict[str, Outcome]
) -> None:
    """Z's 7 is below the GM's highest 8 (Failure); an 8 takes control (R-16)."""
    tag(campaign, "open test 3 Pawel, Zuzia")
    assert expected == outcomes(tag(campaign, "go", dice))


def test_vector_8_negotiation_waits_for_the_gm_and_costs_a_catastrophe(campaign: Campaign) -> None:
    """GM 2 vs Z 3: G4 Z7; G10; Z proposes, the GM agrees, 10 -> 8; Z fails: Catastrophe."""
    tag(campaign, "difficulty 2")
    pending = tag(campaign, "test Michal negotiate=9", [4, 7, 10], author="michal")
    assert ("Michal", 10, ["free"]) == (
        pending.result.pending.proposer,
        pending.result.pending.die,
        lines(campaign, "michal"),
    )
    with pytest.raises(Forbidden, match="Only a GM"):
        tag(campaign, "answer yes", author="michal")
    done = tag(campaign, "answer yes", [8, 5, 3])
    reroll = next(e for e in done.result.duel.events if hasattr(e, "proposer"))
    assert (10, True, 8) == (reroll.old, reroll.agreed, reroll.new)
    assert {"Michal": Outcome.FAILURE} == outcomes(done)
    assert ["lost"] == lines(campaign, "michal")
    assert "CATASTROPHE" in [c.kind.name for c in done.changes]


def test_vector_9_escape_needs_an_unrolled_die(campaign: Campaign) -> None:
    """G10, P8, Z3: Z with one die unrolled escapes (+1 Dark, Morale kept); P may not."""
    tag(campaign, "morale Zuzia 2")
    tag(campaign, "open test 1 Pawel, Zuzia")
    tag(campaign, "declare Pawel escape=1,1", author="pawel")
    result = tag(campaign, "declare Zuzia escape=1,1", [10, 8, 3], author="zuzia")
    assert {"Pawel": Outcome.FAILURE, "Zuzia": Outcome.ESCAPED} == outcomes(result)
    zuzia = state(campaign, "zuzia")
    assert (1, 2) == (zuzia["dark_active"], zuzia["morale"])


def test_vector_11_morale_committed_is_spent_and_a_failure_takes_the_rest(
    campaign: Campaign,
) -> None:
    """Morale 3, commit 2, Success -> 2 (1 kept + 1 gained); next Failure -> 0."""
    tag(campaign, "morale Zuzia 3")
    won = tag(campaign, "test Zuzia vs 1 morale=2", [2, 9], author="gm")
    assert ({"Zuzia": Outcome.SUCCESS}, 2) == (outcomes(won), state(campaign, "zuzia")["morale"])
    lost = tag(campaign, "test Zuzia vs 1", [9, 2])
    assert ({"Zuzia": Outcome.FAILURE}, 0) == (outcomes(lost), state(campaign, "zuzia")["morale"])


def test_vector_12_an_exhausted_master_empowered_and_beaten(campaign: Campaign) -> None:
    """An exhausted Master tests with Empowerment (2 dice), fails: +1 Dark, Catastrophe."""
    tag(campaign, "line Michal 1 struck")
    result = tag(campaign, "test Michal vs 1 empower", [9, 1, 2])
    michal = state(campaign, "michal")
    assert ({"Michal": Outcome.FAILURE}, 1, ["lost"]) == (
        outcomes(result),
        michal["dark_active"],
        lines(campaign, "michal"),
    )


def test_vector_13_a_lost_line_returns_at_the_second_refresh(campaign: Campaign) -> None:
    """A Beginner's Catastrophe: 2 lines at the next refresh, 3 at the one after."""
    tag(campaign, "test Pawel vs 1 empower", [9, 1, 2, 3])
    assert ["lost", "free", "free"] == lines(campaign, "pawel")
    tag(campaign, "refresh")
    assert ["lost", "free", "free"] == lines(campaign, "pawel")
    tag(campaign, "refresh")
    assert ["free", "free", "free"] == lines(campaign, "pawel")


def test_vector_3_a_fight_with_an_ally_round_by_round(campaign: Campaign) -> None:
    """Ida (line die + droid) vs GM 2: the droid dies, a won round, then Catastrophe."""
    tag(campaign, "open fight 2 Ida")
    first = tag(campaign, "declare Ida", [4, 4, 9, 2], author="ida")
    assert ({"Ida": Outcome.FAILURE}, []) == (outcomes(first), state(campaign, "ida")["allies"])
    second = tag(campaign, "go", [1, 3, 2])
    assert ({"Ida": Outcome.SUCCESS}, 1, 1) == (
        outcomes(second),
        second.result.fight.gm_dice,
        state(campaign, "ida")["morale"],
    )
    third = tag(campaign, "declare Ida morale=1", [10, 8, 9], author="ida")
    kinds = [c.kind.name for c in third.changes]
    assert (True, "CATASTROPHE" in kinds, 0) == (
        third.result.fight_over,
        True,
        state(campaign, "ida")["morale"],
    )
    with pytest.raises(RuleViolation, match="No test or fight is open"):
        tag(campaign, "go")


def test_vector_4_team_combat_attack_and_defend_in_order_of_value(campaign: Campaign) -> None:
    """P 1+1 Morale, Z 2, M 3 vs GM 5: M and Z succeed, P fails; M attacks, Z defends P."""
    tag(campaign, "open fight 5 Pawel, Zuzia, Michal")
    tag(campaign, "declare Pawel morale=1", author="pawel")
    tag(campaign, "declare Zuzia defend:Pawel", author="zuzia")
    dice = [8, 3, 5, 8, 8, 6, 9, 2, 7, 10, 3, 7]
    result = tag(campaign, "declare Michal attack", dice, author="michal")
    assert {"Pawel": Outcome.FAILURE, "Zuzia": Outcome.SUCCESS, "Michal": Outcome.SUCCESS} == (
        outcomes(result)
    )
    assert ((("Michal", None), ("Zuzia", "Pawel")), 4) == (
        result.result.actions,
        result.result.fight.gm_dice,
    )
    assert [8] == [boom.face for boom in result.result.booms]
    pools = {pool.name: pool.dice for pool in result.result.fight.pools}
    assert {"Pawel": 1, "Zuzia": 2, "Michal": 3} == pools


# ------------------------------------------------------------- declarations by post


def test_a_declaration_the_character_cannot_pay_says_what_he_has(campaign: Campaign) -> None:
    """Morale he has not got is refused with his free lines, Morale and Light."""
    tag(campaign, "open test 2 Zuzia, Pawel")
    with pytest.raises(RuleViolation) as refusal:
        tag(campaign, "declare Zuzia morale=2", author="zuzia")
    assert "Zuzia has 0 Morale dice, not 2" in refusal.value.message
    assert "free lines: 2-die, 1-die" in refusal.value.message


def test_a_player_declares_only_his_own_character(campaign: Campaign) -> None:
    """Another player's character is refused, naming its owner."""
    tag(campaign, "open test 2 Zuzia, Pawel")
    with pytest.raises(Forbidden, match="belongs to u/zuzia"):
        tag(campaign, "declare Zuzia", author="pawel")


def test_declarations_wait_across_posts_until_the_last_one(tmp_path: Path) -> None:
    """Each declaration is kept in the store; the campaign reopened, the last one resolves."""
    campaign = make_campaign(tmp_path, party_sheets(), system="trikus")
    tag(campaign, "open test 2 Zuzia, Pawel")
    waiting = tag(campaign, "declare Zuzia line=1", author="zuzia")
    assert ("declared", ("Pawel",)) == (waiting.kind, waiting.result.waiting_for)
    campaign.close()
    reopened = Campaign.open(tmp_path, need_secret=False)
    try:
        done = tag(reopened, "declare Pawel", [1, 9, 8, 2, 3], author="pawel")
        takings = {k.name: (k.declared, k.dice) for k in done.result.takings}
        assert {"Zuzia": ("line=1", 1), "Pawel": ("", 1)} == takings
        assert ["free", "struck"] == lines(reopened, "zuzia")
    finally:
        reopened.close()


def test_go_applies_the_defaults_and_an_exhausted_player_sits_out(campaign: Campaign) -> None:
    """Undeclared players take the defaults; one who cannot test by default sits out."""
    tag(campaign, "line Michal 1 struck")
    tag(campaign, "open test 1 Zuzia, Michal")
    result = tag(campaign, "go", [1, 9])
    assert ({"Zuzia": Outcome.SUCCESS, "Michal": Outcome.OPTED_OUT}, ("Michal",)) == (
        outcomes(result),
        result.result.sat_out,
    )
    assert ["struck", "free"] == lines(campaign, "zuzia")


def test_giving_up_a_success_cancels_a_failure(campaign: Campaign) -> None:
    """on_success=cancel: both end with no result; neither gains nor loses Morale (R-17)."""
    tag(campaign, "open test 1 Zuzia, Pawel")
    tag(campaign, "declare Zuzia on_success=cancel:Pawel", author="zuzia")
    result = tag(campaign, "declare Pawel", [5, 9, 2], author="pawel")
    assert {"Zuzia": Outcome.NO_RESULT, "Pawel": Outcome.NO_RESULT} == outcomes(result)
    assert (0, 1) == (state(campaign, "zuzia")["morale"], state(campaign, "pawel")["morale"])


def test_a_solo_test_needs_the_gms_difficulty(campaign: Campaign) -> None:
    """Without a standing difficulty a test is refused; a player may not name one."""
    with pytest.raises(RuleViolation, match=r"\[\[difficulty 2\]\]"):
        tag(campaign, "test Zuzia", author="zuzia")
    with pytest.raises(Forbidden, match="Only a GM may set a test's difficulty"):
        tag(campaign, "test Zuzia vs 1", author="zuzia")
    tag(campaign, "difficulty 1")
    result = tag(campaign, "test Zuzia", [3, 8], author="zuzia")
    assert ({"Zuzia": Outcome.SUCCESS}, result.result.takings[0].chance.exact) == (
        outcomes(result),
        result.chance,
    )


def test_the_difficulty_belongs_to_its_thread(campaign: Campaign) -> None:
    """A difficulty set in one thread does not reach another."""
    tag(campaign, "difficulty 1", thread="t3_one")
    with pytest.raises(RuleViolation, match="No difficulty"):
        tag(campaign, "test Zuzia", author="zuzia", thread="t3_two")


def test_overturn_after_a_boom_flips_the_result(campaign: Campaign) -> None:
    """Three 5s boom; the GM's overturn turns the Success into a Failure, Morale recomputed."""
    result = tag(campaign, "test Michal vs 2", [5, 5, 5, 6, 7])
    assert ([5], {"Michal": Outcome.SUCCESS}) == (
        [b.face for b in result.result.booms],
        outcomes(result),
    )
    turned = tag(campaign, "overturn")
    assert ({"Michal": Outcome.FAILURE}, 0) == (
        outcomes(turned),
        state(campaign, "michal")["morale"],
    )
    with pytest.raises(RuleViolation, match="already been overturned"):
        tag(campaign, "overturn")


def test_a_test_without_a_boom_is_not_overturned(campaign: Campaign) -> None:
    """The GM's overturn is refused when the last test had no Boom."""
    tag(campaign, "test Michal vs 2", [5, 7, 7, 1, 9])
    with pytest.raises(RuleViolation, match="no Boom"):
        tag(campaign, "overturn")


# --------------------------------------------------------------- GM verbs and state


@pytest.mark.parametrize("verb", [v for v in SYSTEM.verbs if v.gm_only], ids=lambda v: v.name)
def test_gm_verbs_are_refused_to_players_with_the_reason(campaign: Campaign, verb) -> None:
    """Every GM verb, written by a player, is refused saying only a GM may."""
    with pytest.raises(Forbidden, match="Only a GM may"):
        tag(campaign, verb.example, author="zuzia")


def test_gm_verbs_change_the_stored_state(campaign: Campaign) -> None:
    """Light granted, Dark spent, Morale set, a line edited, an advance: all in the store."""
    tag(campaign, "light Zuzia 2")
    tag(campaign, "test Pawel vs 1 empower", [9, 1, 2, 3])
    tag(campaign, "dark Pawel")
    tag(campaign, "morale Zuzia 4")
    tag(campaign, "line Zuzia 2 lost=3")
    tag(campaign, "advance Pawel")
    zuzia, pawel = state(campaign, "zuzia"), state(campaign, "pawel")
    assert (2, 4, ["free", "lost"], 3) == (
        zuzia["light"],
        zuzia["morale"],
        lines(campaign, "zuzia"),
        zuzia["lines"][1]["refreshes_left"],
    )
    assert (0, 1, "advanced") == (pawel["dark_active"], pawel["dark_used"], pawel["tier"])


def test_three_active_dark_tokens_turn_a_character(campaign: Campaign) -> None:
    """The third Dark token makes a fall: he is the GM's, and every lower tier advances."""
    for _ in range(3):
        tag(campaign, "refresh")
        tag(campaign, "test Zuzia vs 1 empower", [9, 1, 2, 3, 4])
    assert ("fallen", "advanced") == (
        state(campaign, "zuzia")["status"],
        state(campaign, "pawel")["tier"],
    )
    with pytest.raises(RuleViolation, match="fallen"):
        tag(campaign, "test Zuzia vs 1")


def test_the_masters_sacrifice_when_a_player_loses_all_dice_to_a_master(
    campaign: Campaign,
) -> None:
    """A fight against a GM-marked master: Pawel out of dice, the Master (not fighting) falls."""
    tag(campaign, "master Darth Nihl")
    opened = tag(campaign, "open fight 1 Pawel vs Darth Nihl")
    assert opened.result.master
    tag(campaign, "declare Pawel", [9, 1], author="pawel")
    assert ("fallen", "master", "advanced") == (
        state(campaign, "michal")["status"],
        state(campaign, "zuzia")["tier"],
        state(campaign, "pawel")["tier"],
    )


def test_everyone_exhausted_brings_the_lines_back(campaign: Campaign) -> None:
    """When the test that strikes the party's last line ends, every line returns (R-50)."""
    for name in ("Zuzia", "Michal", "Ida"):
        for number in range(1, 4):
            try:
                tag(campaign, f"line {name} {number} struck")
            except UserError:
                break
    tag(campaign, "line Pawel 1 struck")
    tag(campaign, "line Pawel 2 struck")
    result = tag(campaign, "test Pawel vs 1", [1, 9])
    assert "REFRESH" in [c.kind.name for c in result.changes]
    assert ["free", "free", "free"] == lines(campaign, "pawel")
    assert 1 == campaign.store.table("trikus_party").get("party")["refreshes"]


def test_a_refused_tag_leaves_no_half_change(campaign: Campaign) -> None:
    """A declaration refused at resolution rolls back: the open test is still waiting."""
    tag(campaign, "open test 2 Zuzia, Pawel")
    tag(campaign, "declare Zuzia", author="zuzia")
    with pytest.raises(UserError):
        tag(campaign, "declare Pawel morale=5", author="pawel")
    record = campaign.store.table("trikus_threads").get("t3_a")
    assert ({"Zuzia": ""}, ["free", "free"]) == (
        record["open"]["declarations"],
        lines(campaign, "zuzia"),
    )


# ------------------------------------------------------------ player against player


def test_a_duel_between_players_gives_one_success_and_one_failure(campaign: Campaign) -> None:
    """Michal (3) against Zuzia (2-die line, light=1): Z5 M7; Z8; M2; M3 -> Zuzia wins."""
    tag(campaign, "light Zuzia")
    tag(campaign, 'open duel Michal, Zuzia "the holocron"')
    tag(campaign, "declare Zuzia light=1", author="zuzia")
    result = tag(campaign, "declare Michal", [5, 7, 8, 2, 3], author="michal")
    assert {"Michal": Outcome.FAILURE, "Zuzia": Outcome.SUCCESS} == outcomes(result)
    assert "Zuzia" == result.result.gm_name
    michal, zuzia = state(campaign, "michal"), state(campaign, "zuzia")
    assert (0, ["struck"], 1, 1) == (
        michal["morale"],
        lines(campaign, "michal"),
        zuzia["morale"],
        zuzia["light"],
    )
    assert ["struck", "free"] == lines(campaign, "zuzia")


def test_a_duel_spends_the_seconds_light_only_when_needed(campaign: Campaign) -> None:
    """Zuzia's Light is her last die: rolled (and spent) only when she must roll with none."""
    tag(campaign, "light Zuzia")
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Zuzia line=1 light=1", author="zuzia")
    result = tag(campaign, "declare Michal", [5, 7, 8, 9], author="michal")  # Z5 M7; Z8(L)
    assert {"Michal": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE} == outcomes(result)
    spent = [c for c in result.changes if c.kind.name == "LIGHT_SPENT"]
    assert ([("Zuzia", 1)], 0) == (
        [(c.who, c.amount) for c in spent],
        state(campaign, "zuzia")["light"],
    )


def test_the_second_named_duellist_may_escape(campaign: Campaign) -> None:
    """Zuzia, named second, declares escape=1,7: Z5 M8; with 1 die left against Michal's 8
    she withdraws (+1 Dark, Morale kept) and Michal, in control, has his Success."""
    tag(campaign, "morale Zuzia 1")
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Zuzia escape=1,7", author="zuzia")
    result = tag(campaign, "declare Michal", [5, 8], author="michal")
    assert {"Michal": Outcome.SUCCESS, "Zuzia": Outcome.ESCAPED} == outcomes(result)
    zuzia = state(campaign, "zuzia")
    assert (1, 1, 1) == (zuzia["dark_active"], zuzia["morale"], state(campaign, "michal")["morale"])


def test_the_seconds_escape_has_the_odds_of_the_firsts(campaign: Campaign) -> None:
    """The duel is symmetric: Zuzia's escape named second gives each the chance she and
    Michal have with the names the other way round (her escape a first-named player's)."""
    tag(campaign, "open duel Michal, Zuzia", thread="t3_b")
    tag(campaign, "declare Zuzia escape=1,7", author="zuzia", thread="t3_b")
    second = tag(campaign, "declare Michal", [5, 8], author="michal", thread="t3_b")
    tag(campaign, "refresh")
    tag(campaign, "open duel Zuzia, Michal", thread="t3_c")
    tag(campaign, "declare Michal", author="michal", thread="t3_c")
    first = tag(campaign, "declare Zuzia escape=1,7", [8, 5], author="zuzia", thread="t3_c")
    chances = [{k.name: k.chance for k in r.result.takings} for r in (second, first)]
    assert chances[0] == chances[1]
    assert None not in chances[0].values()


def test_go_all_plays_a_fight_to_its_end_in_one_verdict(campaign: Campaign) -> None:
    """Vector 3 in one post: the droid dies, a won round, then the GM's last die falls."""
    tag(campaign, "open fight 2 Ida")
    tag(campaign, "morale Ida 1")
    result = tag(campaign, "go all", [4, 4, 9, 2, 1, 3, 2, 10, 8, 9])
    rounds = result.result.rounds
    assert [Outcome.FAILURE, Outcome.SUCCESS, Outcome.FAILURE] == [
        r.takings[0].outcome for r in rounds
    ]
    last = rounds[-1]
    assert (True, False, ()) == (last.fight_over, result.result.more, last.fight.pools[0].allies)
    assert {} == campaign.store.table("trikus_party").get("party")["fights"]


def test_go_all_carries_standing_choices_but_not_one_round_dice(campaign: Campaign) -> None:
    """Morale committed in round 1 is spent once; defend:<name> stands in every round."""
    tag(campaign, "morale Zuzia 2")
    tag(campaign, "open fight 3 Zuzia, Pawel")
    tag(campaign, "declare Zuzia morale=1 defend:Pawel", author="zuzia")
    result = tag(campaign, "go all", [5, 6, 7] * 30)
    declared = [[k.declared for k in r.takings if k.name == "Zuzia"] for r in result.result.rounds]
    assert ["morale=1 defend:Pawel"] == declared[0]
    assert all(d in ([], ["defend:Pawel"]) for d in declared[1:])


def test_go_all_is_for_fights(campaign: Campaign) -> None:
    """A test resolves with go; go all is refused there, saying so."""
    tag(campaign, "open test 2 Zuzia")
    with pytest.raises(RuleViolation, match="plays a fight to its end"):
        tag(campaign, "go all")


def test_the_gm_proposes_a_negotiation_to_a_player_who_accepts(campaign: Campaign) -> None:
    """open ... negotiate=8: Zuzia accepts; her 9 that took control is rolled again (3)."""
    tag(campaign, "open test 1 Zuzia negotiate=8")
    result = tag(campaign, "declare Zuzia line=1 accept", [5, 9, 3], author="zuzia")
    reroll = next(e for e in result.result.duel.events if hasattr(e, "proposer"))
    assert ("GM", "Zuzia", 9, 3) == (reroll.proposer, reroll.whose, reroll.old, reroll.new)
    assert {"Zuzia": Outcome.FAILURE} == outcomes(result)


def test_an_item_with_spaces_in_its_name_is_used_by_quoting_it(campaign: Campaign) -> None:
    """Olek's "Lucky charm" (helpful): use="Lucky charm" uses it; unquoted, the reply says how."""
    sheet = (
        "[[apply]]\n\n```\nname: Olek\ntier: beginner\nlight: honest, quick, stubborn\n"
        "dark: jealous\nitem: Lucky charm (helpful)\n```"
    )
    resolve_tag(tag_context(campaign, "olek", body=sheet), "apply")
    tag(campaign, "approve Olek")
    tag(campaign, "difficulty 2")
    with pytest.raises(UserError, match='quoted: use="Lucky charm"'):
        tag(campaign, "test Olek line=1 use=Lucky charm", [9, 1], author="olek")
    used = tag(campaign, 'test Olek line=1 use="Lucky charm"', [1, 9, 1, 1, 1], author="olek")
    assert ("test", "Olek") == (used.kind, used.result.standings[0].name)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("line Pawel 1 lost=0", "not 0; lost alone is 2"),
        ("open fight 3 Pawel difficulty=0", "Combat Difficulty is 1 to 20, not 0"),
    ],
)
def test_a_zero_that_would_mean_a_default_is_refused(
    campaign: Campaign, text: str, why: str
) -> None:
    """lost=0 and difficulty=0 are refused with the range, not read as the default."""
    with pytest.raises(UserError, match=why):
        tag(campaign, text)


def test_a_sheet_shows_only_the_item_traits_its_owner_has_found(campaign: Campaign) -> None:
    """The seed: not every trait is known to the owner; [[sheet]] shows helpful, not ?unreliable."""
    sheet = (
        "[[apply]]\n\n```\nname: Olek\ntier: beginner\nlight: honest, quick, stubborn\n"
        "dark: jealous\nitem: Lucky charm (helpful, ?unreliable)\n```"
    )
    resolve_tag(tag_context(campaign, "olek", body=sheet), "apply")
    tag(campaign, "approve Olek")
    shown = tag(campaign, "sheet Olek", author="olek").result
    words = " ".join(f"{label} {value}" for label, value in (*shown.summary, *shown.details))
    assert (True, False) == ("Lucky charm (helpful)" in words, "unreliable" in words)


def test_numbers_with_leading_zeros_are_read(campaign: Campaign) -> None:
    """[[difficulty 0002]] sets 2, as [[difficulty 2]] does."""
    assert 2 == tag(campaign, "difficulty 0002").result.gm_dice


def test_end_encounter_closes_the_threads_open_fight(campaign: Campaign) -> None:
    """[[end encounter]] closes an open fight with no result; a new fight may then open."""
    tag(campaign, "open fight 2 Pawel, Zuzia")
    ended = tag(campaign, "end encounter").result
    reopened = tag(campaign, "open fight 2 Zuzia").result
    assert (True, "fight", ("Pawel", "Zuzia"), "fight") == (
        ended.had_order,
        ended.detail.kind,
        ended.detail.participants,
        reopened.kind,
    )


def test_end_encounter_with_nothing_open_says_so(campaign: Campaign) -> None:
    """Nothing open in the thread: the encounter ends with nothing to close."""
    ended = tag(campaign, "end encounter").result
    assert (False, "") == (ended.had_order, ended.detail.kind)


# ----------------------------------------------- fighters dead or fallen mid-fight


GM_WINS = [10] + [1] * 20  # the GM's 10 takes every pair; the players' 1s never beat it


def test_a_fighter_killed_by_a_black_hole_is_dropped_from_the_fight(tmp_path: Path) -> None:
    """Zuzia fails using a black-hole crystal and dies: the next round waits for Pawel
    alone, and his declaration plays it (she no longer holds the fight open)."""
    crystal = {"name": "Crystal", "traits": ["black-hole"], "known": [True], "spent": False}
    sheets = [sheet("Zuzia", "advanced", equipment=[crystal]), sheet("Pawel", "advanced")]
    campaign = make_campaign(tmp_path, sheets, system="trikus")
    tag(campaign, "open fight 3 Zuzia, Pawel")
    tag(campaign, "declare Zuzia use=Crystal", author="zuzia")
    first = tag(campaign, "declare Pawel", GM_WINS, author="pawel")
    following = campaign.store.table("trikus_threads").get("t3_a")["open"]["participants"]
    second = tag(campaign, "declare Pawel", GM_WINS, author="pawel")
    assert ("dead", ["Pawel"]) == (state(campaign, "zuzia")["status"], following)
    assert (("Zuzia", "Pawel"), ("Pawel",)) == (
        first.result.names,
        second.result.names,
    )


def test_a_fighter_fallen_mid_round_is_dropped_from_the_fight(tmp_path: Path) -> None:
    """Pawel holds 2 Dark tokens and loses with Empowerment: the third turns him, and the
    fight goes on with Zuzia alone."""
    sheets = [sheet("Zuzia", "advanced"), sheet("Pawel", "advanced", dark_active=2)]
    campaign = make_campaign(tmp_path, sheets, system="trikus")
    tag(campaign, "open fight 3 Zuzia, Pawel")
    tag(campaign, "declare Pawel empower", author="pawel")
    tag(campaign, "declare Zuzia", GM_WINS, author="zuzia")
    following = campaign.store.table("trikus_threads").get("t3_a")["open"]["participants"]
    second = tag(campaign, "declare Zuzia", GM_WINS, author="zuzia")
    assert ("fallen", ["Zuzia"], ("Zuzia",)) == (
        state(campaign, "pawel")["status"],
        following,
        second.result.names,
    )


def test_a_fighter_dead_between_rounds_holds_nothing_up(tmp_path: Path) -> None:
    """Pawel is sacrificed between rounds (a GM verb): the open round plays on Zuzia's
    declaration alone."""
    sheets = [sheet("Zuzia", "advanced"), sheet("Pawel", "master")]
    campaign = make_campaign(tmp_path, sheets, system="trikus")
    tag(campaign, "open fight 4 Zuzia, Pawel")
    tag(campaign, "go", GM_WINS)
    tag(campaign, "sacrifice Pawel")
    played = tag(campaign, "declare Zuzia", GM_WINS, author="zuzia")
    assert ("dead", ("Zuzia",)) == (state(campaign, "pawel")["status"], played.result.names)
