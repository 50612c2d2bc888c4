"""Who may set what in edge (referee.systems.edge.who): a move's +N is the GM's; the
player's -N, edge= and the move's name are his."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden
from referee.base.posts import Post
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

PLAYER, GM = "kara_plays", "gm"


@pytest.fixture
def campaign(tmp_path: Path):
    sheets = [
        {"name": "Kara Venn", "kind": "pc", "owner": PLAYER, "stats": {"cool": 1}, "advantage": 4}
    ]
    opened = make_campaign(tmp_path, sheets, system="edge")
    yield opened
    opened.close()


def _tag(campaign: Campaign, text: str, dice: Any = (), author: str = PLAYER) -> Any:
    return resolve_tag(tag_context(campaign, author, thread="t3_a"), text, list(dice))


def _kara(campaign: Campaign) -> dict[str, Any]:
    return campaign.store.table("characters").get("kara venn")["sheet"]


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("move Kara cool +100", "[[move Kara cool]]"),
        ("roll Kara +cool +1", "[[move Kara cool]]"),
        (
            'move Kara cool +2 edge=never "act under fire"',
            '[[move Kara cool edge=never "act under fire"]]',
        ),
    ],
)
def test_a_player_may_not_give_his_move_a_bonus(campaign: Campaign, text: str, fix: str) -> None:
    """Refused before a die falls (no dice given), saying only a GM may and the move to
    write instead; the advantage die is untouched."""
    before = _kara(campaign)
    with pytest.raises(Forbidden) as refused:
        _tag(campaign, text)
    bonus = text.split("+")[-1].split()[0] if text.startswith("move") else "1"
    assert (
        f"Only a GM may give a move a bonus (+N). Roll without +{bonus} (a GM may give it, "
        "as a move's text or the fiction says; a penalty such as -1 is yours to write): "
        f"{fix}.",
        before,
    ) == (refused.value.message, _kara(campaign))


def test_the_gm_gives_a_move_a_bonus(campaign: Campaign) -> None:
    """The GM's [[move Kara cool +100]]: 3 + 2 + 1 + 100 = 106."""
    move = _tag(campaign, "move Kara cool +100", [3, 2], author=GM).result
    assert (100, 106) == (move.modifier, move.plain.total)


def test_a_player_keeps_his_penalty(campaign: Campaign) -> None:
    """-1 (harm, say) is the player's to write: 3 + 2 + 1 - 1 = 5."""
    move = _tag(campaign, "move Kara cool -1 edge=never", [3, 2]).result
    assert (-1, 5) == (move.modifier, move.plain.total)


def test_help_lists_the_gm_only_bonus(campaign: Campaign) -> None:
    """[[help move]] says a GM only writes +N, and a player -N."""
    post = Post("t1_help", "t3_a", PLAYER, "[[help move]]", 1.0)
    lines = Referee(campaign).referee(post).text.splitlines()
    assert (
        '* A player may write: `-N`, `edge=<policy>`, `"move name"`',
        "* Only a GM may write: `+N`",
    ) == tuple(line for line in lines if line.startswith(("* A player", "* Only a GM")))
