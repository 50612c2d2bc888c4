"""Pool rulings: RULES.md's defaults, read from config.toml, unknown keys refused."""

from __future__ import annotations

import pytest

from referee.base.errors import ConfigError
from referee.systems.pool.rulings import (
    EmptyAction,
    EmptyPool,
    ExtendedBotch,
    OverTen,
    PoolRulings,
    ResistedTie,
    TeamBotch,
    Teamwork,
)


def test_defaults_are_the_rules_rulings() -> None:
    """R-29..R-38 default as RULES.md §2 says."""
    assert (
        PoolRulings(
            pool_over_10=OverTen.FLAG,
            difficulty_clamp=True,
            labels=("minimal", "moderate", "complete"),
            willpower_success=True,
            free_botch=False,
            empty_pool=EmptyPool.REFUSE,
            empty_action=EmptyAction.REFUSE,
            extended_botch=ExtendedBotch.RESET,
            resisted_tie=ResistedTie.NOBODY,
            teamwork=Teamwork.GM,
            team_botch=TeamBotch.ALL,
            player_difficulty=False,
        )
        == PoolRulings()
    )


def test_every_option_is_read_from_a_mapping() -> None:
    """Each key of config.toml sets its ruling, labels included."""
    mapping = {
        "pool_over_10": "refuse",
        "difficulty_clamp": False,
        "labels": ["marginal", "complete", "exceptional", "phenomenal"],
        "willpower_success": False,
        "free_botch": True,
        "empty_pool": "fail",
        "empty_action": "skip",
        "extended_botch": "end",
        "resisted_tie": "defender",
        "teamwork": "never",
        "team_botch": "own",
        "player_difficulty": True,
    }
    rulings = PoolRulings.from_mapping(mapping)
    assert mapping == rulings.to_mapping()
    assert "phenomenal" == rulings.label_for(7)


def test_unknown_keys_and_bad_values_are_all_reported() -> None:
    """A typo lists the known rulings; a bad value lists the allowed ones; both at once."""
    with pytest.raises(ConfigError) as caught:
        PoolRulings.from_mapping({"free_botches": True, "labels": [], "difficulty_clamp": "yes"})
    message = caught.value.message
    assert message.startswith("The pool rulings in config.toml have 3 problems:")
    assert "the pool rulings are pool_over_10, difficulty_clamp, labels" in message
    assert "difficulty_clamp = 'yes': allowed values are true, false." in message


def test_rulings_built_from_plain_values_hold_enums() -> None:
    """Built directly from TOML values, the rulings hold enum members; a bad value is refused."""
    rulings = PoolRulings(team_botch="own", labels=["ok", "great"])  # type: ignore[arg-type]
    assert (TeamBotch.OWN, ("ok", "great")) == (rulings.team_botch, rulings.labels)
    with pytest.raises(ValueError, match="team_botch = 'mine'"):
        PoolRulings(team_botch="mine")  # type: ignore[arg-type]
