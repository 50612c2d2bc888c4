"""Tests for referee.read.tags: finding tags in Markdown, and the core's verbs and dispatch."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.errors import TagError
from referee.base.limits import Limits
from referee.notation import parse_expression
from referee.read.tags import (
    RollDice,
    ShowHelp,
    Tag,
    TagScan,
    decision_parser,
    find_tags,
    parse_tag,
)
from referee.resolve.dispatch import verbs_for
from referee.system import ParseContext, Verb, verb_table

# ---------------------------------------------------------------------------- finding

FOUND = [
    ("plain", "Kara fires [[roll d20]].", ["roll d20"]),
    ("several in order", "[[a]] then [[b]]\n\nand [[c]]", ["a", "b", "c"]),
    ("stripped", "[[  roll  d20  ]]", ["roll  d20"]),
    ("inline code", "`[[roll d20]]` and [[roll d6]]", ["roll d6"]),
    ("double-backtick code", "``a ` [[roll d20]]`` [[roll d6]]", ["roll d6"]),
    ("unmatched backtick is text", "a ` [[roll d6]]", ["roll d6"]),
    ("code span across lines", "`start\n[[roll d20]] end` [[roll d6]]", ["roll d6"]),
    ("escaped backtick is text", "\\`[[roll d6]]\\`", ["roll d6"]),
    ("fenced backticks", "```\n[[roll d20]]\n```\n[[roll d6]]", ["roll d6"]),
    ("fenced tildes", "~~~python\n[[roll d20]]\n~~~\n[[roll d6]]", ["roll d6"]),
    ("longer fence needs longer close", "````\n```\n[[roll d20]]\n````\n[[roll d6]]", ["roll d6"]),
    ("unclosed fence runs to the end", "[[roll d6]]\n```\n[[roll d20]]", ["roll d6"]),
    ("indented code", "text\n\n    [[roll d20]]\n\n[[roll d6]]", ["roll d6"]),
    ("tab-indented code", "\t[[roll d20]]\n\n[[roll d6]]", ["roll d6"]),
    ("indented continuation is text", "Kara acts\n    [[roll d6]]", ["roll d6"]),
    ("list item", "- Kara: [[roll d6]]\n- Dax: [[roll d8]]", ["roll d6", "roll d8"]),
    ("indented list content", "- Kara\n\n    [[roll d6]]", ["roll d6"]),
    ("quote", "> [[roll d20]]\n\n[[roll d6]]", ["roll d6"]),
    ("nested quote", ">> [[roll d20]]\n\n[[roll d6]]", ["roll d6"]),
    ("spaced nested quote", "> > [[roll d20]]\n\n[[roll d6]]", ["roll d6"]),
    ("indented quote", "   > [[roll d20]]", []),
    ("quote ends on the next paragraph", "> quoted [[roll d20]]\n\nmine [[roll d6]]", ["roll d6"]),
    ("quote inside list", "- > [[roll d20]]", []),
    ("spoiler is text", ">![[roll d6]]!<", ["roll d6"]),
    ("lazy quote continuation", "> quote\n[[roll 1d7]]", []),
    (
        "lazy continuation, then a new paragraph",
        "> quote\n[[roll 1d7]]\n\n[[roll d6]]",
        ["roll d6"],
    ),
    ("blank line ends the quote", "> quote\n\n[[roll 1d7]]", ["roll 1d7"]),
    ("lazy lines run on", "> quote\nmore\n    [[roll d20]]", []),
    ("nested quote's lazy line", "> > quote\n[[roll d20]]", []),
    ("list item's lazy line", "> - item\n[[roll d20]]", []),
    ("a list item ends the quote", "> quote\n- [[roll d6]]", ["roll d6"]),
    ("'1.' ends the quote", "> quote\n1. [[roll d6]]", ["roll d6"]),
    ("'2.' cannot interrupt, so it is lazy", "> quote\n2. [[roll d20]]", []),
    ("a heading ends the quote", "> quote\n# [[roll d6]]", ["roll d6"]),
    ("a thematic break ends the quote", "> quote\n***\n[[roll d6]]", ["roll d6"]),
    ("a fence ends the quote", "> quote\n```\n[[roll d20]]\n```\n[[roll d6]]", ["roll d6"]),
    ("an empty quote line leaves no paragraph", ">\n[[roll d6]]", ["roll d6"]),
    ("a quoted heading leaves no paragraph", "> # title\n[[roll d6]]", ["roll d6"]),
    ("a quoted fence is closed by the quote's end", "> ```\n[[roll d6]]", ["roll d6"]),
    ("a spoiler line is lazy text", "> quote\n>![[roll d20]]!<", []),
    ("heading", "# [[roll d6]]", ["roll d6"]),
    ("unclosed", "[[roll d20 and more", []),
    ("nested takes innermost", "[[a [[roll d6]]", ["roll d6"]),
    ("triple brackets", "[[[roll d6]]]", ["[roll d6"]),
    ("two bracketed asides", "[[citation needed] and [see above]]", []),
    ("asides beside a tag", "[[sic] [[roll d6]] [ok]]", ["roll d6"]),
    ("a note inside a tag", "[[roll 1d6 [fire] + 2]]", ["roll 1d6 [fire] + 2"]),
    ("empty", "[[]] [[   ]]", []),
    ("link is not a tag", "see [[1]](https://example.com) [[roll d6]]", ["roll d6"]),
    ("rich-text escapes", "\\[\\[roll d6\\]\\]", ["roll d6"]),
    ("escaped backslash", "\\\\[[roll d6]]", ["roll d6"]),
    ("across lines of a paragraph", "[[shoot Kara\n-> Trooper 1]]", ["shoot Kara\n-> Trooper 1"]),
    ("windows newlines", "```\r\n[[roll d20]]\r\n```\r\n[[roll d6]]", ["roll d6"]),
]


@pytest.mark.parametrize(
    ("body", "texts"), [case[1:] for case in FOUND], ids=[case[0] for case in FOUND]
)
def test_find_tags(body: str, texts: list[str]) -> None:
    """Tags a reader sees as text are found in order; code and quotes are skipped."""
    expected = TagScan(tuple(Tag(i, text) for i, text in enumerate(texts)), 0, None)
    assert expected == replace(find_tags(body), near=())


def test_tag_cap() -> None:
    """Tags beyond the per-post cap are counted as refused, with a message."""
    scan = find_tags(" ".join(f"[[roll d{n}]]" for n in range(2, 9)), Limits(max_tags_per_post=5))
    expected = (
        [0, 1, 2, 3, 4],
        2,
        "This post has 7 roll tags; referee rolls at most 5 per post, so the last 2 were "
        "not rolled. Put them in another post.",
    )
    assert expected == ([tag.index for tag in scan.tags], scan.refused, scan.problem)


def test_over_long_post() -> None:
    """A post over max_post_chars yields no tags and says why."""
    scan = find_tags("[[roll d6]]" + "x" * 100, Limits(max_post_chars=50))
    expected = TagScan(
        (),
        0,
        "This post is 111 characters long, more than the 50 referee reads, "
        "so none of its tags were rolled.",
    )
    assert expected == scan


def test_over_long_tag_is_kept_for_refusal() -> None:
    """A tag over max_tag_chars keeps its index, and parse_tag refuses it."""
    limits = Limits(max_tag_chars=20)
    scan = find_tags("[[roll d6]] [[roll " + "d6+" * 20 + "1]] [[roll d8]]", limits)
    with pytest.raises(TagError) as caught:
        parse_tag(scan.tags[1].text, verbs_for(None), ParseContext(limits=limits))
    expected = ([0, 1, 2], "This tag is 66 characters long; a tag may hold at most 20.")
    assert expected == ([tag.index for tag in scan.tags], caught.value.message)


@settings(max_examples=500)
@given(st.text(alphabet=st.sampled_from("[]`~> \n\t-#!\\(x1d")) | st.text())
def test_find_tags_never_raises(body: str) -> None:
    """For any text, find_tags returns a scan whose tags are numbered in order."""
    scan = find_tags(body)
    assert list(range(len(scan.tags))) == [tag.index for tag in scan.tags]


# ------------------------------------------------------------------ the core's verbs

CORE = verbs_for(None)


def test_core_verbs_read_dice_and_help() -> None:
    """Without a system the core still reads dice, bare notation and help."""
    expected = (
        RollDice(parse_expression("2d6+3")),
        RollDice(parse_expression("d20")),
        ShowHelp("shoot"),
    )
    assert expected == (
        parse_tag("roll 2d6+3", CORE),
        parse_tag("d20", CORE),
        parse_tag("help SHOOT", CORE),
    )


def test_a_verb_table_dispatches_aliases_and_lists_verbs_on_a_typo() -> None:
    """A verb and its alias reach its parser; a near miss names it and shows its right form."""
    smite = Verb(
        "smite",
        lambda rest, context: ("smite", rest),
        lambda request, context, dice: None,  # type: ignore[arg-type,return-value]
        form="smite <name>",
        help="smites",
        example="smite Kara",
        aliases=("zap",),
    )
    table = verb_table([*dict.fromkeys(CORE.values()), smite])
    with pytest.raises(TagError) as caught:
        parse_tag("smit Kara", table)
    expected = (("smite", "Kara"), "[[smite Kara]]", True)
    assert expected == (
        parse_tag("ZAP Kara", table),
        caught.value.usage,
        "help, smite. Did you mean smite?" in caught.value.message,
    )


def test_a_verb_word_taken_twice_is_refused() -> None:
    """Two verbs may not claim one word: the table says which."""
    roll = CORE["roll"]
    with pytest.raises(ValueError, match="'roll' is taken twice"):
        verb_table([roll, roll])


def test_find_tags_keeps_what_is_a_bracket_short_of_a_tag() -> None:
    """An unclosed [[, or a single [ closed by ]], is kept as written; links and code are not."""
    body = "[[roll 2d6] now\n\n[shoot Kara -> T1]] but `[[roll d6]` and [[1]](https://x.y)"
    assert ("[[roll 2d6]", "[shoot Kara -> T1]]") == find_tags(body).near


def test_a_dice_tag_read_in_one_campaign_reads_anew_by_another_campaigns_verbs():
    """`roll 6` is notation by the core's verbs and a pool of six by the pool's, in any order."""
    from referee.system import load_system

    core, pool = verbs_for(None), verbs_for(load_system("pool"))
    readings = [parse_tag("roll 6", verbs) for verbs in (core, pool, core, pool)]

    assert [True, False, True, False] == [isinstance(r, RollDice) for r in readings]
    assert readings[0] == readings[2]  # the same tag reads the same by the same verbs


def test_a_dice_tag_is_read_within_the_limits_it_is_given():
    """A roll the default limits allow is still refused under tighter ones after it was read."""
    parse_tag("roll 30d6", verbs_for(None))
    with pytest.raises(TagError):
        parse_tag("roll 30d6", verbs_for(None), ParseContext(limits=Limits(max_dice=20)))


def test_an_approve_amendment_keeps_the_commas_inside_its_parentheses() -> None:
    """[[approve Nika with item Amulet (helpful, ?sith), tier advanced]]: two amendments."""
    decided = decision_parser("approve")(
        "Nika with item Amulet (helpful, ?sith), tier advanced", ParseContext()
    )
    assert ("Nika", ("item Amulet (helpful, ?sith)", "tier advanced")) == (
        decided.name,
        decided.amendments,
    )
