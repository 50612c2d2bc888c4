"""Characters and parties for the trikus tests: the seed's Paweł, Zuzia and Michał."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.systems.trikus.state import Character, Party, new_character

SIDES = {
    "beginner": (["kind", "curious", "loyal"], ["reckless"]),
    "advanced": (["bold", "clever"], ["greedy", "vain"]),
    "master": (["wise"], ["proud", "cold", "cruel"]),
}


def make_character(name: str, tier: str, **changes: object) -> Character:
    """A fresh character of ``tier``, with any field replaced."""
    light, dark = SIDES[tier]
    made = new_character(
        {
            "name": name,
            "player": name.lower(),
            "tier": tier,
            "light_sides": light,
            "dark_sides": dark,
        }
    )
    return replace(made, **changes)  # type: ignore[arg-type]


@pytest.fixture
def party() -> Party:
    """The seed's party: Paweł a Beginner, Zuzia Advanced, Michał a Master."""
    return Party(
        (
            make_character("P", "beginner"),
            make_character("Z", "advanced"),
            make_character("M", "master"),
        )
    )


@pytest.fixture
def character():
    """Make a fresh character: ``character(name, tier, **fields)``."""
    return make_character
