"""A character's initiative conditions, echoed under every system's verdicts for him.

The core adds the line to the reply, whatever the dice system: each test plays a
system's campaign (the repository's demos) as ``referee batch`` and the bot do, and
reads the reply the player reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.testing import sheet
from referee.testing.demos import copy_demo

ECHO = "In this thread's initiative, {name} is *stunned* until round 3."

# Per system: its GM, the GM's tags that ready the scene, Kara's name on the sheet, and a
# roll of hers in the system's own verbs (by kara_plays, her player in every demo).
SYSTEMS = {
    "edge": ("mc_ember", "", "Kara Venn", '[[move Kara Venn cool "act under fire"]]'),
    "pool": ("st_morrow", "", "Kara Venn", "[[roll Kara Venn dexterity+stealth]]"),
    "hits": ("gm_lua", "", "Kara Venn", "[[roll Kara body + Swordsmanship]]"),
    "trikus": ("gm_vesna", "[[difficulty 2]]", "Kara", "[[test Kara line=1]]"),
}


class Thread:
    """One thread of a campaign: posts refereed in order, each reply kept."""

    def __init__(self, campaign: Campaign) -> None:
        self.referee = Referee(campaign)
        self.posted = 0

    def post(self, author: str, body: str) -> str:
        self.posted += 1
        post = Post(f"t1_echo{self.posted}", "t3_fight", author, body, float(self.posted))
        return self.referee.referee(post).text


@pytest.fixture
def thread(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_campaign):
    """The system's campaign with Kara Venn in the thread's initiative, stunned for 2 rounds."""
    system = request.param
    if system == "stepped":
        campaign = open_campaign([sheet("Kara Venn", owner="kara_plays")])
        gm, setup, name, roll = "gm", "", "Kara Venn", "[[roll Kara agility]]"
    else:
        monkeypatch.setenv("REFEREE_SECRET", f"{system}-echo-secret")
        campaign = Campaign.open(copy_demo(system, tmp_path))
        request.addfinalizer(campaign.close)
        gm, setup, name, roll = SYSTEMS[system]
    playing = Thread(campaign)
    playing.post(gm, f"{setup} [[init add Kara 14]] [[init add Goblin 12]]")
    playing.post(gm, "[[init effect Kara stunned 2]]")
    return playing, gm, name, roll


ALL = pytest.mark.parametrize("thread", ["stepped", *SYSTEMS], indirect=True)


@ALL
def test_a_verdict_for_a_character_echoes_his_conditions(thread) -> None:
    """Kara's roll, in each system's own verb, is answered with her tracker conditions."""
    playing, _, name, roll = thread
    text = playing.post("kara_plays", roll)
    assert (False, True) == ("not resolved" in text, ECHO.format(name=name) in text)


@ALL
def test_a_verdict_for_someone_else_echoes_nothing(thread) -> None:
    """Plain dice, which concern nobody, carry no conditions line."""
    playing, *_ = thread
    assert "In this thread's initiative" not in playing.post("kara_plays", "[[roll 1d6]]")


@ALL
def test_a_tracker_verdict_shows_the_order_without_a_second_echo(thread) -> None:
    """[[init list]] lists Kara's condition in the order; no echo line repeats it."""
    playing, *_ = thread
    text = playing.post("kara_plays", "[[init list]]")
    assert (True, False) == ("*stunned* until round 3" in text, "In this thread's" in text)


@ALL
def test_the_echo_ends_with_the_condition(thread) -> None:
    """Once a GM removes the condition, Kara's next roll says nothing of it."""
    playing, gm, _, roll = thread
    playing.post(gm, "[[init re Kara stunned]]")
    assert "In this thread's initiative" not in playing.post("kara_plays", roll)
