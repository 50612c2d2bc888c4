"""Trikus rulings: RULES.md's defaults, and config.toml keys refused with what is known."""

from __future__ import annotations

import pytest

from referee.base.errors import ConfigError
from referee.systems.trikus.rulings import (
    CatastropheLine,
    Consent,
    DeadTie,
    LossOrder,
    RefreshTiming,
    Rulings,
    TogetherTie,
)


def test_defaults_are_rules_md_defaults() -> None:
    """Every ruling starts at the default RULES.md §3 documents."""
    rulings = Rulings()
    assert (DeadTie.GM, TogetherTie.PLAYER, LossOrder.ALLIES_FIRST) == (
        rulings.dead_tie,
        rulings.together_tie,
        rulings.loss_order,
    )
    assert (CatastropheLine.USED, 2, RefreshTiming.AFTER_TEST, Consent.ASK) == (
        rulings.catastrophe_line,
        rulings.catastrophe_return,
        rulings.refresh_timing,
        rulings.negotiation_consent,
    )
    assert (1, 1, 3) == (
        rulings.equipment_modifier,
        rulings.negotiations_per_test,
        rulings.combat_difficulty,
    )


def test_unknown_key_is_refused_listing_the_known_ones() -> None:
    """A misspelt ruling is refused, and the message lists every ruling there is."""
    with pytest.raises(ConfigError) as refusal:
        Rulings.from_mapping({"dead_ties": "gm"})
    message = refusal.value.message
    assert "'dead_ties' is not a ruling; the trikus rulings are" in message
    for known in ("dead_tie", "together_tie", "negotiation_consent", "gm_blind_dark"):
        assert known in message


def test_every_problem_is_reported_at_once() -> None:
    """A bad value and an unknown key are both named, with what is allowed."""
    with pytest.raises(ConfigError) as refusal:
        Rulings.from_mapping({"catastrophe_return": 0, "negotiation_consent": "maybe", "x": 1})
    message = refusal.value.message
    assert "3 problems" in message
    assert 'allowed values are "ask", "always", "never"' in message
    assert "catastrophe_return = 0: allowed values are whole numbers from 1 to 10" in message


def test_round_trip_through_config() -> None:
    """Rulings written as config.toml reads them back unchanged."""
    chosen = Rulings.from_mapping({"loss_order": "owner", "gm_blind_dark": True})
    assert chosen == Rulings.from_mapping(chosen.to_mapping())
    assert LossOrder.OWNER == chosen.loss_order
