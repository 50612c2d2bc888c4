"""Tests for referee.testing.conformance: the kit finds what a careless system gets wrong."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.resolve import dispatch as resolve
from referee.system import load_system
from referee.testing.conformance import Conformance, _mutated_examples


def test_a_look_alike_digit_behind_a_good_name_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[[heal Kara ³]] crashing is found by putting hostile words in the example's slots."""
    stepped = load_system("stepped")
    heal = next(verb for verb in stepped.verbs if verb.name == "heal")

    def careless(rest: str, context: Any) -> Any:
        words = rest.split()
        if len(words) > 1 and words[-1].isdigit():  # "³".isdigit() is True...
            int(words[-1])  # ...and int("³") raises
        return heal.parse(rest, context)

    verbs = tuple(replace(v, parse=careless) if v is heal else v for v in stepped.verbs)
    monkeypatch.setattr(stepped, "verbs", verbs)
    monkeypatch.setattr(resolve, "_TABLES", {})  # the verb table is built anew from them
    report = Conformance("stepped")
    _mutated_examples(stepped, tmp_path, report, seed=1)
    reported = {problem.split(" raised ")[0] for problem in report.problems}
    assert {"verb heal: [[heal Kara ³]]", "verb heal: [[heal Kara ①]]"} == reported


def test_a_careful_system_has_nothing_reported(tmp_path: Path) -> None:
    report = Conformance("stepped")
    _mutated_examples(load_system("stepped"), tmp_path, report, seed=1)
    assert [] == report.problems
