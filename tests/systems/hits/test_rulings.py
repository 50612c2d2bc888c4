"""The hits rulings: RULES.md's defaults, config values, and refusals listing every problem."""

from __future__ import annotations

import pytest

from referee.base.errors import ConfigError
from referee.systems.hits.rulings import (
    UNCAPPED,
    AdvantageMode,
    AllIn,
    CritFace,
    GroupLevel,
    InfluencePer,
    Rulings,
    SecondKnockout,
    XpAtMax,
    XpMode,
    XpWaysScope,
)


def test_defaults_are_rules_md():
    """Each ruling defaults to RULES.md §5's stated default."""
    r = Rulings()
    assert (
        AdvantageMode.FACE,
        2,
        InfluencePer.EVENT,
        True,
        5,
        XpAtMax.KEEP,
        CritFace.NATURAL,
        GroupLevel.ROLLER,
        AllIn.ORDINARY,
        SecondKnockout.OUT,
        XpWaysScope.OWN,
        XpMode.STANDARD,
        1,
        7,
    ) == (
        r.advantage,
        r.stakes_wounds,
        r.influence_per,
        r.resist_refund,
        r.fast_xp_cap,
        r.xp_at_max,
        r.crit_face,
        r.group_level,
        r.all_in,
        r.second_knockout,
        r.xp_ways_scope,
        r.xp_mode,
        r.start_level,
        r.npc_duel_bonus,
    )


def test_unknown_key_is_refused_listing_the_known_ones():
    """A misspelt ruling is refused, and the message lists every ruling there is."""
    with pytest.raises(ConfigError) as caught:
        Rulings.from_mapping({"advantge": "face"})
    message = caught.value.message
    assert "'advantge' is not a ruling" in message
    for name in ("advantage", "stakes_wounds", "all_in", "xp_ways_scope", "second_knockout"):
        assert name in message


def test_every_problem_is_reported_at_once():
    """Three bad entries give one error naming all three."""
    with pytest.raises(ConfigError) as caught:
        Rulings.from_mapping({"stakes_wounds": 3, "resist_refund": "yes", "bogus": 1})
    assert "3 problems" in caught.value.message


def test_values_are_converted():
    """Config strings become the enum members; "none" lifts the fast XP cap."""
    r = Rulings.from_mapping(
        {"advantage": "extra_dice", "fast_xp_cap": "none", "stakes_wounds": 0, "xp_mode": "fast"}
    )
    assert (AdvantageMode.EXTRA_DICE, UNCAPPED, 0, XpMode.FAST) == (
        r.advantage,
        r.fast_xp_cap,
        r.stakes_wounds,
        r.xp_mode,
    )


def test_a_boolean_is_not_a_number():
    """TOML true is not accepted where a number is wanted."""
    with pytest.raises(ConfigError, match="stakes_wounds"):
        Rulings.from_mapping({"stakes_wounds": True})


def test_round_trip():
    """to_mapping and from_mapping are inverses for non-default rulings too."""
    r = Rulings(crit_face="modified", fast_xp_cap=UNCAPPED, group_level="highest")
    assert r == Rulings.from_mapping(r.to_mapping())
