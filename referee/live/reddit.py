"""The Reddit adapter: PRAW in, plain :class:`~referee.base.posts.Post` values and errors out.

Everything the live worker asks of Reddit passes through :class:`RedditForum`, so the
worker sees a small :class:`Forum` protocol and never a PRAW object:

    connect(config)            a praw.Reddit from praw.ini / praw_* variables + config.toml
    open_forum(config)         connect, and a RedditForum on it that meters its requests
    post_from_praw(thing)      the one place a PRAW Submission, Comment or Message
                               becomes a Post
    RedditForum                listings, threads, reply, edit, find the bot's replies;
                               moderators, the unread inbox, wiki edits
    classify(exc, write=...)   a pure function: PRAW/prawcore exception → ForumError
    Usage                      requests sent, and Reddit's own count of them (x-ratelimit-*)

Errors of this module are operator errors (see :mod:`referee.base.errors`)::

    OperatorError
    └── ForumError            Reddit refused or did not answer; ``.failure`` says what next
                              (a :class:`Failure`), ``.retry_after`` how long Reddit asked

Writes are guarded. prawcore retries any request after a dropped connection, a read
timeout, a 500 or a 503; for a POST that creates a comment this posts it twice when
only the response was lost. :class:`GuardedRequestor` turns those outcomes of a
creating POST into :class:`UncertainWrite`, which prawcore does not retry, and
:func:`classify` reports them as :attr:`Failure.UNCERTAIN`: the caller must look for
the bot's reply before posting again.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

import praw
import prawcore
import requests
from praw.exceptions import RedditAPIException
from praw.models import MoreComments

from referee.base.errors import ConfigError, OperatorError
from referee.base.posts import DELETED_AUTHOR, Post, gone_state, safe_text
from referee.pipeline.campaign import RedditConfig

# Endpoints whose POST creates something; a lost response there must not be retried blindly.
CREATING_PATHS = ("/api/comment", "/api/submit", "/api/compose")
# Reddit's largest listing page, and how deep its listings reach (about 1000 items).
PAGE_SIZE = 100
INFO_LIMIT = 100  # fullnames api/info takes in one request
LISTING_REACH = 1000
# The most comments one thread request returns.
THREAD_LIMIT = 500
# Reply errors after which the reply can never be posted; the roll stays in the ledger.
UNDELIVERABLE_ERRORS = frozenset(
    {"THREAD_LOCKED", "TOO_OLD", "DELETED_COMMENT", "DELETED_LINK", "THREAD_ARCHIVED"}
)
# How many pages of the bot's sent messages a look for a lost private reply reads.
SENT_PAGES = 3
# When a RATELIMIT message names no time, wait this long.
DEFAULT_RATELIMIT_SECONDS = 600.0
_WAIT = re.compile(r"(\d+)\s*(milliseconds?|seconds?|minutes?|hours?)", re.IGNORECASE)
_UNIT_SECONDS = {"millisecond": 0.001, "second": 1.0, "minute": 60.0, "hour": 3600.0}


class Failure(str, Enum):
    """What went wrong with a Reddit call, and so what the worker does next."""

    RATELIMITED = "ratelimited"  # RATELIMIT: nothing posted; retry after retry_after
    UNDELIVERABLE = "undeliverable"  # locked, archived, deleted: never retry
    REJECTED = "rejected"  # another API error (TOO_LONG, ...): this text will never post
    FORBIDDEN = "forbidden"  # 403: the bot is banned or the post removed; skip it
    NOT_FOUND = "not_found"  # 404: the thing is gone
    THROTTLED = "throttled"  # 429: back off (prawcore waits retry-after itself)
    SERVER = "server"  # 5xx left after prawcore's retries: back off
    NETWORK = "network"  # a read got no answer: keep running, try next cycle
    UNCERTAIN = "uncertain"  # a write got no answer: it may have landed; look first


class ForumError(OperatorError):
    """Reddit refused a call or did not answer it."""

    def __init__(self, failure: Failure, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.failure = failure
        self.retry_after = retry_after


class UncertainWrite(Exception):
    """A creating POST whose response was lost: the comment may or may not exist."""


class RequestMeter:
    """Counts the HTTP requests sent to Reddit; keeps the last ``x-ratelimit-reset``.

    PRAW 8's ``reddit.auth.limits`` gives Reddit's remaining and used counts but not
    when the window resets, so the requestor notes that header here.
    """

    def __init__(self) -> None:
        self.sent = 0
        self.reset_seconds: float | None = None  # the last answer's seconds to the reset

    def note(self, response: Any) -> None:
        """Take the rate-limit headers of an answer."""
        reset = getattr(response, "headers", {}).get("x-ratelimit-reset")
        if reset is not None:
            self.reset_seconds = _float_or_none(reset)


class GuardedRequestor(prawcore.Requestor):
    """A prawcore Requestor that applies its own timeout and never lets a lost write retry.

    PRAW 8 ignores its ``timeout`` setting (prawcore passes 16 s on every call), so this
    requestor applies the timeout it was made with. For a POST to a creating endpoint,
    a connection error, a timeout or a 5xx answer raises ``RequestException`` wrapping
    :class:`UncertainWrite`, which prawcore passes on instead of retrying. Every
    request, retries included, is counted on ``meter``.
    """

    def __init__(self, *args: Any, meter: RequestMeter | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.meter = meter or RequestMeter()

    def request(self, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
        method = str(args[0] if args else kwargs.get("method", "")).upper()
        url = str(args[1] if len(args) > 1 else kwargs.get("url", ""))
        creating = method == "POST" and url.rstrip("/").endswith(CREATING_PATHS)
        self.meter.sent += 1
        if not creating:
            response = super().request(*args, timeout=self.timeout, **kwargs)
            self.meter.note(response)
            return response
        kwargs["timeout"] = self.timeout
        try:
            response = self._http.request(*args, **kwargs)
        except requests.RequestException as exc:
            raise prawcore.RequestException(
                UncertainWrite(f"{method} {url}: {exc!r}"), args, kwargs
            ) from None
        self.meter.note(response)
        if response.status_code >= 500:
            raise prawcore.RequestException(
                UncertainWrite(f"{method} {url}: HTTP {response.status_code}"), args, kwargs
            )
        return response


def connect(
    config: RedditConfig, *, meter: RequestMeter | None = None, **settings: Any
) -> praw.Reddit:
    """A ``praw.Reddit`` logged in as the bot.

    Credentials come from PRAW's own places: the praw.ini section ``config.site``, or
    ``praw_client_id``, ``praw_client_secret``, ``praw_username`` and ``praw_password``
    environment variables (then the section may be missing). config.toml contributes
    only endpoints, user agent and timeout. ``settings`` override everything (tests).
    Every request is counted on ``meter``. Raises :class:`ConfigError` when credentials
    are missing.
    """
    options: dict[str, Any] = {
        "user_agent": config.user_agent,
        "check_for_updates": False,  # a bot has no business asking PyPI on every start
        "check_for_async": False,
        "ratelimit_seconds": 0,  # never sleep on RATELIMIT inside PRAW; the worker schedules
    }
    if config.oauth_url:
        options["oauth_url"] = config.oauth_url
    if config.reddit_url:
        options["reddit_url"] = config.reddit_url
    options.update(settings)
    session = options.pop("session", None)
    kwargs: dict[str, Any] = {
        "requestor_class": GuardedRequestor,
        "requestor_kwargs": {"session": session, "timeout": config.timeout, "meter": meter},
    }
    try:
        try:
            reddit = praw.Reddit(config.site, **kwargs, **options)
        except configparser.NoSectionError:  # no such praw.ini section: praw_* variables only
            reddit = praw.Reddit("DEFAULT", **kwargs, **options)
    except praw.exceptions.MissingRequiredAttributeException as exc:
        raise ConfigError(_credentials_help(config.site, str(exc))) from exc
    if not reddit.config.username or not reddit.config.password:
        raise ConfigError(_credentials_help(config.site, "username and password are missing."))
    return reddit


def open_forum(config: RedditConfig, page_size: int = PAGE_SIZE, **settings: Any) -> RedditForum:
    """A :class:`RedditForum` logged in as the bot (see :func:`connect`), metering requests."""
    meter = RequestMeter()
    return RedditForum(connect(config, meter=meter, **settings), page_size, meter=meter)


def _credentials_help(site: str, what: str) -> str:
    return (
        f"Reddit credentials are incomplete: {what.splitlines()[0]} Put client_id, "
        f"client_secret, username and password of a script app in the [{site}] section "
        f"of praw.ini, or in the environment as praw_client_id, praw_client_secret, "
        f"praw_username and praw_password. They never go in config.toml."
    )


def post_from_praw(thing: Any) -> Post:
    """A PRAW Submission, Comment or Message as a :class:`Post`, without fetching anything.

    prawcore asks for ``raw_json=1``, so ``body`` and ``selftext`` arrive unescaped and
    are taken as they are (unlike :func:`referee.base.posts.post_from_json`). A private
    message (``t4_``) belongs to the "thread" of its conversation's first message.
    """
    data = vars(thing)
    fullname = safe_text(data.get("name") or thing.fullname)
    author = data.get("author")
    subreddit = data.get("subreddit")
    edited = data.get("edited")
    parent = safe_text(data["parent_id"]) if data.get("parent_id") else None
    common: dict[str, Any] = {
        "author": safe_text(author) if author else DELETED_AUTHOR,
        "created": float(data.get("created_utc") or 0),
        "edited": float(edited) if edited not in (None, False) else None,
        "subreddit": safe_text(subreddit) if subreddit else "",
        "locked": bool(data.get("locked")),
        "archived": bool(data.get("archived")),
    }
    if fullname.startswith("t3_"):
        text = safe_text(data.get("selftext") or "")
        title = safe_text(data.get("title") or "")
        return Post(
            fullname, fullname, body=text, gone=gone_state(data, text), title=title, **common
        )
    if fullname.startswith("t4_"):
        conversation = safe_text(data.get("first_message_name") or fullname)
        common["subreddit"] = ""  # a message to the bot, not from a subreddit's modmail
        return Post(
            fullname,
            conversation,
            body=safe_text(data.get("body") or ""),
            parent=parent,
            subject=safe_text(data.get("subject") or ""),
            **common,
        )
    text = safe_text(data.get("body") or "")
    return Post(
        fullname,
        safe_text(data.get("link_id") or ""),
        body=text,
        parent=parent,
        gone=gone_state(data, text),
        title=safe_text(data.get("link_title") or ""),  # in a subreddit's comments listing
        **common,
    )


def ratelimit_seconds(message: str) -> float:
    """How long a RATELIMIT message asks to wait.

    >>> ratelimit_seconds("you are doing that too much. try again in 5 minutes.")
    300.0
    >>> ratelimit_seconds("try again in 1 second.")
    1.0
    """
    found = _WAIT.search(message)
    if not found:
        return DEFAULT_RATELIMIT_SECONDS
    unit = found.group(2).lower().rstrip("s")
    return int(found.group(1)) * _UNIT_SECONDS[unit]


def classify(exc: BaseException, *, write: bool) -> ForumError | None:
    """The :class:`ForumError` an exception from PRAW means, or None if it is not Reddit's.

    ``write`` says whether the call was a POST that creates something: then a lost
    answer is :attr:`Failure.UNCERTAIN`, not merely :attr:`Failure.NETWORK`.
    """
    if isinstance(exc, ForumError):
        return exc
    if isinstance(exc, RedditAPIException):
        types = [item.error_type for item in exc.items]
        messages = "; ".join(f"{item.error_type}: {item.message}" for item in exc.items)
        if "RATELIMIT" in types:
            item = exc.items[types.index("RATELIMIT")]
            wait = ratelimit_seconds(item.message or "")
            return ForumError(Failure.RATELIMITED, messages, wait)
        if UNDELIVERABLE_ERRORS.intersection(types):
            return ForumError(Failure.UNDELIVERABLE, messages)
        return ForumError(Failure.REJECTED, messages)
    if isinstance(exc, prawcore.TooManyRequests):
        retry = exc.retry_after
        return ForumError(
            Failure.THROTTLED, "Reddit answered 429 Too Many Requests", _float_or_none(retry)
        )
    if isinstance(exc, prawcore.Forbidden):
        return ForumError(Failure.FORBIDDEN, "Reddit answered 403: banned, or the post removed")
    if isinstance(exc, prawcore.NotFound):
        return ForumError(Failure.NOT_FOUND, "Reddit answered 404: the thing is gone")
    if isinstance(exc, prawcore.ServerError):
        failure = Failure.UNCERTAIN if write else Failure.SERVER
        return ForumError(failure, f"Reddit answered {exc.response.status_code}")
    if isinstance(exc, prawcore.RequestException):
        failure = Failure.UNCERTAIN if write else Failure.NETWORK
        return ForumError(failure, f"no answer from Reddit: {exc.original_exception!r}")
    if isinstance(exc, prawcore.ResponseException):
        return ForumError(Failure.REJECTED, f"Reddit answered {exc.response.status_code}")
    return None


def _float_or_none(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Usage:
    """The requests sent so far, and what Reddit's last answer said of its rate limit."""

    sent: int  # HTTP requests this forum sent (retries and logins included)
    remaining: float | None = None  # requests left in Reddit's window (None: not told yet)
    used: int | None = None  # requests Reddit counted in the window (other tools' too)
    reset_seconds: float | None = None  # seconds until the window resets


