"""Tests for referee.base.names: exact, first-words and misspelled name lookups."""

from __future__ import annotations

import pytest

from referee.base.names import NameIndex, name_key

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
