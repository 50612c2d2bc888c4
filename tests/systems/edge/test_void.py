"""edge through the GM's [[void]]: the advantage stays 1-6 and encounters stay whole (§4.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.testing.campaign import make_campaign

KARA, DAX = "kara_plays", "dax_plays"


@pytest.fixture
def referee(tmp_path: Path):
    sheets = [
        {"name": "Kara Venn", "kind": "pc", "owner": KARA, "stats": {"cool": 1}, "advantage": 6},
        {"name": "Dax", "kind": "pc", "owner": DAX, "stats": {"hard": -1}, "advantage": 3},
    ]
    campaign = make_campaign(tmp_path, sheets, system="edge")
    yield Referee(campaign)
    campaign.close()


def _post(referee: Referee, body: str, name: str, author: str = "gm", thread="t3_a") -> str:
    return referee.referee(Post(f"t1_{name}", thread, author, body, 1.0)).text


def _advantage(referee: Referee, key: str = "kara venn") -> int:
    record: dict[str, Any] = referee.campaign.store.table("characters").get(key)
    return record["sheet"]["advantage"]


def _spend(referee: Referee, name: str, who: str = "Kara", author: str = KARA) -> None:
    """A move whose advantage is spent (edge=always spends it unless both dice beat it)."""
    text = _post(referee, f"[[move {who} cool edge=always]]", name, author)
    assert "→ **1**" in text, text  # the dice of this post did spend it


def test_void_of_a_spend_after_the_gm_set_it_keeps_the_gms_value(referee: Referee) -> None:
    """Spend 6 -> 1, the GM sets 4, the spend is voided: 4 (the later write stands), never 9."""
    _spend(referee, "spend")
    _post(referee, "[[set Kara advantage 4]]", "set")
    _post(referee, "[[void spend-1 wrong thread]]", "void")
    assert 4 == _advantage(referee)


def test_void_of_a_spend_after_a_raise_stays_within_six(referee: Referee) -> None:
    """Spend 6 -> 1, the GM raises to 2, the spend is voided: 6 (6 raised, capped), not 7."""
    _spend(referee, "spend")
    _post(referee, "[[raise Kara]]", "raise")
    _post(referee, "[[void spend-1 wrong thread]]", "void")
    assert 6 == _advantage(referee)


def test_void_of_a_spend_with_nothing_since_gives_the_advantage_back(referee: Referee) -> None:
    """Spend 6 -> 1, voided at once: the advantage is 6 again."""
    _spend(referee, "spend")
    _post(referee, "[[void spend-1 wrong thread]]", "void")
    assert 6 == _advantage(referee)


def test_void_of_the_first_roll_keeps_later_participants_in_the_encounter(
    referee: Referee,
) -> None:
    """Kara opens the encounter, Dax joins, Kara's roll is voided: the end still resets Dax."""
    _post(referee, "[[move Kara cool edge=never]]", "first", KARA)
    _post(referee, "[[set Dax advantage 5]]", "dax")
    _post(referee, "[[void first-1 wrong thread]]", "void")
    _post(referee, "[[end encounter]]", "end")
    assert 1 == _advantage(referee, "dax")


def test_void_after_the_encounter_ended_does_not_bring_a_spent_advantage_back(
    referee: Referee,
) -> None:
    """Dax spends 3 -> 1, the encounter ends, the spend is voided: the end's reset stands (1)."""
    _spend(referee, "spend", "Dax", DAX)
    _post(referee, "[[end encounter]]", "end")
    _post(referee, "[[void spend-1 wrong thread]]", "void")
    assert 1 == _advantage(referee, "dax")
