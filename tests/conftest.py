"""Shared fixtures: campaigns on disk and live worker harnesses, always closed after the test."""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from referee.pipeline.campaign import Campaign
from referee.testing import make_campaign
from referee.testing.worker import Live

# `pytest --hypothesis-profile long` runs the hostile-input properties for 100,000
# examples each (tests that pin max_examples keep their own count); CI uses the default.
settings.register_profile(
    "long",
    # REFEREE_LONG_EXAMPLES splits a long run over processes (each with its own seed).
    max_examples=int(os.environ.get("REFEREE_LONG_EXAMPLES", "100000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _last_flushed(output: str) -> int:
    """The N of the last whole "flushed N" line a killed child wrote (0 if none).

    The piece after the last newline is a report the kill cut short: it never counts.
    """
    lines = output.split("\n")[:-1]
    return max((int(line.split()[1]) for line in lines), default=0)


@pytest.fixture
def last_flushed() -> Callable[[str], int]:
    """Parse a SIGKILLed store child's stdout: the last flush it reported in full."""
    return _last_flushed


@pytest.fixture
def open_campaign(tmp_path: Path) -> Iterator:
    """Open throw-away campaigns (in tmp_path unless a folder is given); close them all after."""
    opened: list[Campaign] = []

    def factory(sheets=(), folder: Path | None = None, **kwargs) -> Campaign:
        campaign = make_campaign(folder or tmp_path, sheets, **kwargs)
        opened.append(campaign)
        return campaign

    yield factory
    for campaign in opened:
        campaign.close()


@pytest.fixture
def live(server, tmp_path: Path) -> Iterator[Any]:
    """Make Live worker harnesses on the test module's ``server``; close them after the test."""
    made: list[Live] = []

    def factory(reddit: str = "", **options: Any) -> Live:
        harness = Live(server, tmp_path / f"campaign{len(made)}", reddit, **options)
        made.append(harness)
        return harness

    yield factory
    for harness in made:
        harness.close()
