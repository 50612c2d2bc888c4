"""Answers that point the right way: a tag without a known verb, a misspelt name.

Each test is a player's (or GM's) post refereed as ``referee batch`` and the live bot
do it, and reads the reply the player would read.
"""

from __future__ import annotations

import pytest

from referee.base.names import NameIndex
from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.read.suggest import suggest_verb
from referee.resolve.dispatch import verbs_for
from referee.system import ParseContext
from referee.testing import sheet

SHEETS = [
    sheet("Kara Venn", owner="kara"),
    sheet("Zoë Marr", owner="zoe"),
    sheet("Trooper 1", kind="npc"),
    sheet("Trooper 2", kind="npc"),
    sheet("Hidden Agent", kind="npc"),
]
KESTREL = {
    "name": "Kestrel",
    "craft": "ship",
    "class": "light",
    "weapon": "d10",
    "acceleration": "d6",
    "armour": "d8",
    "sensors": "d6",
}


@pytest.fixture
def referee(open_campaign) -> Referee:
    """The referee of a campaign with characters and a ship, as batch and the bot run it."""
    return Referee(open_campaign(SHEETS, crafts=[KESTREL]))


def _reply(referee: Referee, body: str, author: str = "kara", fullname: str = "t1_a") -> str:
    return referee.referee(Post(fullname, "t3_thread", author, body, 1.0)).text


def test_a_name_first_tag_is_answered_with_the_roll_it_reads_as(referee) -> None:
    """[[Kara agility]] is answered with [[roll Kara agility]], not "Did you mean stat?"."""
    text = _reply(referee, "[[Kara agility]]")
    assert (True, False) == (
        "Write it as: `[[roll Kara agility]]`" in text,
        "Did you mean stat" in text,
    )


def test_a_verb_the_rest_does_not_fit_is_never_suggested(referee) -> None:
    """[[shet Kara]] gets neither shoot nor stat nor heal (none reads "Kara"), but sheet."""
    text = _reply(referee, "[[shet Kara]]")
    assert [] == [verb for verb in ("shoot", "stat", "heal") if f"Did you mean {verb}" in text]
    assert "[[sheet Kara]]" in text


def test_help_is_a_verb_not_a_heal(referee) -> None:
    """[[help]] answers with the campaign's verbs and no problem."""
    text = _reply(referee, "[[help]]")
    assert (True, False) == ("| shoot |" in text, "not resolved" in text)


def test_a_misspelt_verb_is_answered_with_the_tag_corrected(referee) -> None:
    """[[sht Kara -> Trooper 1]] suggests shoot and shows the player's own tag corrected."""
    text = _reply(referee, "[[sht Kara -> Trooper 1 head]]")
    assert "Did you mean shoot? Write it as: `[[shoot Kara -> Trooper 1 head]]`" in text


def test_a_slip_of_a_verb_whose_form_is_wrong_shows_the_verbs_own_form(referee) -> None:
    """[[shooot Kara]] (no target) still names shoot, with shoot's right form."""
    text = _reply(referee, "[[shooot Kara]]")
    assert "Did you mean shoot? Write it as: `[[shoot Kara -> Trooper 1 head" in text


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("Karra", "Kara Venn"),  # a doubled letter
        ("Kära", "Kara Venn"),  # an accent the roster does not have
        ("Zoe", "Zoë Marr"),  # an accent the player's keyboard does not have
        ("Troper 1", "Trooper 1"),
    ],
)
def test_a_misspelt_or_accented_name_gets_a_suggestion(referee, typed, meant) -> None:
    """Typos and accents both find the character the player meant."""
    text = _reply(referee, f"[[roll {typed} agility]]", author="gm")
    assert f"Did you mean {meant}" in text


def test_a_misspelt_craft_is_suggested_like_a_character(referee) -> None:
    """[[stat Kestrl armour]] suggests the ship Kestrel, a craft that is there."""
    assert "Did you mean Kestrel?" in _reply(referee, "[[stat Kestrl armour]]", author="gm")


def test_an_unknown_name_without_a_close_one_says_what_to_do_in_the_thread(referee) -> None:
    """No suggestion: the reply says how characters join, never a shell command."""
    text = _reply(referee, "[[roll Xyzzy agility]]")
    assert ("Check the spelling", False) == (
        "Check the spelling" if "Check the spelling" in text else text,
        "referee characters" in text,
    )


def test_the_visibility_hook_keeps_a_hidden_name_out_of_suggestions(referee) -> None:
    """A record the roster's suggestable hook refuses is never offered, even when closest."""
    referee.roster.suggestable = lambda record: record["name"] != "Hidden Agent"
    text = _reply(referee, "[[roll Hidden Agnt agility]]")
    assert "Hidden Agent" not in text.replace("Hidden Agnt", "")


def test_revise_and_reject_errors_show_their_own_verb(referee) -> None:
    """A GM's [[revise ...]] or [[reject ...]] that names no application shows that verb."""
    revise = _reply(referee, "[[revise fix Agility]]", author="gm", fullname="t1_r")
    reject = _reply(referee, "[[reject too strong]]", author="gm", fullname="t1_j")
    assert (True, True, False) == (
        "&#91;&#91;revise NAME" in revise,
        "&#91;&#91;reject NAME" in reject,
        "approve" in revise + reject,
    )


def test_suggestions_come_from_the_verb_table_whatever_it_holds() -> None:
    """A verb added to the table is suggested with no list to update anywhere."""
    from referee.system import Resolution, Verb, verb_table

    dossier_verb = Verb(
        "dossier",
        lambda rest, context: rest,
        lambda request, context, dice: Resolution("x", request),
        form="dossier <name>",
        help="shows a dossier",
        example="dossier Kara",
    )
    table = verb_table([*dict.fromkeys(verbs_for(None).values()), dossier_verb])
    found = suggest_verb("dosier", "Kara", table, ParseContext())
    assert "[[dossier Kara]]" == (found.usage if found else None)


def test_a_typo_finds_its_name_in_a_big_roster() -> None:
    """Among 20,000 troopers a typo still finds Kara Venn (by the deletion table, no scan)."""
    big = NameIndex([f"Trooper {n}" for n in range(20_000)] + ["Kara Venn"])
    assert ["kara venn"] == big.suggest("karra")


def test_a_tag_no_verb_fits_points_to_help_not_to_another_verb(referee) -> None:
    """[[xyzzy Kara]] shows no verb's form (it would mislead) and points to [[help]]."""
    text = _reply(referee, "[[xyzzy Kara]]")
    assert (True, False) == (
        "&#91;&#91;help&#93;&#93; lists them with their forms" in text,
        "Write it as" in text,
    )


def test_the_visibility_hook_keeps_a_hidden_name_out_of_an_ambiguous_answer(open_campaign) -> None:
    """'Trooper' is ambiguous: Trooper 1 or 2: a hidden Trooper 2 is not listed to the player."""
    referee = Referee(open_campaign(SHEETS))
    referee.roster.suggestable = lambda record: record["name"] != "Trooper 2"
    text = _reply(referee, "[[roll Trooper agility]]", author="gm")
    assert (True, False) == ("ambiguous\\: Trooper 1 —" in text, "Trooper 2" in text)
