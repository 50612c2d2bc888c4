"""Tests for referee.pipeline.flow: each post is refereed once, deterministically, and recorded."""

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import HmacDice
from referee.base.posts import Post
from referee.pipeline.batch import load_thread, run_batch
from referee.pipeline.campaign import load_sheets
from referee.pipeline.flow import EDITED_NOTE, Referee
from referee.read.tags import find_tags
from referee.store.ledger import verify
from referee.testing import make_campaign, sheet

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "thread.json"


def _post(body, fullname="t1_aaa", created=1.0, author="kara"):
    return Post(fullname, "t3_thread", author, body, created)


SHEETS = [
    sheet("Kara Venn", owner="kara"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
]


def test_a_post_is_refereed_once_and_replayed_after(open_campaign):
    """The second time a post is seen, the stored reply comes back and no roll is added."""
    referee = Referee(open_campaign(SHEETS))
    post = _post("[[roll 2d6+3]] [[shoot Kara -> Trooper 1]]")
    first = referee.referee(post)
    second = referee.referee(post)
    assert (2, 0, first.text, True) == (
        first.new_rolls,
        second.new_rolls,
        second.text,
        second.replayed,
    )


def test_dice_derive_from_secret_post_and_tag_index(open_campaign):
    """A tag's recorded dice are exactly HMAC(secret, post, tag index)'s stream."""
    campaign = open_campaign(SHEETS, secret=b"s3cret")
    Referee(campaign).referee(_post("[[roll 3d6]] [[roll 1d20]]", fullname="t1_xyz"))
    rows = list(campaign.store.ledger)
    expected = [
        [[6, HmacDice(b"s3cret", "t1_xyz", 0).roll(6)]],
        [[20, HmacDice(b"s3cret", "t1_xyz", 1).roll(20)]],
    ]
    assert expected == [row["draws"][:1] for row in rows]


def test_edited_post_keeps_its_results_and_says_so(open_campaign):
    """Changing a resolved tag never re-rolls: the original reply stands with a note."""
    referee = Referee(open_campaign(SHEETS))
    original = referee.referee(_post("[[roll 1d20]]"))
    edited = referee.referee(_post("[[roll 1d20+10]]"))
    assert (True, 1, 0) == (
        edited.text.startswith(original.text.rstrip("\n")),
        len(list(referee.ledger)),
        edited.new_rolls,
    )
    assert EDITED_NOTE.split(".")[0] in edited.text


def test_wounds_carry_from_one_post_to_the_next(open_campaign):
    """Once a trooper is killed in one post, later posts see a dead trooper and refuse (the
    GM's unaware: an automatic hit each time)."""
    campaign = open_campaign(SHEETS)
    referee = Referee(campaign)
    outcomes = [
        referee.referee(
            _post("[[shoot Kara -> Trooper 1 unaware]]", f"t1_p{index}", index, author="gm")
        )
        for index in range(12)
    ]
    first_kill = next(i for i, o in enumerate(outcomes) if "**dead**" in o.text)
    later = outcomes[first_kill + 1 :]
    stored = campaign.store.table("characters").get("trooper 1")
    assert (1, [1] * len(later)) == (stored["sheet"]["wounds"], [o.problems for o in later])
    assert all("dead" in o.text for o in later)


def test_malformed_tag_gets_a_problem_line_and_the_rest_still_resolve(open_campaign):
    """One bad tag costs only itself: the reply explains it and the good tag is rolled."""
    outcome = Referee(open_campaign(SHEETS)).referee(_post("[[shoot Kara Trooper 1]] [[roll 1d6]]"))
    assert (1, 1, True) == (outcome.problems, outcome.new_rolls, "not resolved" in outcome.text)


def test_unknown_character_suggests_the_nearest_name(open_campaign):
    """A misspelt name gets a reply that names the character the player probably meant."""
    outcome = Referee(open_campaign(SHEETS)).referee(_post("[[roll Kaar Venn agility]]"))
    assert "Kara Venn" in outcome.text


def test_tags_past_the_cap_are_refused_with_a_note(open_campaign):
    """A post with 60 tags resolves 50 and says the rest were refused."""
    outcome = Referee(open_campaign(SHEETS)).referee(_post(" ".join(["[[roll 1d6]]"] * 60)))
    assert (50, True) == (outcome.new_rolls, "50" in outcome.text.split("---")[0][-400:])


def test_a_huge_reply_stays_under_reddits_limit(open_campaign):
    """Fifty rolls of 1,000 dice still make one reply of at most 10,000 characters."""
    outcome = Referee(open_campaign(SHEETS)).referee(_post(" ".join(["[[roll 1000d6]]"] * 50)))
    assert (True, 50) == (len(outcome.text) <= 10_000, outcome.new_rolls)


def test_hostile_names_are_escaped_in_the_reply(open_campaign):
    """A tag naming u/someone or a link echoes it inert."""
    outcome = Referee(open_campaign(SHEETS)).referee(
        _post("[[roll u/spez [x](http://e.vil) agility]]")
    )
    assert ("u/spez" in outcome.text, "](http" in outcome.text) == (False, False)


def test_demo_batch_twice_is_identical_and_verifies(open_campaign):
    """The demo thread refereed twice gives the same replies, one set of rows, a clean ledger."""
    campaign = open_campaign(_demo_sheets(), gms=["gm_talon"])
    thread = load_thread(DEMO)
    first = run_batch(Referee(campaign), thread)
    second = run_batch(Referee(campaign), thread)
    texts = [o.text for o in first.outcomes]
    assert (texts, 0) == ([o.text for o in second.outcomes], second.new_rolls)
    assert verify(campaign.store.ledger, b"test-secret").ok


def test_demo_batch_resolves_all_but_the_malformed_and_ignores_quotes(open_campaign):
    """The malformed shot gets its usage, quoted and code-span tags get nothing, the rest roll."""
    result = run_batch(Referee(open_campaign(_demo_sheets(), gms=["gm_talon"])), load_thread(DEMO))
    replies = {o.post.fullname: o for o in result.outcomes}
    malformed = replies["t1_lx3a5f2"]
    refused_by_rules = result.problems - malformed.problems
    assert ("", 1, 27) == (replies["t1_lx3a3q9"].text, malformed.problems, result.tags)
    assert "Write it as" in malformed.text
    assert 26 == result.new_rolls + refused_by_rules
    assert "Mind Trick" not in replies["t1_lx3a2c7"].text


def test_store_survives_reopening(open_campaign, tmp_path):
    """What a batch flushed is there when the campaign is opened again."""
    campaign = open_campaign(SHEETS)
    Referee(campaign).referee(_post("[[roll 1d6]]"))
    campaign.close()
    reopened = open_campaign(folder=tmp_path)
    assert 1 == len(list(reopened.store.ledger))


def _demo_sheets():
    return load_sheets(DEMO.parent / "characters.toml")


def test_demo_walks_an_application_from_problem_to_play(open_campaign):
    """The demo's newcomer applies, revises, is approved, then acts; Dax may not roll for Kara."""
    result = run_batch(Referee(open_campaign(_demo_sheets(), gms=["gm_talon"])), load_thread(DEMO))
    replies = {o.post.fullname: o.text for o in result.outcomes}
    expected = {
        "t1_lx3c0a1": "Needs changes",
        "t1_lx3c1b2": "asks for changes",
        "t1_lx3c2e3": "Awaiting GM approval",
        "t1_lx3c3f4": "is approved",
        "t1_lx3c4g5": "belongs to u&#47;kara\\_venn\\_pbp",
        "t1_lx3c5h6": "Stat roll",
    }
    assert expected == {
        post: phrase for post, phrase in expected.items() if phrase in replies[post]
    }


_hostile = st.text(
    alphabet=st.characters(codec="utf-8") | st.sampled_from(list("[]\\`>*_|~^u/r:.()")),
    max_size=120,
)


@settings(max_examples=120, deadline=None)
@given(words=st.lists(_hostile, min_size=1, max_size=3))
def test_a_reply_never_holds_a_tag_whatever_the_post_says(words):
    """Echoed text cannot form a [[tag]] in the bot's reply, even with escapes undone."""
    with tempfile.TemporaryDirectory() as folder:
        campaign = make_campaign(Path(folder), SHEETS)
        with campaign:
            body = (
                " ".join(f"[[{text}]]" for text in words) + " [[roll Kaar [[x]] " + words[0] + "]]"
            )
            outcome = Referee(campaign).referee(_post(body))
    assert () == find_tags(outcome.text).tags


def test_a_post_of_dice_notation_is_answered_with_every_form(open_campaign):
    """A player's post of notation tags gets each roll's tree, label, sets and odds in one reply."""
    referee = Referee(open_campaign(SHEETS))
    body = (
        "[[roll 1d20+5 to climb the wall]] [[3d6!]] [[roll 8d6ro<3]] [[10d10t6f1]] "
        "[[roll 1d20+2 adv]] [[6x 4d6kh3]] [[roll (1d6, 1d8, 1d10)kh2 # best two]] "
        "[[roll 2d6 [fire]]] [[roll 1d20 >= 10]] [[roll (1 + 3) * 6]] [[roll 3d6!!]]"
    )
    text = referee.referee(_post(body, fullname="t1_notation")).text
    expected = [
        "**Roll 1d20+5** (to climb the wall): 1d20 (",
        "**Roll 3d6e6**: 3d6e6 (",
        "±",  # the stated precision of the exploding dice
        "**Roll 8d6ro&lt;3**",
        " successes = **",
        "**Roll 2d20kh1+2**: 2d20kh1 (",
        "**Roll 4d6kh3**, 6 sets: 1. 4d6kh3 (",
        "6. 4d6kh3 (",
        "(best two)",
        "*fire* = **",
        "chance of true: 55.0%",
        "(1 + 3)\\*6 = **24** (this high or higher: 100%)",
        "are not supported; write 3d6e6",
    ]
    assert [] == [piece for piece in expected if piece not in text]


def test_a_notation_body_is_never_read_as_a_character(open_campaign):
    """[[roll (1d6)]] and [[roll (1, 2, 3)k1k2]] roll dice, not look for a character."""
    referee = Referee(open_campaign(SHEETS))
    text = referee.referee(_post("[[roll (1d6)]] [[roll (1, 2, 3)k1k2]]")).text
    assert (0, 2) == (text.count("character"), text.count("**Roll "))


def test_a_tag_that_fails_after_writing_leaves_no_half_change(open_campaign, monkeypatch):
    """An attack that wounds its target and then crashes is undone: the target is unhurt."""
    from referee.base.dice import FixedDice
    from referee.pipeline.session import Session
    from referee.pipeline.tag import INTERNAL_PROBLEM, verdict_for
    from referee.read.tags import Tag
    from referee.system import ParseContext
    from referee.systems.stepped import handlers

    campaign = open_campaign(SHEETS)
    context = Session(campaign, ["kara"]).context(_post(""))

    def crash(*args):
        raise RuntimeError("a bug after the wound was written")

    monkeypatch.setattr(handlers, "change_of", crash)
    # Unaware: an automatic hit; damage 6+6 (wild 1) against a soak of 1 wounds.
    verdict = verdict_for(
        Tag(0, "shoot Kara -> Trooper 1 unaware"),
        "rid",
        context,
        ParseContext(context.known_names),
        FixedDice([6, 6, 1, 1]),
    )
    stored = campaign.store.table("characters").get("trooper 1")["sheet"]
    assert (INTERNAL_PROBLEM, 0, 0) == (
        verdict.problem,
        stored.get("wounds", 0),
        context.roster.find("Trooper 1").wounds,
    )


def test_ledger_rows_record_the_system_and_its_version(open_campaign):
    """Each roll's row names the rules that read its dice, so it stays verifiable later."""
    campaign = open_campaign(SHEETS)
    Referee(campaign).referee(_post("[[roll Kara agility]] [[d6]]"))
    rows = list(campaign.store.ledger)
    assert [("stepped", "1")] * 2 == [(row["system"], row["system_version"]) for row in rows]


def test_a_tag_short_of_a_bracket_is_answered_with_the_right_form(open_campaign):
    """[[roll 2d6] gets a reply showing [[roll 2d6]], nothing rolled, counted as a problem."""
    referee = Referee(open_campaign(SHEETS))
    outcome = referee.referee(_post("Kara rolls [[roll 2d6] for the door."))
    assert (1, 0, True) == (
        outcome.problems,
        outcome.new_rolls,
        "write &#91;&#91;roll 2d6&#93;&#93; in a new reply" in outcome.text,
    )


def test_a_single_opening_bracket_is_answered_too(open_campaign):
    """[shoot Kara -> Trooper 1]] is answered with the tag written with two brackets."""
    referee = Referee(open_campaign(SHEETS))
    text = referee.referee(_post("[shoot Kara -> Trooper 1]] go", author="kara")).text
    assert "write &#91;&#91;shoot Kara -&gt; Trooper 1&#93;&#93;" in text


def test_prose_with_brackets_gets_no_reply(open_campaign):
    """Brackets that do not read as a tag of the campaign never draw a reply."""
    referee = Referee(open_campaign(SHEETS))
    bodies = [
        "As the manual says [[citation needed]",
        "see [above]] and [[1]](https://example.com)",
        "[[r u sure] about that?",
        "a [[kara] in brackets",
        "[[citation needed] and [see above]]",
    ]
    replies = [
        referee.referee(_post(body, fullname=f"t1_p{i}")).text for i, body in enumerate(bodies)
    ]
    assert ["", "", "", "", ""] == replies


def test_an_attack_on_a_dead_target_says_what_to_do(open_campaign):
    """Shooting a dead trooper is refused with the way on: another target, or a new NPC."""
    referee = Referee(open_campaign(SHEETS))
    referee.referee(_post("[[wound Trooper 1 +1]]", fullname="t1_gm", author="gm"))
    text = referee.referee(_post("[[shoot Kara -> Trooper 1]]", fullname="t1_k")).text
    assert (True, True) == (
        "Choose a target still in the fight" in text,
        "&#91;&#91;npc NAME as TEMPLATE&#93;&#93;" in text,
    )


def test_a_huge_modifier_on_a_character_roll_is_refused(open_campaign):
    """[[roll Kara agility -1000]] is refused with the cap, and nothing is rolled."""
    referee = Referee(open_campaign(SHEETS))
    outcome = referee.referee(_post("[[roll Kara agility -1000]]"))
    assert (1, 0, True) == (
        outcome.problems,
        outcome.new_rolls,
        "is more than the ±100 a modifier may be" in outcome.text,
    )


def test_a_tag_read_again_after_the_roster_changed_reads_the_new_names(open_campaign):
    """Tags read earlier in a run are remembered, but never past a change of who exists:
    `init Kara Venn Trooper 3` is one unknown name until Trooper 3 is made, then two."""
    referee = Referee(open_campaign(SHEETS))
    tag = "[[init Kara Venn Trooper 3]]"
    before = referee.referee(_post(tag, fullname="t1_a1", author="gm"))
    referee.referee(_post("[[npc Trooper 3: str 2, agi 2, end 2, per 2]]", "t1_a2", author="gm"))
    after = referee.referee(_post(tag, fullname="t1_a3", author="gm"))
    assert (1, 0) == (before.problems, after.problems)
    assert "Trooper 3" in after.text and "Kara Venn" in after.text
