"""Tests for referee.resolve.lookup: [[sheet]], [[history]], [[pending]] and [[roster]] in a
thread."""

from __future__ import annotations

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.testing import sheet

STEPPED = [
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
]
EDGE = [
    {"name": "Kara Venn", "kind": "pc", "stats": {"cool": 1, "sharp": 2}, "owner": "kara"},
    {"name": "Raider Boss", "kind": "npc", "stats": {"hard": 2}},
]
APPLICATION = """[[apply]]

```
name: Orla Vex
background: experienced
strength: 2
agility: 3
endurance: 2
perception: 2
```
"""


def _post(referee: Referee, body: str, fullname: str, author: str = "kara", **kwargs) -> str:
    private = kwargs.pop("private", False)
    thread = fullname if private else kwargs.pop("thread", "t3_thread")
    post = Post(fullname, thread, author, body, kwargs.pop("created", 1_700_000_000.0))
    return referee.referee(post, private=private).text


@pytest.fixture
def stepped(open_campaign):
    return Referee(open_campaign(STEPPED))


def test_sheet_shows_a_characters_sheet_and_current_state(stepped) -> None:
    """[[sheet Kara]] after a wound: the player, the dice, the weapons and the new state."""
    _post(stepped, "[[wound Kara Venn +1]]", "t1_w", author="gm")
    text = _post(stepped, "[[sheet Kara]]", "t1_s")
    assert "**Kara Venn**, played by u&#47;kara" in text
    assert ("state: wounded", "wounds: 1&#47;3", "d6 d8 d6 d8") == (
        "state: wounded" if "state: wounded" in text else text,
        "wounds: 1&#47;3" if "wounds: 1&#47;3" in text else text,
        "d6 d8 d6 d8" if "d6 d8 d6 d8" in text else text,
    )
    assert "weapons: name blaster" in text


def test_sheet_of_an_unknown_name_suggests_the_nearest(stepped) -> None:
    """[[sheet Trooper 3]] names no one: the reply says so and offers a close name."""
    text = _post(stepped, "[[sheet Troper 1]]", "t1_s")
    assert "No character is named 'Troper 1'" in text and "Trooper 1" in text


def test_history_lists_a_characters_last_rolls_newest_first_with_links(stepped) -> None:
    """[[history Kara]]: each roll id links to its post; a look-up is not a roll."""
    _post(stepped, "[[roll Kara agility]]", "t1_a1", created=1_700_000_000.0)
    _post(stepped, "[[shoot Kara -> Trooper 1]] [[roll 2d6]]", "t1_a2", created=1_700_000_060.0)
    _post(stepped, "[[sheet Kara]]", "t1_a3")
    text = _post(stepped, "[[history Kara Venn]]", "t1_h")
    lines = [line for line in text.splitlines() if line.startswith("* [")]
    assert [
        "* [a2-1](https://www.reddit.com/comments/thread/_/a2/)",
        "* [a1-1](https://www.reddit.com/comments/thread/_/a1/)",
    ] == [line.split(" 2023")[0] for line in lines]
    assert "`roll Kara agility` → total" in lines[1]


def test_history_leaves_secret_rolls_out_for_players_and_shows_them_to_a_gm(stepped) -> None:
    """A GM's secret roll for Trooper 1 is in the GM's private history, not in a player's."""
    _post(stepped, "[[roll Trooper 1 perception]]", "t4_m1", author="gm", private=True)
    public = _post(stepped, "[[history Trooper 1]]", "t1_h", author="kara")
    private = _post(stepped, "[[history Trooper 1]]", "t4_m2", author="gm", private=True)
    assert ("m1-1" not in public, "m1-1" in private) == (True, True)


def test_pending_lists_applications_awaiting_a_decision_until_approved(stepped) -> None:
    """[[pending]] shows Orla's application with its link; after [[approve]] it is gone."""
    _post(stepped, APPLICATION, "t1_app", author="orla")
    before = _post(stepped, "[[pending]]", "t1_p1", author="kara")
    _post(stepped, "[[approve Orla Vex]]", "t1_ok", author="gm")
    after = _post(stepped, "[[pending]]", "t1_p2", author="kara")
    assert "Orla Vex by u&#47;orla, version 1: awaiting approval" in before
    assert "(https://www.reddit.com/comments/thread/_/app/)" in before
    assert "**No application awaits a decision.**" in after


