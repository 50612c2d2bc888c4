"""Tests for referee.system.visibility: what a GM does in private stays known to the GMs."""

from __future__ import annotations

from referee.store.tables import KeyedTable
from referee.system.visibility import after_private_tag, public_columns, public_records

KARA = {"name": "Kara", "owner": "kara", "sheet": {"name": "Kara", "wounds": 0}}
AGENT = {"name": "Agent", "owner": None, "sheet": {"name": "Agent", "wounds": 0}}


def test_a_character_created_in_private_is_hidden_and_left_out_of_public_records() -> None:
    """An NPC a private tag created is hidden: the public roster leaves it out."""
    table = KeyedTable("visibility", {}, None)
    hidden = after_private_tag(table, [("characters", "agent", None, AGENT)], private=True)
    assert (["agent"], [KARA]) == (
        hidden,
        public_records([KARA, AGENT], dict(table.items())),
    )


def test_a_private_change_shows_the_last_public_state_until_a_public_one() -> None:
    """A private wound: players see the sheet before it; a later public change shows all."""
    table = KeyedTable("visibility", {}, None)
    wounded = {**KARA, "sheet": {"name": "Kara", "wounds": 1}}
    after_private_tag(table, [("characters", "kara", KARA, wounded)], private=True)
    shown_private = public_records([wounded], dict(table.items()))
    twice = {**KARA, "sheet": {"name": "Kara", "wounds": 2}}
    after_private_tag(table, [("characters", "kara", wounded, twice)], private=False)
    assert ([KARA], [twice]) == (shown_private, public_records([twice], dict(table.items())))


def test_public_columns_keep_who_and_how_they_stand_never_their_numbers() -> None:
    """From a system's `referee characters` header: name and state columns, no stats."""
    header = ("name", "kind", "owner", "approved", "level", "attributes", "health", "stress")
    assert ["name", "kind", "owner", "approved", "health", "stress"] == [
        header[i] for i in public_columns(header)
    ]
