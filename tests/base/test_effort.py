"""Tests for referee.base.effort: no tag, and no post, makes the referee work past its step budget.

The searches that help a player (the nearest roll, the verb or name a slip meant) count
their work in steps against budgets in ``Limits``. These tests count steps and parser
calls; none of them times anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.effort import Effort, current, metered
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.names import NameIndex
from referee.base.posts import Post
from referee.notation import parse as notation_parse
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.pipeline.session import Session
from referee.pipeline.tag import INTERNAL_PROBLEM, verdict_for
from referee.read.suggest import suggest_verb
from referee.read.tags import Tag
from referee.resolve.dispatch import verbs_for
from referee.system import ParseContext
from referee.testing import make_campaign, sheet
from referee.testing.demos import copy_demo
from referee.testing.hostile import costly_tags

# The two tags of the report: 34 and 60 characters that once cost 6.7 s and 99 s.
SHORT_HOSTILE = "8−−h(H)6K(k9x(616h3lx(H4,h+/0,l%.5"
LONG_HOSTILE = "8−−h(H)6K(k9x(616h3lx(H4,h+/0,l%.5 8−−h(H)6K(k9x(616h3lx(H4"
SYSTEMS = ("stepped", "pool", "trikus", "edge", "hits")
TIGHT = dataclasses.replace(
    DEFAULT_LIMITS, max_repair_steps=200, max_suggest_steps=150, max_tag_steps=300
)


def test_an_effort_spends_from_every_open_meter_and_stops_at_the_smallest_budget() -> None:
    """A search spends from its own budget and the tag's; a refused spend costs nothing."""
    with metered(50) as tag:
        search = Effort(40)
        spent = [search.spend(30), search.spend(15), Effort(100).spend(25), Effort(100).spend(15)]
    assert ([True, False, False, True], 45) == (spent, tag.spent)


def test_a_meter_is_open_only_inside_its_block() -> None:
    """Outside the pipeline nothing is metered; inside, the innermost meter is current."""
    with metered(10) as post:
        with metered(5) as tag:
            inside = current()
        after = current()
    assert (None, tag, post, None) == (None, inside, after, current())


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Campaign]]:
    """One campaign of each system: the four demos and a stepped table with its sheets."""
    root = tmp_path_factory.mktemp("effort")
    opened = {
        "stepped": make_campaign(
            root / "stepped",
            [sheet("Kara Venn", owner="kara"), sheet("Trooper 1", kind="npc")],
        )
    }
    for system in SYSTEMS[1:]:
        opened[system] = Campaign.open(copy_demo(system, root), need_secret=False)
    yield opened
    for campaign in opened.values():
        campaign.close()


def _verdict(campaign: Campaign, text: str, author: str, limits: Limits = DEFAULT_LIMITS):
    """One tag read and resolved as the pipeline does, its writes undone; (verdict, steps)."""
    session = Session(campaign, campaign.config.gms, limits)
    context = session.context(Post("t1_effort", "t3_effort", author, f"[[{text}]]", 1.0))
    parse_context = ParseContext(context.known_names, limits)
    with metered(10**12) as outside:  # wide open: it only counts what the tag spent
        verdict = verdict_for(Tag(0, text), "r0", context, parse_context, SeededDice(7))
    context.changes.rollback()
    session.forget()
    return verdict, outside.spent


def _parser_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the notation parser is asked to read from now on."""
    calls: list[str] = []
    original = notation_parse._Parser.expression

    def counted(self):
        calls.append(self.text)
        return original(self)

    monkeypatch.setattr(notation_parse._Parser, "expression", counted)
    notation_parse._parse.cache_clear()
    return calls


@pytest.mark.parametrize("text", [SHORT_HOSTILE, LONG_HOSTILE, "roll " + LONG_HOSTILE])
def test_the_reported_tags_are_refused_with_the_right_form_after_a_bounded_search(
    campaigns: dict[str, Campaign], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """The tags that stalled the bot for minutes get the plain refusal, and the search for
    their nearest form reads each candidate once (no search inside a search)."""
    calls = _parser_calls(monkeypatch)
    verdict, steps = _verdict(campaigns["stepped"], text, "kara")
    assert ("problem", "", True) == (
        verdict.kind,
        verdict.internal_error,
        verdict.problem.startswith("I can't read"),
    )
    assert "[[roll 2d6+3]]" in verdict.usage
    assert steps <= DEFAULT_LIMITS.max_tag_steps
    assert len(calls) <= 20  # the tag, then at most one read of each repair tried


def test_a_tag_of_the_longest_length_is_searched_within_the_repair_budget(
    campaigns: dict[str, Campaign], monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 characters of tangled notation: the repair reads what its budget pays for."""
    text = (LONG_HOSTILE + " ") * 40
    text = text[: DEFAULT_LIMITS.max_tag_chars]
    calls = _parser_calls(monkeypatch)
    verdict, steps = _verdict(campaigns["stepped"], text, "kara")
    repairs_read = sum(len(call) for call in calls[1:])
    assert ("problem", "") == (verdict.kind, verdict.internal_error)
    assert repairs_read <= DEFAULT_LIMITS.max_repair_steps
    assert steps <= DEFAULT_LIMITS.max_tag_steps


