"""Shared fixtures: campaigns on disk that are always closed after the test."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.campaign import Campaign
from referee.testing import make_campaign


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
