"""Tests for referee.testing.random_play: the kit's random play finds a state outside the
rules, says how it got there, and lets a correct system through."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from referee.system import load_system
from referee.testing import random_play
from referee.testing.random_play import play_at_random


def _harm_two(tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
    """A stand-in invariant: no character's harm counter may be 2."""
    return [
        f"{record['name']}'s harm is 2"
        for record in tables["characters"].values()
        if (record["sheet"].get("counters") or {}).get("harm") == 2
    ]


def test_a_broken_invariant_is_reported_with_the_steps_that_led_to_it(tmp_path: Path) -> None:
    """edge's [[set Kara harm 2]] breaks the stand-in invariant: the play stops there and
    names the step, so it can be replayed."""
    problems = play_at_random(load_system("edge"), tmp_path, steps=300, seed=1, check=_harm_two)
    assert 1 == len(problems)
    assert "harm is 2, after step " in problems[0]
    assert "harm 2]])" in problems[0]


def test_a_restart_is_a_step_and_the_state_survives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The play closes and reopens the store: it does so, and the characters are still
    there after it."""
    reopened: list[int] = []
    seen: list[int] = []
    reopen = random_play._reopen

    def counted(campaign: Any, folder: Path) -> Any:
        reopened.append(1)
        return reopen(campaign, folder)

    def count(tables: Mapping[str, Mapping[str, Any]], rules: Any) -> list[str]:
        seen.append(len(tables["characters"]))
        return []

    monkeypatch.setattr(random_play, "_reopen", counted)
    assert [] == play_at_random(load_system("pool"), tmp_path, steps=60, seed=3, check=count)
    assert (True, 3) == (len(reopened) > 0, min(seen))


@pytest.mark.parametrize("system", ["stepped", "edge", "pool", "trikus", "hits"])
def test_each_system_keeps_its_invariants_on_another_seed(tmp_path: Path, system: str) -> None:
    """Beyond the kit's own seed: 150 more steps of each system break no invariant."""
    assert [] == play_at_random(load_system(system), tmp_path, steps=150, seed=7)
