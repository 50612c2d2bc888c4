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
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from referee.base.errors import ConfigError

log = logging.getLogger(__name__)

DELETED_AUTHOR = "[deleted]"
_ID36 = re.compile("[0-9a-z]{1,13}")
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    gone: str = ""  # "deleted" by its author or "removed" by a moderator; "" while it stands
    subject: str = ""  # a private message's subject ("" for a submission or comment)
    title: str = ""  # its thread's title, when the listing read says it ("" otherwise)

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


def safe_text(value: object) -> str:
    """``value`` as text that UTF-8 can encode: each lone surrogate becomes U+FFFD.

    JSON may carry ``"\\ud800"`` and Python keeps it as a lone surrogate, which no
    encoder, hash or store behind the adapters could take. Both adapters pass every
    string of a post through here, so nothing behind them meets one.

    >>> safe_text("[[roll d6 \\ud800]]")
    '[[roll d6 \ufffd]]'
    """
    text = value if type(value) is str else str(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _body(data: Mapping[str, Any], key: str) -> str:
    return html.unescape(safe_text(data.get(key) or ""))


GONE_BODIES = {"[deleted]": "deleted", "[removed]": "removed"}


def gone_state(data: Mapping[str, Any], text: str) -> str:
    """Whether Reddit's JSON of a post says it was deleted or removed, and which.

    A reader who is not a moderator sees ``[deleted]`` (its author deleted it) or
    ``[removed]`` (a moderator did) in place of the text, with the author
    ``[deleted]``; a moderator still sees the text, with ``removed``/``banned_by`` set.
    ``removed_by_category`` says which when Reddit gives it.

    >>> gone_state({"author": "[deleted]"}, "[deleted]"), gone_state({"author": "kara"}, "hi")
    ('deleted', '')
    >>> gone_state({"author": "kara", "removed": True, "banned_by": "gm"}, "[[roll d20]]")
    'removed'
    """
    category = data.get("removed_by_category")
    if category in ("deleted", "author"):
        return "deleted"
    if category or data.get("removed") or data.get("banned_by") not in (None, False, ""):
        return "removed"
    if data.get("author") in (None, DELETED_AUTHOR) and text.strip() in GONE_BODIES:
        return GONE_BODIES[text.strip()]
    return ""


def post_from_json(kind: str, data: Mapping[str, Any], thread: str = "") -> Post:
    """One ``t1`` or ``t3`` listing child as a :class:`Post`.

    >>> post_from_json("t1", {"name": "t1_a", "link_id": "t3_s", "author": "kara",
    ...     "body": "[[shoot Kara -&gt; Trooper]]", "created_utc": 5, "edited": False,
    ...     "parent_id": "t3_s"}).body
    '[[shoot Kara -> Trooper]]'
    """
    if kind == "t3":
        fullname = safe_text(data["name"])
        return Post(
            fullname=fullname,
            thread=fullname,
            author=safe_text(data.get("author") or DELETED_AUTHOR),
            body=_body(data, "selftext"),
            created=float(data.get("created_utc") or 0),
            edited=_edited(data.get("edited")),
            subreddit=safe_text(data.get("subreddit") or ""),
            locked=bool(data.get("locked")),
            archived=bool(data.get("archived")),
            gone=gone_state(data, str(data.get("selftext") or "")),
        )
    return Post(
        fullname=safe_text(data["name"]),
        thread=safe_text(data.get("link_id") or thread),
        author=safe_text(data.get("author") or DELETED_AUTHOR),
        body=_body(data, "body"),
        created=float(data.get("created_utc") or 0),
        edited=_edited(data.get("edited")),
        parent=safe_text(data["parent_id"]) if data.get("parent_id") else None,
        subreddit=safe_text(data.get("subreddit") or ""),
        locked=bool(data.get("locked")),
        archived=bool(data.get("archived")),
        gone=gone_state(data, str(data.get("body") or "")),
    )


def _walk(children: list[Any], thread: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for child in children if isinstance(children, list) else ():
        if not isinstance(child, Mapping) or not isinstance(child.get("data") or {}, Mapping):
            log.warning("event=post_unreadable reason='not a listing child': skipped")
            continue
        kind, data = str(child.get("kind")), child.get("data") or {}
        yield kind, data
        replies = data.get("replies")
        if kind == "t1" and isinstance(replies, Mapping):
            listing = replies.get("data")
            yield from _walk(
                listing.get("children", []) if isinstance(listing, Mapping) else [], thread
            )


def post_link(post: Post) -> str:
    """Where a person can read ``post`` on Reddit (a private message: its inbox page).

    >>> post_link(Post("t1_c5", "t3_s9", "kara", "", 0.0))
    'https://www.reddit.com/comments/s9/_/c5/'
    """
    thread = post.thread.partition("_")[2]
    if post.fullname.startswith("t3_"):
        return f"https://www.reddit.com/comments/{post.id36}/"
    if post.fullname.startswith("t1_") and post.thread.startswith("t3_"):
        return f"https://www.reddit.com/comments/{thread}/_/{post.id36}/"
    if post.fullname.startswith("t4_"):
        return f"https://www.reddit.com/message/messages/{post.id36}"
    return post.fullname


def reading_order(post: Post) -> tuple[float, int, int]:
    """Sort key: time written, the submission before its comments, then Reddit's id order."""
    kind_rank = 0 if post.fullname.startswith("t3_") else 1
    id36 = post.id36
    return (post.created, kind_rank, int(id36, 36) if _ID36.fullmatch(id36) else 0)


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
    try:
        submission = post_from_json("t3", submission_data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ConfigError(f"The thread's submission cannot be read ({error!r}).") from error
    comments: list[Post] = []
    collapsed = 0
    for child_kind, data in _walk(comment_children, submission.fullname):
        try:
            if child_kind == "t1":
                comments.append(post_from_json("t1", data, submission.fullname))
            elif child_kind == "more":
                collapsed += int(data.get("count") or len(data.get("children") or ()))
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            # One malformed comment costs that comment, never the thread.
            log.warning("event=post_unreadable kind=%s reason=%r: skipped", child_kind, error)
    comments.sort(key=reading_order)
    return Thread(submission, (submission, *comments), collapsed)
