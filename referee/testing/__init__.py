"""Test helpers that ship with referee: a throw-away campaign and a local Reddit.

Like ``structlog.testing``, these live in the package so the project's tests and a
campaign's own checks use the same real parts: a real TinyDB store on disk, the real
templates, and (in :mod:`referee.testing.reddit_server`) a Reddit-compatible HTTP
server on 127.0.0.1 that real PRAW talks to.

May import: anything of referee; it is the top layer, and nothing of referee imports it.
"""

from referee.testing.campaign import make_campaign, sheet
from referee.testing.resolving import parse, resolve_tag, tag_context

__all__ = ["make_campaign", "parse", "resolve_tag", "sheet", "tag_context"]
