"""Edge rulings: RULES.md's defaults, every option read from a mapping, unknown keys refused."""

from __future__ import annotations

import pytest

from referee.base.errors import ConfigError
from referee.systems.edge.rulings import EdgeRaise, EdgeRulings, EdgeUse, Policy


def test_defaults_are_the_rules_rulings() -> None:
    """R-13 gm, R-39 policy, and the standing policy up."""
    assert EdgeRulings(EdgeRaise.GM, EdgeUse.POLICY, Policy.UP) == EdgeRulings()


def test_every_option_is_read_and_written_back() -> None:
    """Each key sets its ruling and to_mapping writes the same table."""
    mapping = {"edge_raise": "player", "edge_use": "ask", "default_policy": "hit"}
    assert mapping == EdgeRulings.from_mapping(mapping).to_mapping()


def test_unknown_keys_and_bad_values_are_all_reported() -> None:
    """A typo lists the known rulings; a bad value lists the allowed ones."""
    with pytest.raises(ConfigError) as caught:
        EdgeRulings.from_mapping({"edge_rise": "gm", "edge_use": "sometimes"})
    message = caught.value.message
    assert "the edge rulings are edge_raise, edge_use, default_policy" in message
    assert 'edge_use = \'sometimes\': allowed values are "policy", "ask".' in message


def test_rulings_built_from_plain_values_hold_enums() -> None:
    """Built directly from TOML values, the rulings hold enum members, as from_mapping's do."""
    assert EdgeUse.ASK is EdgeRulings(edge_use="ask").edge_use  # type: ignore[arg-type]