def test_a_spent_repair_budget_leaves_the_plain_refusal() -> None:
    """Past its budget the repair gives up: the reply names the part and the right form."""
    spent = dataclasses.replace(DEFAULT_LIMITS, max_repair_steps=0)
    with pytest.raises(Exception) as caught:
        notation_parse.parse_expression("2d6 + * 3", spent)
    assert "Did you mean" not in caught.value.message
    with pytest.raises(Exception) as caught:
        notation_parse.parse_expression("2d6 + * 3")
    assert caught.value.message.endswith("Did you mean 2d6*3?")


def test_a_spent_suggestion_budget_names_the_verbs_without_a_guess() -> None:
    """A misspelt verb is guessed within the budget, and not at all past it."""
    verbs = verbs_for(None)
    guess = suggest_verb("rol", "2d6", verbs, ParseContext())
    spent = ParseContext(limits=dataclasses.replace(DEFAULT_LIMITS, max_suggest_steps=0))
    assert ("roll", None) == (guess.verb.name, suggest_verb("rol", "2d6", verbs, spent))


def test_a_name_suggestion_stops_at_its_budget() -> None:
    """A misspelt name is found within the budget; past it, no name is offered."""
    index = NameIndex([f"Hero {n}" for n in range(500)] + ["Kara Venn"])
    assert (["kara venn"], []) == (index.suggest("kra venn"), index.suggest("kra venn", budget=0))


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("limits", [DEFAULT_LIMITS, TIGHT], ids=["default", "tight"])
def test_no_tag_of_any_verb_spends_past_its_budget(
    campaigns: dict[str, Campaign], system: str, limits: Limits
) -> None:
    """Any tag of the system's verbs, its own words, names and notation up to the longest
    tag: the steps counted stay within the tag's budget, and the answer is a verdict
    (never an internal error), however tight the budget."""
    campaign = campaigns[system]
    verbs = verbs_for(campaign.system)
    gm = sorted(campaign.config.gms)[0]
    names = Session(campaign).roster.known_names or {"kara"}

    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(text=costly_tags(verbs, names), author=st.sampled_from([gm, "a_stranger"]))
    def check(text: str, author: str) -> None:
        verdict, steps = _verdict(campaign, text, author, limits)
        assert steps <= limits.max_tag_steps
        assert (text, "") == (text, verdict.internal_error)

    check()


def test_a_post_of_fifty_costly_tags_spends_within_the_post_budget(tmp_path: Path) -> None:
    """Fifty tags each made to search as far as it may, in one post: the post's steps stay
    within its budget, every tag is answered, and nothing fails."""
    campaign = make_campaign(tmp_path, [sheet("Kara Venn", owner="kara")])
    tags = [f"[[{LONG_HOSTILE} {n}]]" for n in range(25)]
    tags += [f"[[shooot Kra Ven -> {LONG_HOSTILE} {n}]]" for n in range(25)]
    post = Post("t1_fifty", "t3_fifty", "kara", " ".join(tags), 1.0)
    with campaign, metered(10**12) as outside:
        outcome = Referee(campaign).referee(post)
    assert (50, 50, False) == (outcome.tags, outcome.problems, outcome.failed)
    assert INTERNAL_PROBLEM not in outcome.text
    assert 0 < outside.spent <= DEFAULT_LIMITS.max_post_steps


def _odds_reasons(campaign: Campaign, tags: list[str]) -> tuple[list[str], int]:
    """``tags`` resolved one after another as one post's (under the post's step budget):
    why each roll has no odds ("" when it has them), and the steps the post spent."""
    session = Session(campaign, campaign.config.gms)
    context = session.context(Post("t1_odds", "t3_odds", "kara", "", 1.0))
    parse_context = ParseContext(context.known_names, DEFAULT_LIMITS)
    reasons = []
    with metered(DEFAULT_LIMITS.max_post_steps) as post:
        for index, text in enumerate(tags):
            verdict = verdict_for(
                Tag(index, text), f"r{index}", context, parse_context, SeededDice(3)
            )
            reasons.append(verdict.result.odds[0].reason)
    return reasons, post.spent


def test_a_rolls_odds_count_within_their_own_budget(tmp_path: Path) -> None:
    """A roll's exact odds take at most their own budget, the same in every post: 30d20kh15
    is counted, 200d6kh100 (half a million inner steps) is rolled without them."""
    with make_campaign(tmp_path, [sheet("Kara Venn", owner="kara")]) as campaign:
        reasons, _ = _odds_reasons(campaign, ["roll 30d20kh15", "roll 200d6kh100"])
    assert ["", "odds not computed (too many outcomes)"] == reasons


def test_a_post_of_costly_rolls_stops_counting_odds_at_the_posts_budget(tmp_path: Path) -> None:
    """Fifty different rolls, each as costly as a roll may count: the post spends no more
    than its budget, and the rolls past it say why they have no odds."""
    tags = [f"roll {n}d20kh{n // 2 + k}" for n in range(25, 35) for k in range(-2, 3)]
    with make_campaign(tmp_path, [sheet("Kara Venn", owner="kara")]) as campaign:
        reasons, steps = _odds_reasons(campaign, tags)
    cut = [reason for reason in reasons if "took the work one post may cause" in reason]
    assert (True, True) == (0 < len(cut) < 50, reasons[-1] in cut)
    assert steps <= DEFAULT_LIMITS.max_post_steps