def test_roster_shows_each_threads_initiative_below_the_characters(stepped) -> None:
    """[[roster]] during a fight lists the initiative order, as the wiki roster does."""
    _post(stepped, "[[init add Trooper 2 15]] [[init effect Trooper 2 stunned 2]]", "t1_i", "gm")
    text = _post(stepped, "[[roster]]", "t1_r")
    initiative = text.index("## Initiative")
    assert text.index("| Trooper 2 |") < initiative < text.index("stunned")


def test_roster_shows_the_public_roster_in_the_thread(stepped) -> None:
    """[[roster]] answers with the campaign's roster page, characters and NPCs."""
    text = _post(stepped, "[[roster]]", "t1_r")
    assert "# Test campaign: roster" in text and "| Trooper 2 |" in text


def test_npc_stats_hidden_keeps_npc_stats_from_players_but_not_from_a_gm(open_campaign) -> None:
    """roster.npc_stats = "hidden": a player's [[sheet]] and [[roster]] show state, no dice."""
    referee = Referee(open_campaign(STEPPED, extra_config='[roster]\nnpc_stats = "hidden"\n'))
    player = _post(referee, "[[sheet Trooper 1]] [[roster]]", "t1_p")
    gm = _post(referee, "[[sheet Trooper 1]]", "t4_g", author="gm", private=True)
    assert ("str agi end per" in player, "weapons" in player) == (False, False)
    assert "state: fighting" in player and "known to the GMs only" in player
    assert "| Kara Venn | u&#47;kara | human | soldier | str d6, agi d8" in player
    assert ("str agi end per: d6 d8 d6 d8", True) == (
        "str agi end per: d6 d8 d6 d8" if "str agi end per: d6 d8 d6 d8" in gm else gm,
        "weapons: name blaster" in gm,
    )


def test_the_lookups_work_in_an_edge_campaign(open_campaign) -> None:
    """The same verbs read an edge character through the system's own rows."""
    referee = Referee(open_campaign(EDGE, system="edge"))
    _post(referee, "[[move Kara cool]]", "t1_m")
    text = _post(referee, "[[sheet Kara]] [[history Kara]] [[roster]]", "t1_l")
    assert "advantage: " in text and "stats: cool +1" in text
    assert "[m-1](https://www.reddit.com/comments/thread/_/m/)" in text
    assert "| Raider Boss |" in text


def test_npc_stats_hidden_in_an_edge_roster_shows_counters_not_stats(open_campaign) -> None:
    """edge's roster template reads npc_stats: the Raider Boss row loses its stats."""
    referee = Referee(
        open_campaign(EDGE, system="edge", extra_config='[roster]\nnpc_stats = "hidden"\n')
    )
    text = _post(referee, "[[roster]]", "t1_r")
    assert "| Raider Boss | - |" in text and "hard +2" not in text


def test_npc_stats_hidden_in_a_system_whose_roster_does_not_read_it(open_campaign) -> None:
    """hits' roster.md.j2 knows nothing of npc_stats: the core lists its NPCs by name and
    health only, and leaves them out of the system's own table."""
    from referee.pipeline.campaign import load_sheets
    from referee.testing.campaign import REPO_DATA

    sheets = load_sheets(REPO_DATA / "demos" / "hits" / "characters.toml")
    referee = Referee(
        open_campaign(sheets, system="hits", extra_config='[roster]\nnpc_stats = "hidden"\n')
    )
    text = _post(referee, "[[roster]] [[sheet Gate Warden]]", "t1_r", author="kara_plays")
    assert "## The GM's characters (stats known to the GMs)" in text
    assert "| Gate Warden | npc | \\- | yes | 18&#47;18 | 0 |" in text
    assert "body 5 talent 3" not in text
