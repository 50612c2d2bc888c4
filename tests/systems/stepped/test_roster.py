"""The roster page: approved characters and vehicles, user text made inert."""

from __future__ import annotations

from typing import Any

from referee.base.markdown import escape_markdown
from referee.render.roster import RosterRenderer
from referee.store.entries import store_entry
from referee.systems import stepped
from referee.systems.stepped.roster import roster_view
from referee.systems.stepped.system import SYSTEM
from referee.testing import sheet


def _entry(name: str, owner: str | None, approved: bool = True, **fields: Any) -> dict[str, Any]:
    kind = "pc" if owner else "npc"
    character = stepped.character_from_record(sheet(name, kind, **fields))
    return store_entry(character.name, owner, approved, stepped.character_to_record(character))


def test_only_approved_characters_are_listed_players_first() -> None:
    """Pending applications stay off the page; players and the GM's characters are apart."""
    view = roster_view(
        "C", [_entry("Zed", "z"), _entry("Ann", None), _entry("Pending", "p", approved=False)]
    )
    assert (["Zed"], ["Ann"]) == ([r.name for r in view.players], [r.name for r in view.npcs])


def test_user_text_cannot_format_link_or_ping() -> None:
    """A player's name and weapon pass through the md filter."""
    record = _entry("Kara", "kara_p")
    record["sheet"]["weapons"][0]["name"] = "[gun](http://x.y)"
    page = RosterRenderer(system=SYSTEM).render(roster_view("**Camp**", [record]))
    assert ("[gun](http" in page, escape_markdown("[gun](http://x.y)") in page) == (False, True)
    assert (f"# {escape_markdown('**Camp**')}: roster", True) == (
        page.splitlines()[0],
        f"u&#47;{escape_markdown('kara_p')}" in page,
    )


def test_vehicles_are_listed_from_their_stored_sheets() -> None:
    """A vehicles table's approved records get their own section."""
    bike = {
        "name": "Bike",
        "owner": None,
        "approved": True,
        "sheet": {"name": "Bike", "craft": "vehicle", "class": "light", "speed": "d8", "wounds": 1},
    }
    page = RosterRenderer(system=SYSTEM).render(roster_view("C", [], [bike]))
    assert f"| Bike | GM | vehicle | light | {escape_markdown('-')} | speed d8 | 1 |" in page


def test_no_vehicles_no_vehicle_section() -> None:
    """Without vehicles the page has no empty Vehicles table."""
    assert "Vehicles" not in RosterRenderer(system=SYSTEM).render(
        roster_view("C", [_entry("Kara", "k")])
    )


def test_a_characters_personal_traits_follow_its_race_escaped() -> None:
    """The roster shows each trait after the race, its name through the md filter."""
    trait = {"name": "*Keen* eyes", "modifiers": {"perception": 1}}
    page = RosterRenderer(system=SYSTEM).render(
        roster_view("C", [_entry("Kara", "kara_p", traits=[trait])])
    )
    assert f"| human; {escape_markdown('*Keen* eyes (per +1)')} |" in page
