"""Tests for referee.base.names: exact, first-words and misspelled name lookups."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.base.names import (
    NameIndex,
    look_alike_key,
    mixed_scripts,
    name_key,
    normalise_name,
)

ROSTER = ["Kara Venn", "Captain Rhoss", "Trooper 1", "Trooper 2", "Orla Vex", "Kara"]


@pytest.fixture
def index() -> NameIndex:
    return NameIndex(ROSTER)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("kara venn", "kara venn"),
        ("KARA   venn", "kara venn"),
        ("orla", "orla vex"),
        ("captain", "captain rhoss"),
        ("kara", "kara"),  # a whole name beats the names it starts
        ("trooper", None),  # two names start with it
        ("vex", None),  # a last name is not a first word
    ],
)
def test_resolve_finds_a_name_exactly_or_by_its_first_words(index, typed, expected):
    """A key resolves to itself, else to the only name it starts."""
    assert expected == index.resolve(name_key(typed))


def test_starting_lists_every_name_a_prefix_could_mean_in_roster_order(index):
    """The names whose leading words are the key's, as added."""
    assert (("trooper 1", "trooper 2"), ()) == (index.starting("trooper"), index.starting("troop"))


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("kara ven", ["kara venn"]),
        ("captian rhoss", ["captain rhoss"]),
        ("orla vx", ["orla vex"]),
        ("orlaa", ["orla vex"]),
        ("zzzz qqq", []),
    ],
)
def test_suggestions_catch_slips_of_one_or_two_letters(index, typed, expected):
    """A dropped, added, swapped or changed letter still finds the name meant."""
    assert expected == index.suggest(typed)[:1]


def test_names_added_after_a_suggestion_are_suggested_too(index):
    """The misspelling table grows with the roster once it exists."""
    index.suggest("kara ven")
    index.add("Brannoc Steel")
    assert ["brannoc steel"] == index.suggest("branoc steel")


def test_a_crowded_first_word_still_answers_from_a_bounded_set():
    """With 5,000 names sharing a first word, a typo of it suggests at most 3 names."""
    crowd = NameIndex(f"Hero {n}" for n in range(5000))
    found = crowd.suggest("hreo 17")
    assert (True, True) == (len(found) <= 3, all(name.startswith("hero ") for name in found))


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("Kara Venn\u2060", "Kara Venn"),  # a word joiner after the name
        ("Dax\u202eOrrel", "DaxOrrel"),  # a right-to-left override inside it
        ("\ufeffKara\u200b Venn\u061c", "Kara Venn"),  # byte-order mark, zero-width, Arabic mark
        ("Kara\u3164Venn", "Kara Venn"),  # a Hangul filler shows as a blank: it is a space
        ("\uff2b\uff41\uff52\uff41", "Kara"),  # fullwidth letters are the letters
        ("Kara\ufe0f \U000e0041Venn", "Kara Venn"),  # a variation selector, a tag character
    ],
)
def test_a_name_is_normalised_to_how_it_shows(written, shown):
    """Invisible and bidi characters are dropped, fillers are spaces, NFKC folds forms."""
    assert (shown, name_key(shown)) == (normalise_name(written), name_key(written))


@pytest.mark.parametrize("blank", ["\u3164", "\u115f\u1160", "\u2800 \uffa0", "\u200b\u2060\ufeff"])
def test_a_blank_looking_name_normalises_to_nothing(blank):
    """Hangul fillers, the blank Braille pattern and zero-width characters leave no name."""
    assert "" == normalise_name(blank)


@given(st.text(max_size=40))
def test_normalising_twice_changes_nothing(text):
    """A normalised name is its own normal form, so a stored name keys as it was keyed."""
    once = normalise_name(text)
    assert (once, name_key(once)) == (normalise_name(once), name_key(text))


@pytest.mark.parametrize(
    ("real", "imitation"),
    [
        ("Kara Venn", "K\u0430ra Venn"),  # a Cyrillic a (U+0430)
        ("Kara Venn", "KARA VENN"),  # case is no disguise either
        ("Orla Vex", "0rla Vex"),  # a zero for an O
        ("Trooper 1", "Trooper l"),  # a small L for a one
        ("Mira Vorn", "Mira Vom"),  # m for rn
        ("Kate", "\u039a\u0391\u03a4\u0395"),  # Greek capitals Kappa Alpha Tau Epsilon
    ],
)
def test_look_alike_names_share_a_key(real, imitation):
    """Names that look the same (Unicode's confusable skeleton) have one look-alike key."""
    assert look_alike_key(real) == look_alike_key(imitation)


@pytest.mark.parametrize(("one", "other"), [("Kara Venn", "Kara Vern"), ("Kara", "Kára")])
def test_names_that_look_different_have_different_look_alike_keys(one, other):
    """An accent or another letter tells two names apart."""
    assert look_alike_key(one) != look_alike_key(other)


@pytest.mark.parametrize(
    ("name", "mixed"),
    [
        ("K\u0430ra Venn", ("Cyrillic", "Latin")),
        ("Kara Venn", ()),
        ("Zoë Ångström 2", ()),
        ("\u041a\u0430\u0440\u0430", ()),  # all Cyrillic
        ("山田エリ", ()),  # Han and Katakana are written together
        ("Ken 山田", ()),
    ],
)
def test_mixed_scripts_names_the_alphabets_that_are_not_written_together(name, mixed):
    """Latin with a Cyrillic letter is mixed; Japanese with Latin is not."""
    assert mixed == mixed_scripts(name)
