"""Shared fixtures: campaigns on disk and live worker harnesses, always closed after the test."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.campaign import Campaign
from referee.testing import make_campaign
from referee.testing.worker import Live


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
