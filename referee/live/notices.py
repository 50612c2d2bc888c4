"""Finding the bot's notices on Reddit: was this reminder sent before the crash?

A notice (a reminder, an expiry line, a GM's message, a catch-up) answers no post of its
own, so it cannot be found the way a reply is (by its parent). Each ends with its mark
(:func:`referee.render.notices.notice_mark`, a hash of its key); :func:`find_sent` looks
for the marks among the bot's newest comments (one request) and its sent private
messages (a page or a few), as :meth:`~referee.live.reddit.RedditForum.find_replies`
does for replies. Errors are :class:`~referee.live.reddit.ForumError`, as everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from referee.live.reddit import SENT_PAGES, RedditForum, classify


def find_sent(forum: RedditForum, marks: Mapping[str, tuple[str, str]]) -> set[str]:
    """The keys of ``marks`` (key -> (channel, mark)) whose notice the bot has sent.

    A "thread" notice is looked for among the bot's newest comments, a "message" among
    its sent messages (newest pages first, ``SENT_PAGES`` at most).
    """
    found: set[str] = set()
    comments = {key: mark for key, (channel, mark) in marks.items() if channel == "thread"}
    messages = {key: mark for key, (channel, mark) in marks.items() if channel != "thread"}
    if comments:
        path = f"user/{forum.username}/comments"
        listing = _get(forum, path, {"limit": forum.page_size, "sort": "new"})
        found |= _marked(listing.children, comments)
    after: str | None = None
    for _ in range(SENT_PAGES if messages else 0):
        params: dict[str, Any] = {"limit": forum.page_size}
        if after:
            params["after"] = after
        listing = _get(forum, "message/sent", params)
        found |= _marked(listing.children, messages)
        after = listing.after
        if set(messages) <= found or after is None:
            break
    return found


def _marked(things: Any, marks: Mapping[str, str]) -> set[str]:
    bodies = [str(vars(thing).get("body") or "") for thing in things]
    return {key for key, mark in marks.items() if any(mark in body for body in bodies)}


def _get(forum: RedditForum, path: str, params: dict[str, Any]) -> Any:
    call: Callable[..., Any] = forum.reddit.get
    try:
        return call(path, params=params)
    except Exception as exc:
        error = classify(exc, write=False)
        if error is None:
            raise
        raise error from exc
