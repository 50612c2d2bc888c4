"""Posts the referee could not handle: recorded once, listed for the GM, retried on demand.

When refereeing a post raises something no rule foresaw (a bug, a value the store
cannot write, a broken template), the pipeline undoes that post's changes and records
a :class:`FailedPost` here, in the store's ``failures`` table. The post is answered
once with :data:`FAILURE_REPLY` and is never refereed again by itself, so a restart
does not meet the same crash. ``referee failures`` lists them; ``referee failures
--retry POST`` runs one through the pipeline again after a fix.

A bug inside one tag costs that tag alone: the post's other tags stand, the tag is
answered with the pipeline's internal-error problem, and :meth:`FailureLog.record_tag`
keeps it here too (under ``POST#INDEX``), so the GM who was told sees it in the same
list. Such a tag is not retried in place, since its post's other rolls are already
public: once fixed, the player writes the tag again in a new reply.

Everything a record holds is made writable first (the error text may quote the very
value the store refused), so recording a failure cannot fail in its turn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from referee.base.posts import Post, safe_text

if TYPE_CHECKING:
    from referee.read.tags import Tag
from referee.store.store import Store

FAILURES_TABLE = "failures"
MAX_ERROR_CHARS = 2000  # of the error's text kept in the record

FAILURE_REPLY = (
    "**The referee could not handle this post**, so nothing in it was rolled or recorded. "
    "The GM has been told (reference {post}).\n\n"
    "If the post holds something unusual (a huge number, odd or invisible characters, a "
    "very long name), write your tags again in a new reply without it. Otherwise there is "
    "nothing to do: the GM will have it refereed once the problem is fixed.\n"
)


@dataclass(frozen=True)
class FailedPost:
    """One post that failed: what it said, when, and the error, for the GM."""

    post: str  # the post's fullname
    thread: str
    author: str
    body: str  # the post as read, so a retry needs nothing from Reddit
    body_sha256: str  # a later edit of the post is a new version, not this failure
    error: str  # the exception's type and message, for the operator
    failed_at: str  # ISO time of the failure
    created: float = 0.0
    parent: str | None = None
    subreddit: str = ""
    private: bool = False  # a GM's secret roll by private message
    tag: int | None = None  # a failure of this one tag of the post (its other tags stand)
    tag_text: str = ""

    def as_post(self) -> Post:
        """The post as the pipeline first read it."""
        return Post(
            self.post,
            self.thread,
            self.author,
            self.body,
            self.created,
            parent=self.parent,
            subreddit=self.subreddit,
        )


def body_digest(body: str) -> str:
    """The sha256 of a post's text, as the failure and post records keep it."""
    return hashlib.sha256(safe_text(body).encode()).hexdigest()


def describe(error: BaseException) -> str:
    """An exception as one safe line: its type and message, capped.

    >>> describe(TypeError("Integer exceeds 64-bit range"))
    'TypeError: Integer exceeds 64-bit range'
    """
    text = safe_text(f"{type(error).__name__}: {error}")
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


class FailureLog:
    """The store's record of failed posts, keyed by the post's fullname."""

    def __init__(self, store: Store) -> None:
        self._table = store.table(FAILURES_TABLE)

    def record(self, post: Post, error: BaseException, at: str, *, private: bool = False) -> None:
        """Keep (or replace) the failure of ``post``."""
        failure = FailedPost(
            post=safe_text(post.fullname),
            thread=safe_text(post.thread),
            author=safe_text(post.author),
            body=safe_text(post.body),
            body_sha256=body_digest(post.body),
            error=describe(error),
            failed_at=at,
            created=post.created,
            parent=safe_text(post.parent) if post.parent else None,
            subreddit=safe_text(post.subreddit),
            private=private,
        )
        self._table.put(failure.post, asdict(failure))

    def record_tag(
        self, post: Post, tag: Tag, error: str, at: str, *, private: bool = False
    ) -> None:
        """Keep the failure of one tag of ``post``; ``error`` as :func:`describe` wrote it."""
        failure = FailedPost(
            post=safe_text(post.fullname),
            thread=safe_text(post.thread),
            author=safe_text(post.author),
            body=safe_text(post.body),
            body_sha256=body_digest(post.body),
            error=safe_text(error),
            failed_at=at,
            created=post.created,
            parent=safe_text(post.parent) if post.parent else None,
            subreddit=safe_text(post.subreddit),
            private=private,
            tag=tag.index,
            tag_text=safe_text(tag.text),
        )
        self._table.put(tag_failure_key(failure.post, tag.index), asdict(failure))

    def get(self, fullname: str) -> FailedPost | None:
        """The failure of post ``fullname``, if it failed."""
        record = self._table.get(fullname)
        return None if record is None else _failed_post(record)

    def __iter__(self) -> Iterator[FailedPost]:
        """Every failure, oldest first."""
        return (_failed_post(record) for record in self._table.values())

    def __len__(self) -> int:
        return len(self._table)

    def __contains__(self, fullname: object) -> bool:
        return fullname in self._table

    def clear(self, fullname: str) -> bool:
        """Forget the failure of ``fullname``; return whether there was one."""
        return self._table.delete(fullname)


def tag_failure_key(post: str, index: int) -> str:
    """Where the failure of tag ``index`` of ``post`` is kept: ``t1_abc#2`` (tags from 1).

    >>> tag_failure_key("t1_abc", 1)
    't1_abc#2'
    """
    return f"{post}#{index + 1}"


def _failed_post(record: dict[str, Any]) -> FailedPost:
    known = set(FailedPost.__dataclass_fields__)
    return FailedPost(**{key: value for key, value in record.items() if key in known})
