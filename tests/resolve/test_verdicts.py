"""Tests for referee.resolve.verdicts (and the Resolution a verb returns): frozen values made
quickly."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from referee.read.tags import Tag
from referee.resolve.verdicts import Verdict
from referee.system import Resolution


@pytest.mark.parametrize("value_class", [Verdict, Resolution])
def test_the_hand_written_init_takes_every_field_in_order_with_its_default(value_class):
    """Verdict and Resolution build as their dataclass fields say: names, order, defaults."""
    fields = [(f.name, f.default) for f in dataclasses.fields(value_class)]
    parameters = list(inspect.signature(value_class.__init__).parameters.values())[1:]
    assert fields == [
        (p.name, dataclasses.MISSING if p.default is p.empty else p.default) for p in parameters
    ]


def test_a_verdict_is_a_frozen_value():
    """A verdict compares and hashes by its fields, replace() works, and no field can be set."""
    verdict = Verdict(Tag(0, "roll 1d6"), "a-1", "dice", 4, writes=())
    same = Verdict(Tag(0, "roll 1d6"), "a-1", "dice", result=4)

    assert (same, hash(same)) == (verdict, hash(verdict))
    assert "b-1" == dataclasses.replace(verdict, roll_id="b-1").roll_id
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.kind = "problem"  # type: ignore[misc]
