"""hits tags under Hypothesis: any text after a verb resolves or is a problem for the player."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.pipeline.campaign import Campaign
from referee.systems.hits.system import SYSTEM
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

WORDS = [
    "Kara",
    "Venn",
    "Ogre",
    "body",
    "mind",
    "talent",
    "spirit",
    "Swordsmanship",
    "sword",
    "adv",
    "dis",
    "+",
    ",",
    "&",
    "vs",
    "->",
    "with",
    "tie=all",
    "later",
    "adjust",
    "timer",
    "new",
    "Alarm",
    "size",
    "remove",
    "+2",
    "1",
    "0",
    "7",
    "-3",
    "99999999",
    "life",
    "skill",
    "benefit",
    "technique",
    "highest",
    "stress",
    "wounds",
    "level",
    "influence",
    "standing",
    "active",
    "saved",
    "tiers",
    "roll",
    "withdraw",
    "accept",
    "resist",
    "combat",
    "end",
    "start",
    '"',
    "in",
    "#1",
    "\u200b",
    "Ⅳ",
]
VERBS = sorted({verb.name for verb in SYSTEM.verbs} | {"all in"})


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaign]:
    sheets = [
        {
            "name": "Kara Venn",
            "kind": "pc",
            "owner": "kara_plays",
            "primary": "body",
            "secondary": "mind",
            "influence": 50,
            "skills": {"Swordsmanship": 2},
        },
        {"name": "Ogre", "kind": "npc", "level": 2, "body": 5, "talent": 2, "spirit": 1, "mind": 1},
    ]
    opened = make_campaign(Path(tmp_path_factory.mktemp("hits")), sheets, system="hits")
    yield opened
    opened.close()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    verb=st.sampled_from(VERBS),
    words=st.lists(st.sampled_from(WORDS), max_size=9),
    author=st.sampled_from(["gm", "kara_plays", "stranger"]),
    seed=st.integers(0, 2**16),
)
def test_any_tag_resolves_or_is_a_user_problem(
    campaign: Campaign, verb: str, words: list[str], author: str, seed: int
) -> None:
    """Whatever follows a hits verb, by whoever: a verdict or a UserError, never a crash."""
    text = f"{verb} {' '.join(words)}".strip()
    try:
        resolve_tag(tag_context(campaign, author), text, SeededDice(seed))
    except UserError as error:
        assert error.message.strip()
