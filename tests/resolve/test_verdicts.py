"""Tests for referee.resolve.verdicts: a verdict is a frozen value."""

from __future__ import annotations

import dataclasses

import pytest

from referee.read.tags import Tag
from referee.resolve.verdicts import Verdict


def test_a_verdict_is_a_frozen_value():
    """A verdict compares and hashes by its fields, replace() works, and no field can be set."""
    verdict = Verdict(Tag(0, "roll 1d6"), "a-1", "dice", 4, writes=())
    same = Verdict(Tag(0, "roll 1d6"), "a-1", "dice", result=4)

    assert (same, hash(same)) == (verdict, hash(verdict))
    assert "b-1" == dataclasses.replace(verdict, roll_id="b-1").roll_id
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.kind = "problem"  # type: ignore[misc]
