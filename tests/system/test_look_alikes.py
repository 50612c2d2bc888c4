"""Names that show like another, through the pipeline: refused at apply, npc and rename."""

from collections.abc import Iterator

import pytest

from referee.base.markdown import escape_markdown
from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.testing import sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

SHEET = """[[apply]] Here she is.

```
name: {name}
background: experienced
strength: 2
agility: 2
endurance: 1
perception: 2
magic: Force 2
technique: Telekinesis d4
technique: Mind Trick d6
```
"""
ROSTER = [sheet("Kara Venn", owner="kara_player"), sheet("Trooper 1", kind="npc")]


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    with fake_reddit() as fake:
        yield fake


def _apply(referee, name, author="mallory", fullname="t1_app"):
    return referee.referee(Post(fullname, "t3_t", author, SHEET.format(name=name), 1.0))


@pytest.mark.parametrize(
    ("impostor", "said"),
    [
        ("K\u0430ra Venn", "looks like Kara Venn, a name already in play"),  # a Cyrillic a (U+0430)
        ("Kara Venn\u2060", "Kara Venn is already in play"),  # a word joiner after it
        ("\u200bKara\u3164Venn", "Kara Venn is already in play"),  # zero-width, a filler
    ],
)
def test_an_impostors_application_is_refused_naming_the_one_it_imitates(
    open_campaign, impostor, said
):
    """A name that shows as Kara Venn is not a new name: the application is refused."""
    campaign = open_campaign(ROSTER)
    outcome = _apply(Referee(campaign), impostor)
    assert (1, True, 0) == (
        outcome.problems,
        said in outcome.text,
        len(campaign.store.table("applications")),
    )


def test_a_name_mixing_alphabets_is_refused_before_its_original_exists(open_campaign):
    """A Cyrillic а in a Latin name imitates a name to come: refused, saying why."""
    outcome = _apply(Referee(open_campaign()), "K\u0430ra Moss")
    assert (1, True) == (outcome.problems, "mixes Cyrillic and Latin letters" in outcome.text)


def test_a_name_with_a_bidi_override_is_kept_and_shown_without_it(open_campaign):
    """Dax\u202eOrrel is DaxOrrel in the store and the verdict, never a "Dax Orrel"."""
    campaign = open_campaign()
    outcome = _apply(Referee(campaign), "Dax\u202eOrrel")
    stored = campaign.store.table("applications").get("daxorrel")
    assert ("DaxOrrel", True, False) == (
        (stored or {}).get("name"),
        "**Application: DaxOrrel**" in outcome.text,
        "Dax Orrel" in outcome.text,
    )


@pytest.mark.parametrize("blank", ["\u3164", "\u115f \u2800", "\uffa0\u200b"])
def test_a_blank_looking_name_is_refused(open_campaign, blank):
    """A name of Hangul fillers or the blank Braille pattern shows nothing: refused."""
    campaign = open_campaign()
    outcome = _apply(Referee(campaign), blank)
    assert (1, True, 0) == (
        outcome.problems,
        "shows nothing but invisible characters" in outcome.text,
        len(campaign.store.table("applications")),
    )


def test_a_gms_npc_that_looks_like_one_in_play_is_refused(open_campaign):
    """[[npc Trooper l ...]] beside Trooper 1 (a small L for a one) is refused, naming it."""
    campaign = open_campaign(ROSTER)
    outcome = Referee(campaign).referee(
        Post("t1_n", "t3_t", "gm", "[[npc Trooper l as trooper]]", 1.0)
    )
    assert (1, True, None) == (
        outcome.problems,
        "Trooper l looks like Trooper 1" in outcome.text,
        campaign.store.table("characters").get("trooper l"),
    )


def test_a_rename_to_a_look_alike_is_refused(open_campaign):
    """[[rename Trooper 1 -> K\u0430ra Venn]] would make a second Kara Venn: refused."""
    campaign = open_campaign(ROSTER)
    outcome = Referee(campaign).referee(
        Post("t1_r", "t3_t", "gm", "[[rename Trooper 1 -> Kara V\u0435nn]]", 1.0)
    )
    assert (1, True, True) == (
        outcome.problems,
        "looks like Kara Venn" in outcome.text,
        "trooper 1" in campaign.store.table("characters"),
    )


def test_a_hidden_npcs_look_alike_is_refused_without_naming_it(open_campaign):
    """A player's Captain Rh0ss beside a hidden Captain Rhoss: refused, the NPC unnamed."""
    campaign = open_campaign([*ROSTER, sheet("Captain Rhoss", kind="npc")])
    campaign.store.table("visibility").put("captain rhoss", {"hidden": True})
    campaign.store.flush()
    outcome = _apply(Referee(campaign), "Captain Rh0ss")
    assert (1, True, False) == (
        outcome.problems,
        "Captain Rh0ss looks like a name already in play" in outcome.text,
        "Captain Rhoss" in outcome.text,
    )


def test_an_ambiguous_short_name_lists_the_names_it_starts_never_a_wrong_reason(open_campaign):
    """[[roll Kara agility]] beside Kara Venn and an approved Kara Doss says it is ambiguous."""
    campaign = open_campaign(ROSTER)
    referee = Referee(campaign)
    _apply(referee, "Kara Doss", author="doss_player")
    referee.referee(Post("t1_ok", "t3_t", "gm", "[[approve]]", 2.0, parent="t1_app"))
    outcome = referee.referee(Post("t1_roll", "t3_t", "kara_player", "[[roll Kara agility]]", 3.0))
    assert (True, False) == (
        escape_markdown("Kara is ambiguous: Kara Venn, Kara Doss — write the full name")
        in outcome.text,
        "not approved" in outcome.text,
    )


def test_by_post_an_impostor_is_refused_and_the_owner_rolls_by_first_name(server, live):
    """On the local Reddit: a stranger's Kаra Venn and Kara Venn\u2060 are refused (a GM's
    approval finds no application), and the real owner's [[roll Kara agility]] rolls."""
    harness = live(sheets=[sheet("Kara Venn", owner="kara_player")])
    thread = server.submit(SUB, "gm", "The docks", "Roll when you arrive.")
    impostors = [
        server.comment(thread, "mallory", SHEET.format(name=name))
        for name in ("K\u0430ra Venn", "Kara Venn\u2060")
    ]
    harness.run_until_settled()
    for impostor in impostors:
        server.comment(impostor, "gm", "[[approve]]")
    harness.run_until_settled()
    roll = server.comment(thread, "kara_player", "[[roll Kara agility]]")
    harness.run_until_settled()
    refusals = [server.replies_to(post)[0]["body"] for post in impostors]
    (rolled,) = [reply["body"] for reply in server.replies_to(roll)]
    assert (True, True) == (
        "looks like Kara Venn, a name already in play" in refusals[0],
        "Kara Venn is already in play" in refusals[1],
    )
    assert (True, ["kara venn"]) == (
        rolled.startswith("**Stat roll**: Kara Venn agility"),
        list(harness.campaign.store.table("characters").keys()),
    )
