"""Reddit things as plain values: the one place Reddit's JSON becomes a :class:`Post`.

A GM saves a thread by appending ``.json`` to its address; Reddit answers with
``[submission listing, comment listing]`` whose comments nest under ``replies``.
:func:`posts_from_thread` flattens that into posts in the order they were written,
which is the order the referee resolves them in. The live worker builds the same
``Post`` values from PRAW objects, so everything behind this module is unaware of
Reddit.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

DELETED_AUTHOR = "[deleted]"


@dataclass(frozen=True)
class Post:
    """A submission or comment, reduced to what the referee reads."""

    fullname: str  # t3_… for a submission, t1_… for a comment
    thread: str  # fullname of the submission the post belongs to
    author: str
    body: str  # Markdown, with Reddit's &amp; &lt; &gt; already unescaped
    created: float  # seconds since the epoch (created_utc)
    edited: float | None = None  # when Reddit says it was last edited
    parent: str | None = None  # fullname of the post this one answers
    subreddit: str = ""
    locked: bool = False
    archived: bool = False

    @property
    def id36(self) -> str:
        """The base-36 id without its kind prefix (``t1_abc`` → ``abc``)."""
        return self.fullname.partition("_")[2]


@dataclass(frozen=True)
class Thread:
    """A saved thread: its posts in reading order and what Reddit left out."""

    submission: Post
    posts: tuple[Post, ...]  # the submission first, then comments in the order written
    collapsed: int  # comments Reddit folded into "load more" and the file does not hold


def _edited(value: Any) -> float | None:
    # Reddit sends `false` for never edited and a timestamp otherwise.
    if value is False or value is None:
        return None
    return float(value)


def _body(data: Mapping[str, Any], key: str) -> str:
    return html.unescape(str(data.get(key) or ""))


def post_from_json(kind: str, data: Mapping[str, Any], thread: str = "") -> Post:
    """One ``t1`` or ``t3`` listing child as a :class:`Post`.

    >>> post_from_json("t1", {"name": "t1_a", "link_id": "t3_s", "author": "kara",
    ...     "body": "[[shoot Kara -&gt; Trooper]]", "created_utc": 5, "edited": False,
    ...     "parent_id": "t3_s"}).body
    '[[shoot Kara -> Trooper]]'
    """
    if kind == "t3":
        fullname = str(data["name"])
        return Post(
            fullname=fullname,
            thread=fullname,
            author=str(data.get("author") or DELETED_AUTHOR),
            body=_body(data, "selftext"),
            created=float(data.get("created_utc") or 0),
            edited=_edited(data.get("edited")),
            subreddit=str(data.get("subreddit") or ""),
            locked=bool(data.get("locked")),
            archived=bool(data.get("archived")),
        )
    return Post(
        fullname=str(data["name"]),
        thread=str(data.get("link_id") or thread),
        author=str(data.get("author") or DELETED_AUTHOR),
        body=_body(data, "body"),
        created=float(data.get("created_utc") or 0),
        edited=_edited(data.get("edited")),
        parent=data.get("parent_id"),
        subreddit=str(data.get("subreddit") or ""),
        locked=bool(data.get("locked")),
        archived=bool(data.get("archived")),
    )


def _walk(children: list[Any], thread: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for child in children:
        kind, data = child.get("kind"), child.get("data") or {}
        yield kind, data
        replies = data.get("replies")
        if kind == "t1" and isinstance(replies, Mapping):
            yield from _walk(replies.get("data", {}).get("children", []), thread)


def reading_order(post: Post) -> tuple[float, int, int]:
    """Sort key: time written, the submission before its comments, then Reddit's id order."""
    kind_rank = 0 if post.fullname.startswith("t3_") else 1
    return (post.created, kind_rank, int(post.id36, 36) if post.id36.isalnum() else 0)


def posts_from_thread(document: Any) -> Thread:
    """Flatten a saved thread (``[submission listing, comment listing]``) into posts.

    Raises :class:`ConfigError` when the document is not a saved Reddit thread.
    """
    try:
        submission_children = document[0]["data"]["children"]
        comment_children = document[1]["data"]["children"]
        kind = submission_children[0]["kind"]
        submission_data = submission_children[0]["data"]
    except (KeyError, IndexError, TypeError) as error:
        raise ConfigError(
            "This file is not a saved Reddit thread. Save one by opening the thread's "
            "address with .json appended (for example "
            "https://www.reddit.com/r/SUB/comments/ID/.json) and saving the page."
        ) from error
    if kind != "t3":
        raise ConfigError(f"The first listing holds a {kind!r}, not a submission (t3).")
    submission = post_from_json("t3", submission_data)
    comments: list[Post] = []
    collapsed = 0
    for child_kind, data in _walk(comment_children, submission.fullname):
        if child_kind == "t1":
            comments.append(post_from_json("t1", data, submission.fullname))
        elif child_kind == "more":
            collapsed += int(data.get("count") or len(data.get("children") or ()))
    comments.sort(key=reading_order)
    return Thread(submission, (submission, *comments), collapsed)
