"""Tests for referee.resolve.corrections: the GM voids rolls and revives, renames, removes,
reveals NPCs."""

from __future__ import annotations

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.store.ledger import verify
from referee.testing import sheet

SHEETS = [
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
]
SECRET = b"test-secret"


def _post(referee: Referee, body: str, fullname: str, author: str = "kara", private=False) -> str:
    thread = fullname if private else "t3_thread"
    return referee.referee(Post(fullname, thread, author, body, 1.0), private=private).text


@pytest.fixture
def referee(open_campaign):
    return Referee(open_campaign(SHEETS))


def _wounds(referee: Referee, key: str) -> int:
    return referee.campaign.store.table("characters").get(key)["sheet"]["wounds"]


def test_void_undoes_the_wound_keeps_the_dice_and_edits_the_reply(referee) -> None:
    """[[void]] of a wounding shot: Trooper 1 is unhurt again, the row stays, the chain verifies."""
    _post(referee, "[[wound Trooper 1 +1]]", "t1_shot", author="gm")
    rows_before = list(referee.campaign.store.ledger)
    text = _post(referee, "[[void shot-1 wrong target]]", "t1_void", author="gm")
    rows = list(referee.campaign.store.ledger)
    record = referee.campaign.store.posts.get("t1_shot")
    assert (1, 0) == (len(rows) - len(rows_before), _wounds(referee, "trooper 1"))
    assert rows_before == rows[: len(rows_before)]
    assert {"voids": "shot-1", "reason": "wrong target"}.items() <= rows[-1]["outcome"].items()
    assert "**Roll shot-1 is void** (the GM, u&#47;gm): wrong target." in record["reply"]
    assert "undone: Trooper 1" in text
    assert verify(rows, SECRET).ok


def test_void_keeps_a_later_change_to_the_same_record(referee) -> None:
    """Two wounds on Kara, the first voided: she keeps the second (1 wound, not 0 or 2)."""
    _post(referee, "[[wound Kara +1]]", "t1_one", author="gm")
    _post(referee, "[[wound Kara +1]]", "t1_two", author="gm")
    _post(referee, "[[void one-1 the blow was parried]]", "t1_void", author="gm")
    assert 1 == _wounds(referee, "kara venn")


def test_void_of_an_npc_creation_takes_the_npc_out_again(referee) -> None:
    """Voiding [[npc ...]] removes the NPC it created; its name may be used again."""
    _post(referee, "[[npc Bandit as trooper]]", "t1_npc", author="gm")
    _post(referee, "[[void npc-1 not in this scene]]", "t1_void", author="gm")
    again = _post(referee, "[[npc Bandit as trooper]]", "t1_again", author="gm")
    assert "bandit" in referee.campaign.store.table("characters")
    assert "**Bandit enters play**" in again


def test_void_is_refused_to_players_twice_and_for_unknown_ids(referee) -> None:
    """A player may not void; a roll is voided once; an id nobody rolled is named as such."""
    _post(referee, "[[roll Kara agility]]", "t1_roll")
    player = _post(referee, "[[void roll-1 I did not like it]]", "t1_p")
    _post(referee, "[[void roll-1 wrong thread]]", "t1_v1", author="gm")
    twice = _post(referee, "[[void roll-1 wrong thread]]", "t1_v2", author="gm")
    unknown = _post(referee, "[[void zzz-9 typo]]", "t1_v3", author="gm")
    bad = _post(referee, "[[void Kara typo]]", "t1_v4", author="gm")
    assert "Only a GM may void a roll" in player
    assert "Roll roll-1 is already void" in twice
    assert "No roll zzz-9 was recorded" in unknown
    assert "is not a roll id" in bad and "[[void kx9f2a-1" in bad


def test_a_secret_roll_is_voided_only_in_private(referee) -> None:
    """A GM voiding a secret roll in public is told to do it by private message."""
    _post(referee, "[[roll Trooper 1 perception]]", "t4_sec", author="gm", private=True)
    public = _post(referee, "[[void sec-1 mistake]]", "t1_v", author="gm")
    private = _post(referee, "[[void sec-1 mistake]]", "t4_v", author="gm", private=True)
    assert "void it by private message" in public and "**Roll" in private


