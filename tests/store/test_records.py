"""Tests for referee.store.records: whom a roll concerned, and taking one tag's changes back out."""

from __future__ import annotations

from referee.store.records import difference, ledger_history, names_in, undo


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