@dataclass(frozen=True)
class Page:
    """One page of a listing, newest first, and the anchor of the next (older) page."""

    posts: tuple[Post, ...]
    after: str | None


@dataclass(frozen=True)
class Unread:
    """The bot's unread inbox: private messages, and the rest (replies, mentions)."""

    messages: tuple[Post, ...]  # private messages to the bot, newest first
    others: tuple[str, ...]  # fullnames of comment replies and username mentions


class Forum(Protocol):
    """What the worker needs from Reddit; :class:`RedditForum` is the real one."""

    @property
    def username(self) -> str: ...

    def listing(self, kind: str, subreddits: Iterable[str], after: str | None = None) -> Page: ...

    def thread(self, submission: str) -> tuple[Post, ...]: ...

    def info(self, fullnames: Sequence[str]) -> tuple[Post, ...]: ...

    def reply(self, parent: str, text: str) -> str: ...

    def edit(self, reply: str, text: str) -> None: ...

    def find_replies(self, targets: Mapping[str, str]) -> dict[str, str]: ...

    def find_reply(self, parent: str, thread: str, mark: str) -> str | None: ...

    def moderators(self, subreddit: str) -> tuple[str, ...]: ...

    def unread(self) -> Unread: ...

    def mark_read(self, fullnames: Iterable[str]) -> None: ...

    def edit_wiki(self, subreddit: str, page: str, content: str, reason: str) -> None: ...

    def protect_wiki(self, subreddit: str, page: str) -> int: ...

    def message(self, to: str, subject: str, text: str) -> None: ...

    def usage(self) -> Usage: ...