def test_revive_puts_a_dead_npc_back_as_it_entered_play(referee) -> None:
    """Trooper 1 killed, then [[revive Trooper 1]]: unhurt and fighting."""
    _post(referee, "[[wound Trooper 1 +1]]", "t1_kill", author="gm")
    text = _post(referee, "[[revive Trooper 1]] [[sheet Trooper 1]]", "t1_rev", author="gm")
    assert 0 == _wounds(referee, "trooper 1")
    assert "**Trooper 1 is back in play**" in text and "state: fighting" in text


def test_rename_moves_the_character_and_frees_the_old_name(referee) -> None:
    """[[rename Trooper 1 -> Sergeant Vok]]: the new name acts, the old one is unknown."""
    _post(referee, "[[rename Trooper 1 -> Sergeant Vok]]", "t1_ren", author="gm")
    text = _post(
        referee, "[[roll Sergeant Vok agility]] [[sheet Trooper 1]]", "t1_use", author="gm"
    )
    assert "**Stat roll**: Sergeant Vok agility" in text
    assert "No character is named 'Trooper 1'" in text


def test_rename_carries_into_the_initiative_order(referee) -> None:
    """A renamed NPC keeps its place in the fight under its new name; [[next]] names it."""
    _post(referee, "[[init add Trooper 1 15]] [[init add Kara Venn 10]]", "t1_init", author="gm")
    text = _post(referee, "[[rename Trooper 1 -> Sergeant Vok]]", "t1_ren", author="gm")
    turn = _post(referee, "[[next]]", "t1_next", author="gm")
    order = referee.campaign.store.table("initiative").get("t3_thread")
    assert ["Sergeant Vok", "Kara Venn"] == [c["name"] for c in order["combatants"]]
    assert "renamed in the initiative order too" in text
    assert "Sergeant Vok" in turn and "Trooper 1" not in turn


def test_rename_to_a_taken_name_is_refused(referee) -> None:
    """Renaming onto another character's name is refused, saying so."""
    text = _post(referee, "[[rename Trooper 1 to Trooper 2]]", "t1_ren", author="gm")
    assert "Trooper 2 is taken" in text


def test_remove_takes_an_npc_out_of_play_and_keeps_its_record(referee) -> None:
    """[[remove Trooper 2]]: gone from the roster, kept in the removed table; PCs are refused."""
    text = _post(referee, "[[remove Trooper 2]] [[remove Kara Venn]]", "t1_rm", author="gm")
    store = referee.campaign.store
    assert "trooper 2" not in store.table("characters")
    assert "Trooper 2" == store.table("removed").get("trooper 2")["name"]
    assert "Kara Venn is u/kara's character" in text.replace("&#47;", "/")


def test_corrections_are_gm_only(referee) -> None:
    """A player's revive, rename, remove and reveal are each refused with the reason."""
    text = _post(
        referee,
        "[[revive Trooper 1]] [[rename Trooper 1 -> X]] [[remove Trooper 1]] [[reveal Trooper 1]]",
        "t1_p",
    )
    assert 4 == text.count("Only a GM may")


def test_corrections_work_in_an_edge_campaign(open_campaign) -> None:
    """Void, rename and revive go through the System interface: an edge NPC takes them too."""
    referee = Referee(
        open_campaign([{"name": "Raider Boss", "kind": "npc", "stats": {"hard": 2}}], system="edge")
    )
    _post(referee, "[[set Raider Boss harm 2]]", "t1_set", author="gm")
    _post(referee, "[[void set-1 wrong raider]]", "t1_void", author="gm")
    harm = referee.campaign.store.table("characters").get("raider boss")["sheet"]["counters"]
    _post(referee, "[[set Raider Boss harm 3]]", "t1_set2", author="gm")
    text = _post(
        referee, "[[rename Raider Boss -> Grist]] [[revive Grist]] [[sheet Grist]]", "t1_r", "gm"
    )
    sheet_after = referee.campaign.store.table("characters").get("grist")["sheet"]
    assert 0 == harm.get("harm", 0)
    assert ("Grist", {}) == (sheet_after["name"], sheet_after["counters"])
    assert "**Grist is back in play**" in text
