"""pool tags under Hypothesis: any tag text resolves within its rules or gets a problem."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import TagError, UserError
from referee.system import ParseContext
from referee.systems.pool.rolls import Outcome
from referee.systems.pool.system import SYSTEM
from referee.systems.pool.tags import ROLL_USAGE, parse_roll
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

WORDS = [
    "Kara", "Kara Venn", "Guard", "dexterity", "dex+stealth", "willpower", "wp", "diff", "7",
    "+2", "-1", "diff +1", "reflexive", "on", "the vault", "vs", ":", ",", "3", "0", "11",
    "99999999", "\u200b", "+", "++", "stamina+brawl+dodge", "humanity",
]  # fmt: skip
TEXTS = st.one_of(
    st.lists(st.sampled_from(WORDS), max_size=9).map(" ".join),
    st.text(max_size=60),
)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory):
    sheets = [
        {"name": "Kara Venn", "owner": "kara_plays", "traits": {"dexterity": 3, "stealth": 4}},
        {"name": "Guard", "kind": "npc", "traits": {"perception": 2}},
    ]
    opened = make_campaign(Path(tmp_path_factory.mktemp("pool")), sheets, system="pool")
    resolve_tag(tag_context(opened, "gm"), "task the vault target 5")
    yield opened
    opened.close()


@settings(
    max_examples=max(300, settings().max_examples),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(verb=st.sampled_from([v.name for v in SYSTEM.verbs]), rest=TEXTS, gm=st.booleans(),
       seed=st.integers(0, 2**32))  # fmt: skip
def test_any_tag_resolves_or_is_refused_politely(campaign, verb, rest, gm, seed) -> None:
    """Every pool verb with any tail: a result, or a UserError for the player; never a crash."""
    context = tag_context(campaign, "gm" if gm else "kara_plays")
    try:
        resolution = resolve_tag(context, f"{verb} {rest}", SeededDice(seed))
    except UserError:
        return
    roll = getattr(resolution.result, "roll", None)
    if roll is not None:  # a roll's net and band agree, and the botch has no net
        assert (roll.outcome is Outcome.SUCCESS) == (roll.net > 0)
        assert roll.plan.dice == len(roll.dice)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Kara dex + stealth +2 diff +1 willpower", (("dex", "stealth"), None, 2, None, 1, True)),
        ("6 diff 7", ((), 6, 0, 7, 0, False)),
        ("Kara willpower", (("willpower",), None, 0, None, 0, False)),
        ("Kara willpower willpower", (("willpower",), None, 0, None, 0, True)),
    ],
)
def test_roll_reads_pools_and_options(text: str, expected: tuple) -> None:
    """Traits joined by +, dice modifiers, diff N or diff +N, and the Willpower word."""
    request = parse_roll(text, ParseContext()).side.request
    pool = request.pool
    assert expected == (
        pool.traits,
        pool.dice,
        pool.modifier,
        request.difficulty,
        request.difficulty_modifier,
        request.willpower,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Kara",
        "Kara wits diff",
        "Kara wits diff 11",
        "Kara wits+-2",
        "Kara wits reflexive reflexive",
    ],
)
def test_a_bad_roll_shows_the_right_form(text: str) -> None:
    """An unreadable roll says what is wrong and shows the roll's forms."""
    with pytest.raises(TagError) as caught:
        parse_roll(text, ParseContext())
    assert ROLL_USAGE == caught.value.usage