class RedditForum:
    """The :class:`Forum` backed by a ``praw.Reddit``; every failure is a :class:`ForumError`."""

    def __init__(
        self,
        reddit: praw.Reddit,
        page_size: int = PAGE_SIZE,
        *,
        meter: RequestMeter | None = None,
    ) -> None:
        self.reddit = reddit
        self.page_size = page_size
        self.meter = meter or RequestMeter()  # counts nothing unless connect() was given it

    def usage(self) -> Usage:
        """Requests sent, and Reddit's count from PRAW's ``auth.limits``."""
        limits = self.reddit.auth.limits
        remaining, used = limits.get("remaining"), limits.get("used")
        return Usage(
            self.meter.sent,
            None if remaining is None else float(remaining),
            None if used is None else int(used),
            self.meter.reset_seconds,
        )

    @property
    def username(self) -> str:
        return str(self.reddit.config.username)

    def _call(self, write: bool, function: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            error = classify(exc, write=write)
            if error is None:
                raise
            raise error from exc

    def listing(self, kind: str, subreddits: Iterable[str], after: str | None = None) -> Page:
        """One page of ``r/a+b/comments`` (kind "comments") or ``r/a+b/new`` (kind "new")."""
        params: dict[str, Any] = {"limit": self.page_size}
        if after:
            params["after"] = after
        path = f"r/{'+'.join(subreddits)}/{kind}"
        listing = self._call(False, self.reddit.get, path, params=params)
        posts = tuple(post_from_praw(child) for child in listing.children)
        return Page(posts, listing.after)

    def info(self, fullnames: Sequence[str]) -> tuple[Post, ...]:
        """The posts as Reddit has them now, up to 100 in one request (``api/info``)."""
        params = {"id": ",".join(fullnames[:INFO_LIMIT])}
        listing = self._call(False, self.reddit.get, "api/info", params=params)
        return tuple(post_from_praw(child) for child in listing.children)

    def thread(self, submission: str) -> tuple[Post, ...]:
        """A thread's submission and all its comments (following "load more")."""

        def load() -> tuple[Post, ...]:
            thing = self.reddit.submission(submission.removeprefix("t3_"))
            thing.comment_sort = "new"
            thing.comment_limit = THREAD_LIMIT
            thing.comments.replace_more(limit=None)
            return (post_from_praw(thing), *map(post_from_praw, thing.comments.list()))

        result: tuple[Post, ...] = self._call(False, load)
        return result

    def reply(self, parent: str, text: str) -> str:
        """Post ``text`` under ``parent`` and return the new comment's fullname.

        A ``t4_`` parent is a private message: the reply is a private message too.
        """
        data = {"thing_id": parent, "text": text}
        things = self._call(True, self.reddit.post, "api/comment", data=data)
        comment = things[0] if isinstance(things, list) else things
        return str(comment.fullname)

    def edit(self, reply: str, text: str) -> None:
        """Replace the text of the bot's own comment ``reply``."""
        data = {"thing_id": reply, "text": text}
        self._call(False, self.reddit.post, "api/editusertext", data=data)

    def find_replies(self, targets: Mapping[str, str]) -> dict[str, str]:
        """The bot's existing replies to ``targets`` (post fullname → thread fullname).

        One request reads the bot's newest comments; only a target not found there
        while that page was full costs a look at the target's own replies. Private
        messages (``t4_``) are looked for in the bot's sent messages instead.
        """
        found = self._find_private_replies({t for t in targets if t.startswith("t4_")})
        wanted = {t for t in targets if not t.startswith("t4_")}
        if not wanted:
            return found
        listing = self._call(
            False,
            self.reddit.get,
            f"user/{self.username}/comments",
            params={"limit": self.page_size, "sort": "new"},
        )
        for comment in listing.children:
            parent = vars(comment).get("parent_id")
            if parent in wanted and parent not in found:
                found[parent] = str(comment.fullname)
        if len(listing.children) < self.page_size:
            return found  # the bot's whole history was on that page
        for target in sorted(wanted - set(found)):
            reply = self._reply_below(target, targets[target])
            if reply:
                found[target] = reply
        return found

    def find_reply(self, parent: str, thread: str, mark: str) -> str | None:
        """The bot's reply under ``parent`` whose text holds ``mark``, if there is one.

        For a reply that is not the bot's first under its parent (a GM's decision from
        the shell, under the application the bot answered before): the bot's newest
        comments first, then, if that page was full, the parent's own replies.
        """
        listing = self._call(
            False,
            self.reddit.get,
            f"user/{self.username}/comments",
            params={"limit": self.page_size, "sort": "new"},
        )
        for comment in listing.children:
            data = vars(comment)
            if data.get("parent_id") == parent and mark in str(data.get("body", "")):
                return str(comment.fullname)
        if len(listing.children) < self.page_size:
            return None
        return self._reply_below(parent, thread, mark)

    def _find_private_replies(self, wanted: set[str]) -> dict[str, str]:
        """The bot's sent messages answering ``wanted`` messages, newest pages first."""
        found: dict[str, str] = {}
        after: str | None = None
        for _ in range(SENT_PAGES if wanted else 0):
            params: dict[str, Any] = {"limit": self.page_size}
            if after:
                params["after"] = after
            listing = self._call(False, self.reddit.get, "message/sent", params=params)
            for message in listing.children:
                parent = vars(message).get("parent_id")
                if parent in wanted and parent not in found:
                    found[parent] = str(message.fullname)
            after = listing.after
            if wanted <= set(found) or after is None:
                break
        return found

    def moderators(self, subreddit: str) -> tuple[str, ...]:
        """The usernames of ``subreddit``'s moderators (one request)."""
        redditors = self._call(False, lambda: self.reddit.subreddit(subreddit).moderator())
        return tuple(str(redditor) for redditor in redditors)

    def unread(self) -> Unread:
        """One page of the bot's unread inbox, left unread (see :meth:`mark_read`)."""
        listing = self._call(
            False, self.reddit.get, "message/unread", params={"limit": self.page_size}
        )
        messages: list[Post] = []
        others: list[str] = []
        for thing in listing.children:
            data = vars(thing)
            fullname = str(data.get("name") or thing.fullname)
            private = fullname.startswith("t4_") and not data.get("was_comment")
            if private and data.get("author") and not data.get("subreddit"):
                messages.append(post_from_praw(thing))
            else:
                others.append(fullname)
        return Unread(tuple(messages), tuple(others))

    def mark_read(self, fullnames: Iterable[str]) -> None:
        """Mark inbox items read (one request)."""
        ids = ",".join(fullnames)
        if ids:
            self._call(False, self.reddit.post, "api/read_message", data={"id": ids})

    def message(self, to: str, subject: str, text: str) -> None:
        """Send u/``to`` a private message (one request)."""
        data = {"to": to, "subject": subject, "text": text}
        self._call(False, self.reddit.post, "api/compose", data=data)

    def edit_wiki(self, subreddit: str, page: str, content: str, reason: str) -> None:
        """Replace the wiki page ``page`` of ``subreddit`` (creating it if need be)."""

        def edit() -> None:
            self.reddit.subreddit(subreddit).wiki[page].edit(content=content, reason=reason)

        self._call(False, edit)

    def protect_wiki(self, subreddit: str, page: str) -> int:
        """Make ``page`` readable and editable by moderators only, unlisted; its permlevel after.

        PRAW's wiki settings (``WikiPageModeration.update``): permlevel 2 is "only mods
        may edit and view". Reddit refuses it (403) unless the bot moderates the subreddit.
        """

        def update() -> int:
            wiki = self.reddit.subreddit(subreddit).wiki[page]
            settings = wiki.mod.update(listed=False, permlevel=2)
            return int(settings.get("permlevel", -1))

        result: int = self._call(False, update)
        return result

    def _reply_below(self, target: str, thread: str, mark: str = "") -> str | None:
        link = thread.removeprefix("t3_")
        if target.startswith("t3_"):
            path = f"comments/{link}"
            params: dict[str, Any] = {"limit": THREAD_LIMIT, "sort": "new", "depth": 1}
        else:
            path = f"comments/{link}/_/{target.removeprefix('t1_')}"
            params = {"context": 0, "limit": THREAD_LIMIT, "depth": 2}
        answer = self._call(False, self.reddit.get, path, params=params)
        comments = list(answer[1].children)
        if target.startswith("t1_"):
            comments = [r for c in comments for r in getattr(c, "replies", [])]
        for comment in comments:
            if isinstance(comment, MoreComments):
                continue
            data = vars(comment)
            author = data.get("author")
            if (
                data.get("parent_id") == target
                and str(author).lower() == self.username.lower()
                and mark in str(data.get("body", ""))
            ):
                return str(comment.fullname)
        return None
