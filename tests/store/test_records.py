"""Tests for referee.store.records: whom a roll concerned, and taking one tag's changes back out."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.names import name_key
from referee.store.records import difference, history_lines, ledger_history, names_in, undo
from referee.store.store import Store


def test_undo_of_a_created_record_deletes_it_and_of_a_deleted_one_restores_it() -> None:
    """A record the tag made, untouched since, goes; a record the tag deleted comes back."""
    created = difference(None, {"name": "Bandit"})
    deleted = difference({"name": "Bandit"}, None)
    assert (None, {"name": "Bandit"}) == (
        undo({"name": "Bandit"}, created).record,
        undo(None, deleted).record,
    )


def test_undo_of_a_created_record_keeps_what_later_tags_did() -> None:
    """A thread's record made by the voided tag and changed since (a wound, a task) stays
    as later tags left it, and is named for the GM: it is never deleted with their work."""
    created = difference(None, {"name": "Bandit"})
    result = undo({"name": "Bandit", "wounds": 1}, created)
    assert ({"name": "Bandit", "wounds": 1}, ("the record",)) == (result.record, result.kept)


def test_undo_gives_a_field_that_held_none_its_none_back() -> None:
    """A contest's winner None -> Kara: undone to None, the key kept (its record still reads);
    a field the tag added goes."""
    changes = difference({"winner": None}, {"winner": "Kara", "turn": 3})
    assert {"winner": None} == undo({"winner": "Kara", "turn": 3}, changes).record


def test_undo_data_kept_before_the_fourth_item_reads_as_it_did() -> None:
    """A stored three-item change whose old value is None took the key out: it still does."""
    assert {} == undo({"turn": 3}, [[["turn"], None, 3]]).record


def test_undo_leaves_a_field_changed_since_and_names_it() -> None:
    """A word field the voided tag set and a later tag changed again is kept, and reported."""
    changes = difference({"sheet": {"policy": "up"}}, {"sheet": {"policy": "hit"}})
    result = undo({"sheet": {"policy": "never"}}, changes)
    assert ({"sheet": {"policy": "never"}}, ("sheet.policy",)) == (result.record, result.kept)


def test_undo_of_a_nested_number_keeps_later_changes() -> None:
    """advantage 1 -> 4 by the voided tag, then 4 -> 5: undone to 2."""
    changes = difference({"sheet": {"advantage": 1}}, {"sheet": {"advantage": 4}})
    assert {"sheet": {"advantage": 2}} == undo({"sheet": {"advantage": 5}}, changes).record


def test_names_in_finds_full_names_first_words_and_several_names() -> None:
    """`init Kara, Trooper 1` concerns Kara Venn and Trooper 1, each once."""
    known = {"kara venn", "trooper 1", "trooper 2"}
    found = names_in(
        "init Kara, Trooper 1, Kara", known, lambda key: "kara venn" if key == "kara" else None
    )
    assert ["kara venn", "trooper 1"] == found


def test_names_in_reads_the_same_when_told_the_longest_name() -> None:
    """The roster's longest name (in words) bounds the runs tried; what is found is the same."""
    from referee.base.names import NameIndex

    known = {"kara venn", "trooper 1", "dax", "the old sergeant vok", "vok"}
    index = NameIndex(known)
    tags = [
        "shoot Kara -> The Old Sergeant Vok head",
        "init Dax, Vok, Trooper 1, kara",
        "melee the old sergeant -> trooper 1 arm",
        "roll Kara Venn agility+perception the old",
    ]
    longest = max(name.count(" ") + 1 for name in known)
    for tag in tags:
        assert names_in(tag, known, index.resolve, longest=longest) == names_in(
            tag, known, index.resolve
        )
    assert ["kara venn", "the old sergeant vok"] == names_in(
        tags[0], known, index.resolve, longest=4
    )


def test_ledger_history_filters_by_name_post_and_deletion() -> None:
    """Rows of Kara, of one post, and of deleted posts only."""
    rows = [
        {
            "roll_id": "a-1",
            "post": "t1_a",
            "tag": "roll Kara agility",
            "kind": "stat",
            "outcome": {"names": ["kara venn"]},
        },
        {"roll_id": "b-1", "post": "t1_b", "tag": "roll 2d6", "kind": "dice", "outcome": {}},
        {
            "roll_id": "a-deleted",
            "post": "t1_a",
            "tag": "",
            "kind": "deleted",
            "outcome": {"names": ["kara venn"]},
        },
    ]
    assert (["a-1", "a-deleted"], ["b-1"], ["a-deleted"]) == (
        [row["roll_id"] for row in ledger_history(rows, "Kara")],
        [row["roll_id"] for row in ledger_history(rows, post="b")],
        [row["roll_id"] for row in ledger_history(rows, gone_only=True)],
    )


# -- history over the store's ledger: the byte search never changes the answer ----------

_NAMES = ["Kara", "Kara Venn", "kara", "Zoë", "ZOË", "Straße", "strasse", "\u212aara", 'O"Neil']
_WORDS = ["roll", "shoot", "->", "agility", "  ", "\t", "2d6", "Trooper 1", "KARA", "venn"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.lists(st.sampled_from(_WORDS + _NAMES), max_size=5),  # the tag's words
            st.lists(st.sampled_from(_NAMES), max_size=2),  # the names it concerned
            st.sampled_from(["stat", "deleted", "attack"]),
        ),
        max_size=25,
    ),
    query=st.sampled_from([*_NAMES, "kara  venn", "KARA", "Trooper", "ven"]),
    post=st.sampled_from([None, "t1_3", "3", "T1_3"]),
    flushed=st.integers(min_value=0, max_value=25),
)
def test_history_over_the_store_lists_what_reading_every_row_lists(
    tmp_path_factory, rows, query, post, flushed
) -> None:
    """history_lines (a byte search, then the rows that may match) gives exactly what
    ledger_history gives reading every row: any case, spacing, accents or quotes."""
    path = tmp_path_factory.mktemp("history") / "store.json"
    store = Store(path)
    try:
        for n, (words, names, kind) in enumerate(rows):
            outcome = {"total": n, **({"names": [name_key(x) for x in names]} if names else {})}
            store.ledger.append(
                {
                    "roll_id": f"{n}-1",
                    "post": f"t1_{n}",
                    "tag": " ".join(words),
                    "kind": kind,
                    "outcome": outcome,
                }
            )
            if n + 1 == flushed:
                store.flush()
        every = list(ledger_history(store.ledger, query, post))
        searched = list(history_lines(store.ledger, query, post))
    finally:
        store.discard()
    assert [row["roll_id"] for row in every] == [row["roll_id"] for row in searched]


def test_history_finds_a_name_however_the_tag_spaced_or_cased_it(tmp_path) -> None:
    """A row with no names found by its tag: "KARA\\tvenn" is Kara Venn's; the byte search
    looks for each word, so it keeps that row for the full reading to decide."""
    store = Store(tmp_path / "store.json")
    try:
        for n, tag in enumerate(["roll KARA\tvenn agility", "roll Kara agility", "roll 2d6"]):
            store.ledger.append({"roll_id": f"{n}-1", "post": f"t1_{n}", "tag": tag})
        store.flush()
        found = [row["roll_id"] for row in history_lines(store.ledger, "Kara  Venn")]
    finally:
        store.discard()
    assert ["0-1"] == found
