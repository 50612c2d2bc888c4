"""The change set of a tag: writes kept on success, put back on failure, caches told."""

from referee.store.changes import ChangeSet
from referee.store.tables import KeyedTable


def _set() -> tuple[ChangeSet, KeyedTable]:
    table = KeyedTable("characters", {}, None)
    table.put("kara", {"wounds": 0})
    return ChangeSet({"characters": table}), table


def test_a_rollback_puts_back_changed_added_and_deleted_records_in_order() -> None:
    """Every write since the last commit is undone, newest first, whatever its kind."""
    changes, table = _set()
    view = changes.table("characters")
    view.put("kara", {"wounds": 1})
    view.put("kara", {"wounds": 2})
    view.put("dax", {"wounds": 0})
    view.delete("kara")
    changes.rollback()
    assert ({"wounds": 0}, False, 0) == (table.get("kara"), "dax" in table, changes.pending)


def test_a_commit_keeps_the_writes_and_a_later_rollback_leaves_them() -> None:
    """After a commit the undo log is empty: a failing next tag undoes only its own writes."""
    changes, table = _set()
    changes.table("characters").put("kara", {"wounds": 1})
    changes.commit()
    changes.table("characters").put("kara", {"wounds": 2})
    changes.rollback()
    assert {"wounds": 1} == table.get("kara")


def test_listeners_hear_a_rollback_only_when_something_was_undone() -> None:
    """A roster forgets its parsed characters after a rollback, not after an empty one."""
    changes, _ = _set()
    heard: list[str] = []
    changes.on_rollback(lambda: heard.append("forget"))
    changes.rollback()
    changes.table("characters").put("kara", {"wounds": 3})
    changes.rollback()
    assert ["forget"] == heard
