"""Each system's state stays within its rules through the GM's corrections: a voided tag's
undo (by the difference it made) never leaves a value no rule allows, and each system's
invariants name what would. Through the real pipeline: posts, the ledger, [[void]]."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.system import load_system
from referee.systems.trikus.state import Fight, Pool
from referee.testing.campaign import example_campaign
from referee.testing.random_play import state_tables

_POSTS = itertools.count(1)


def _post(referee: Referee, tag: str, author: str = "gm", thread: str = "t3_a") -> str:
    """Post ``tag`` as a post of its own; the roll id of its first tag."""
    number = next(_POSTS)
    referee.referee(Post(f"t1_s{number}", thread, author, f"[[{tag}]]", float(number)))
    return f"s{number}-1"


def _sheet(campaign: Campaign, key: str) -> dict[str, Any]:
    return campaign.store.table("characters").get(key)["sheet"]


def _play(system: str, tmp_path: Path) -> tuple[Campaign, Referee]:
    campaign = example_campaign(load_system(system), tmp_path)
    return campaign, Referee(campaign)


def test_stepped_a_voided_wound_after_a_heal_leaves_no_negative_wounds(tmp_path: Path):
    """Kara takes 2 wounds, is healed, and the wounding is voided: 0 wounds, not -2."""
    campaign, referee = _play("stepped", tmp_path)
    wound = _post(referee, "wound Kara +2")
    _post(referee, "heal Kara")
    _post(referee, f"void {wound} wrong target")
    assert (0, []) == (
        _sheet(campaign, "kara venn")["wounds"],
        campaign.system.invariants(state_tables(campaign), campaign.rules),
    )


def test_pool_a_voided_difficulty_set_since_keeps_the_later_one(tmp_path: Path):
    """difficulty 7, then 9, and the 7 voided: the thread's difficulty is 9 (a setting is
    not a counter: by difference it would be 11, past any difficulty)."""
    campaign, referee = _play("pool", tmp_path)
    first = _post(referee, "difficulty 7")
    _post(referee, "difficulty 9")
    _post(referee, f"void {first} wrong thread")
    assert 9 == campaign.store.table("pool_threads").get("t3_a")["difficulty"]


def test_pool_a_voided_willpower_spend_keeps_points_within_the_sheet(tmp_path: Path):
    """Kara spends a point (5 -> 4), the GM sets her points to 5, the roll is voided: she
    has 5, her Willpower, not 6."""
    campaign, referee = _play("pool", tmp_path)
    spend = _post(referee, "roll Kara dexterity+stealth willpower", author="player")
    _post(referee, "set Kara points 5")
    _post(referee, f"void {spend} rolled too early")
    assert 5 == _sheet(campaign, "kara")["willpower_points"]


def test_hits_a_voided_harm_after_an_intermission_leaves_stress_at_zero(tmp_path: Path):
    """Stress 1 from a harm, cleared by an Intermission, the harm voided: Stress 0, not -1."""
    campaign, referee = _play("hits", tmp_path)
    harm = _post(referee, "harm Nova stress 1")
    _post(referee, "intermission")
    _post(referee, f"void {harm} wrong character")
    assert (0, []) == (
        _sheet(campaign, "nova")["stress"],
        campaign.system.invariants(state_tables(campaign), campaign.rules),
    )


def test_hits_a_voided_tension_after_a_new_scene_keeps_the_scene_s(tmp_path: Path):
    """Tension 2, then a new scene (Tension 1), and the Tension voided: 1, not 0."""
    campaign, referee = _play("hits", tmp_path)
    _post(referee, "scene combat")
    tension = _post(referee, "tension 2")
    _post(referee, "scene unstructured")
    _post(referee, f"void {tension} too soon")
    assert 1 == campaign.store.table("hits_campaign").get("campaign")["scene"]["tension"]


def test_edge_a_voided_set_after_a_revive_keeps_the_count_of_resets(tmp_path: Path):
    """The GM sets the Raider Boss's advantage (an outright write), revives him (as he
    entered play), then voids the set: the count of outright writes is 0, not -1."""
    campaign, referee = _play("edge", tmp_path)
    set_it = _post(referee, "set Raider Boss advantage 4")
    _post(referee, "revive Raider Boss")
    _post(referee, f"void {set_it} wrong character")
    assert (0, []) == (
        _sheet(campaign, "raider boss").get("resets", 0),
        campaign.system.invariants(state_tables(campaign), campaign.rules),
    )


def test_trikus_invariants_name_a_dead_fighter_still_fighting() -> None:
    """A stored fight whose pool holds a dead character still fighting is reported."""
    trikus = load_system("trikus")
    sheet = trikus.sheet
    kara = sheet.to_record(
        sheet.from_record(
            {
                "name": "Kara",
                "tier": "beginner",
                "light_sides": ["a", "b", "c"],
                "dark_sides": ["d"],
                "status": "dead",
            }
        )
    )
    fight = Fight(gm_dice=3, pools=(Pool("Kara", line_dice=1),), rounds=1).to_dict()
    tables = {
        "characters": {"kara": {"name": "Kara", "sheet": kara}},
        "trikus_party": {"party": {"refreshes": 0, "master_npcs": [], "fights": {"t3_a": fight}}},
    }
    assert ["the fight in t3_a: Kara is dead yet still fights"] == trikus.invariants(tables, None)


def test_pool_invariants_name_willpower_above_the_sheet() -> None:
    """Willpower points past the sheet's Willpower are reported, naming the character."""
    pool = load_system("pool")
    record = {"name": "Kara", "traits": {"wits": 2}, "willpower": 3, "willpower_points": 4}
    tables = {"characters": {"kara": {"name": "Kara", "sheet": record}}}
    rules = pool.load_rules(pool.read_rulings({}), None)
    assert ["Kara: Willpower points are 4: Kara has 0 to 3 (the rating)."] == pool.invariants(
        tables, rules
    )
