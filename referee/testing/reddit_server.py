"""A local Reddit-compatible HTTP server, so tests drive real PRAW without a network.

`FakeReddit` listens on 127.0.0.1 on an ephemeral port and keeps a small Reddit in
memory: accounts, subreddits with moderators, self posts, comment trees, private
messages, an inbox and wiki pages. It speaks the parts of Reddit's OAuth API a bot
uses, with the paths, parameters and JSON shapes of the real site, so a `praw.Reddit`
pointed at `FakeReddit.url` works unchanged. Tests seed it through plain methods
(`submit`, `comment`, `lock`, ...), read it back (`thing`, `replies_to`), make it
misbehave on purpose (`inject`) and count what the client asked for (`requests`,
`count`).

Time is a `FakeClock` that only the test moves, so nothing here sleeps. PRAW and
prawcore do sleep between retries; `client_sleeps` records those sleeps instead.

The supported endpoints (a trailing slash and a `.json` suffix are ignored)::

    POST /api/v1/access_token        password and client_credentials grants
    GET  /api/v1/me
    GET  /r/{sub}/about, /r/{sub}/about/moderators, /user/{name}/about
    GET  /r/{sub}/new, /r/{sub}/comments (also /r/{a}+{b}/...)
    GET  /comments/{id}[/{slug}[/{comment}]], /r/{sub}/comments/{id}/...
    POST /api/morechildren
    GET  /api/info?id=t1_a,t3_b
    GET  /user/{name}/comments
    POST /api/submit                 a self post (PRAW's ``Subreddit.submit``)
    POST /api/comment, /api/editusertext, /api/del, /api/remove
    POST /api/compose, /api/read_message, /api/unread_message, /api/read_all_messages
    GET  /message/{inbox,unread,messages,sent,mentions,comments,selfreply}
    GET  /r/{sub}/wiki/{page}
    POST /r/{sub}/api/wiki/edit
    GET, POST /r/{sub}/wiki/settings/{page}

Anything else answers 404 and lands in `FakeReddit.unhandled`.

Example (a test would use ``server.reddit()`` to get a PRAW client):

>>> with FakeReddit() as server:
...     _ = server.add_subreddit("dicegames", moderators=["gm"])
...     post = server.submit("dicegames", "gm", "Session 1", "Roll [[1d20]] & go")
...     reply = server.comment(post, server.bot, "You rolled 17.")
...     server.thing(reply)["parent_id"] == post, server.thing(post)["num_comments"]
(True, 1)
"""

from __future__ import annotations

import base64
import fnmatch
import functools
import html
import itertools
import json
import math
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from enum import Enum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

if TYPE_CHECKING:
    import praw
    import requests

__all__ = [
    "FakeClock",
    "FakeReddit",
    "Fault",
    "Request",
    "client_sleeps",
]

JSON = dict[str, Any]

# The longest comment Reddit accepts, in characters.
MAX_COMMENT_LENGTH = 10_000
MAX_TITLE_LENGTH = 300  # Reddit's limits on a submission's title and self text
MAX_SELFTEXT_LENGTH = 40_000
# Listing sizes: Reddit's default and its ceiling.
DEFAULT_LISTING_LIMIT = 25
MAX_LISTING_LIMIT = 100
# How long a stalled ("timeout") response waits for `release()` at most.
MAX_STALL_SECONDS = 30.0
# Reddit's allowance for an OAuth client: 100 queries a minute, averaged over a window
# of ten minutes, counted and reported in the x-ratelimit-* headers of every answer.
REDDIT_QUOTA = 1000
RATELIMIT_WINDOW = 600

_TOO_OLD = "that's a piece of history now; it's too late to reply to it"
_MENTION = re.compile(r"(?<![\w/])/?u/([A-Za-z0-9_-]{3,20})")


class Fault(str, Enum):
    """A misbehaviour `FakeReddit.inject` can arm for a route."""

    TOO_MANY_REQUESTS = "429"  # 429 with retry-after and exhausted x-ratelimit-*
    SERVER_ERROR = "500"
    SERVICE_UNAVAILABLE = "503"
    FORBIDDEN = "403"
    # HTTP 200 with a RATELIMIT error in json.errors, as Reddit throttles posting.
    RATELIMIT = "ratelimit"
    # Hold the response until `release()` (past the client's timeout), then hang up
    # without performing the action.
    TIMEOUT = "timeout"
    # Perform the action, then hang up without answering.
    LOST_RESPONSE = "lost_response"
    # Perform the action, then answer 500 as if it had failed.
    LOST_RESPONSE_500 = "lost_response_500"


class Request(NamedTuple):
    """One request the server received.

    `path` is normalised (no trailing slash, no ``.json``); `params` merges the
    query string and the form body, last value winning, with any password masked.
    """

    method: str
    path: str
    params: dict[str, str]


class FakeClock:
    """A clock that only moves when told to, and never backwards.

    >>> clock = FakeClock(100.0)
    >>> clock.advance(5)
    105.0
    >>> clock.now()
    105.0
    """

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """Return the current fake time, in seconds since the epoch."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock forward by `seconds` and return the new time.

        Raises ValueError for a negative step: the clock is monotonic.
        """
        if seconds < 0:
            raise ValueError(f"the fake clock cannot go backwards ({seconds} s)")
        with self._lock:
            self._now += seconds
            return self._now


class WallClock(FakeClock):
    """A clock that moves with real time (and, like :class:`FakeClock`, when told to).

    The local trial's server keeps it, so Reddit's rate-limit window resets every
    ten minutes as on Reddit, and posts carry the time they were written. ``source``
    is where real time comes from: ``time.time`` unless a test gives another.

    >>> seconds = [1_000.0]
    >>> clock = WallClock(source=lambda: seconds[0])
    >>> seconds[0] += 600
    >>> clock.now()
    1600.0
    >>> clock.advance(5)
    1605.0
    """

    def __init__(self, source: Callable[[], float] = time.time) -> None:
        super().__init__(0.0)
        self._source = source

    def now(self) -> float:
        """Return real time, plus whatever :meth:`advance` added."""
        return self._source() + super().now()

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` ahead of real time and return the new time."""
        return self._source() + super().advance(seconds)


class _HttpError(Exception):
    """Answer with a non-200 status and a Reddit-style JSON error body."""

    def __init__(
        self, status: int, body: JSON | None = None, headers: dict[str, str] | None = None
    ):
        super().__init__(status)
        self.status = status
        self.body = (
            body if body is not None else {"message": _REASONS.get(status, ""), "error": status}
        )
        self.headers = headers or {}


class _ApiError(Exception):
    """Answer 200 with ``{"json": {"errors": [[type, message, field]]}}``."""

    def __init__(self, error_type: str, message: str, field_name: str | None):
        super().__init__(error_type)
        self.item = [error_type, message, field_name]


_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

_TOO_MANY_REQUESTS_PAGE = """<!doctype html>
<html><head><title>Too Many Requests</title></head>
<body><h1>whoa there, pardner!</h1>
<p>we're sorry, but you appear to be a bot and we've seen too many requests
from you lately.</p>
<p>please wait {seconds} second(s) and try again.</p></body></html>
"""


@dataclass
class _Account:
    name: str
    password: str
    id: str
    created: float


@dataclass
class _Subreddit:
    name: str
    id: str
    created: float
    moderators: list[str]
    wiki_contributors: list[str]


@dataclass
class _Post:
    """A submission (t3) or a comment (t1)."""

    kind: str
    id: str
    seq: int
    author: str
    body: str
    subreddit: str
    link: str  # the submission's fullname (its own for a submission)
    parent: str  # the parent's fullname (the subreddit's for a submission)
    created: float
    title: str = ""
    edited: float | bool = False
    deleted: bool = False
    removed_by: str = ""  # the moderator who removed it ("" if none)
    locked: bool = False
    archived: bool = False
    score: int = 1
    children: list[str] = field(default_factory=list)

    @property
    def fullname(self) -> str:
        return f"{self.kind}_{self.id}"

    @property
    def gone(self) -> bool:
        """Deleted by its author or removed by a moderator: its text is no longer shown."""
        return self.deleted or bool(self.removed_by)

    @property
    def shown_text(self) -> str:
        """What a reader who is not a moderator sees of its text."""
        return "[deleted]" if self.deleted else "[removed]" if self.removed_by else self.body


@dataclass
class _Message:
    id: str
    seq: int
    author: str
    dest: str
    subject: str
    body: str
    created: float
    first: str | None  # fullname of the conversation's first message
    parent: str | None

    @property
    def fullname(self) -> str:
        return f"t4_{self.id}"


@dataclass
class _InboxEntry:
    """An item in someone's inbox: a message, a reply, or a mention."""

    recipient: str
    fullname: str
    seq: int
    type: str  # "message", "comment_reply", "post_reply" or "username_mention"
    new: bool = True


@dataclass
class _WikiPage:
    content: str
    revision_by: str
    revision_date: float
    revision_id: str
    reason: str | None


@dataclass
class _ArmedFault:
    method: str | None
    pattern: str
    fault: Fault
    remaining: int
    retry_after: int
    message: str

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method:
            return False
        return fnmatch.fnmatchcase(path, self.pattern)


@dataclass
class _Exchange:
    """What a route handler sees of a request."""

    method: str
    path: str
    params: dict[str, str]
    user: str | None
    match: re.Match[str]
    authorization: str


class _Handler(BaseHTTPRequestHandler):
    """Hands every request to the owning `FakeReddit`."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, each answer waits ~40 ms
    # for the client's delayed ACK.
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        self.server.fake._serve(self)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def send_payload(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        """Write a complete response with a Content-Length."""
        self.send_response(status, _REASONS.get(status))
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection:
            # The client asked to close (prawcore does for token requests); say so,
            # or urllib3 pools the socket and its next request meets a closed peer.
            self.send_header("Connection", "close")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def hang_up(self) -> None:
        """Close the connection without answering."""
        self.close_connection = True
        with suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    """A threading HTTP server that can close its open connections on shutdown."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, fake: FakeReddit, port: int = 0) -> None:
        self.fake = fake
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a bot process killed mid-request) is no server error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def drop_connections(self) -> None:
        """Hang up on every client, so idle keep-alive handlers finish."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


Route = Callable[["FakeReddit", _Exchange], Any]


class FakeReddit:
    """An in-memory Reddit served over HTTP on 127.0.0.1.

    Args:
        bot: the bot's username; its account is created with `bot_password`.
        client_id, client_secret: the script app's credentials.
        clock: the fake clock; a new `FakeClock` by default.
        comment_limit: the most comments one thread response holds; the rest go
            into a ``more`` object (None: only the client's ``limit`` applies).
        max_depth: the deepest level a thread response shows; deeper replies hide
            behind a "continue this thread" ``more`` object (None: unlimited).
        quota: the requests Reddit allows in each ``RATELIMIT_WINDOW`` seconds of the
            fake clock, windows starting at multiples of it as Reddit's do. Every answer
            carries Reddit's ``x-ratelimit-used``, ``-remaining`` and ``-reset``; a
            request beyond the quota is answered 429 until the window resets. A test
            whose clock stands still while it sends hundreds of requests (a worker
            process killed and restarted, say) gives a larger quota, or prawcore would
            rightly pace it.

    Use it as a context manager, or call `start()` and `stop()`.
    """

    def __init__(
        self,
        *,
        bot: str = "referee_bot",
        bot_password: str = "bot-password",
        client_id: str = "referee-test-app",
        client_secret: str = "referee-test-secret",
        clock: FakeClock | None = None,
        comment_limit: int | None = None,
        max_depth: int | None = None,
        quota: int = REDDIT_QUOTA,
        port: int = 0,  # 0: any free port (tests); fixed for `python -m referee.testing.serve`
    ) -> None:
        self.port = port
        self.bot = bot
        self.client_id = client_id
        self.client_secret = client_secret
        self.clock = clock or FakeClock()
        if max_depth is not None and max_depth < 1:
            raise ValueError("max_depth must be at least 1 (top-level comments are depth 0)")
        self.comment_limit = comment_limit
        self.max_depth = max_depth
        self.quota = quota
        self._window = -1  # the fake clock's current rate-limit window, by number
        self._used = 0  # requests counted in that window
        self.refused = 0  # requests answered 429 for going past the quota
        self.requests: list[Request] = []
        self.unhandled: list[Request] = []
        self._lock = threading.RLock()
        self._ids = itertools.count(int("100000", 36))
        self._seq = itertools.count(1)
        self._accounts: dict[str, _Account] = {}
        self._subreddits: dict[str, _Subreddit] = {}
        self._posts: dict[str, _Post] = {}
        self._messages: dict[str, _Message] = {}
        self._inbox: list[_InboxEntry] = []
        self._wiki: dict[tuple[str, str], _WikiPage] = {}
        # A page's settings (``permlevel``, ``listed``) by (subreddit, page), lower case.
        self._wiki_settings: dict[tuple[str, str], JSON] = {}
        self._tokens: dict[str, tuple[str | None, float]] = {}
        self._faults: list[_ArmedFault] = []
        # Called with each request as it arrives (False) and once its action is done but
        # before it is answered (True), on the server's thread: a soak test kills the
        # bot's process there, at a point of the exchange it chooses.
        self.on_request: Callable[[Request, bool], None] | None = None
        self._stall = threading.Event()
        self._stopping = False
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._clients: list[requests.Session] = []
        self.add_user(bot, bot_password)

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> FakeReddit:
        """Start serving in a background thread; return self."""
        if self._httpd is not None:
            return self
        self._stopping = False
        self._httpd = _Server(self, self.port)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="FakeReddit",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close test clients, release stalled responses, and shut down cleanly."""
        for client in self._clients:
            client.close()
        self._clients.clear()
        if self._httpd is None:
            return
        self._stopping = True
        self._stall.set()
        self._httpd.shutdown()
        self._httpd.drop_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeReddit:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The server's base URL, such as ``http://127.0.0.1:50123``."""
        if self._httpd is None:
            raise RuntimeError("FakeReddit is not running; call start() first")
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- PRAW clients ------------------------------------------------------------

    def praw_settings(self, username: str | None = None) -> dict[str, Any]:
        """Return `praw.Reddit` keyword arguments for a script app logged in as `username`.

        The default user is the bot. Update checks and the asyncio check are off, so
        PRAW neither reaches the network nor logs warnings.
        """
        name = username or self.bot
        with self._lock:
            account = self._accounts[name.lower()]
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "username": account.name,
            "password": account.password,
            "user_agent": f"referee-tests/0.1 (as u/{account.name})",
            "oauth_url": self.url,
            "reddit_url": self.url,
            "check_for_updates": False,
            "check_for_async": False,
        }

    def reddit(
        self, username: str | None = None, *, timeout: float = 5.0, **settings: Any
    ) -> praw.Reddit:
        """Return a `praw.Reddit` logged in as `username` (the bot by default).

        `timeout` is the client's read timeout in seconds. PRAW 8 ignores its own
        ``timeout`` setting and prawcore always passes its 16 s default, so the
        client uses a requestor that enforces this value. Its HTTP session is closed
        by `stop()`. Extra `settings` override `praw_settings`.
        """
        import praw
        import requests

        http = requests.Session()
        self._clients.append(http)
        options = self.praw_settings(username)
        options.update(settings)
        return praw.Reddit(
            requestor_class=_timeout_requestor_class(),
            requestor_kwargs={"session": http, "timeout": timeout},
            **options,
        )

    # -- seeding -----------------------------------------------------------------

    def add_user(self, name: str, password: str = "password") -> str:
        """Create an account and return its fullname (``t2_...``)."""
        with self._lock:
            account = _Account(name, password, self._new_id(), self.clock.now())
            self._accounts[name.lower()] = account
            return f"t2_{account.id}"

    def passwords(self) -> dict[str, str]:
        """Every account's username and password (a local trial prints them)."""
        with self._lock:
            return {account.name: account.password for account in self._accounts.values()}

    def moderators_of(self, sub: str) -> list[str]:
        """The moderators of r/``sub``, as named when added."""
        with self._lock:
            return list(self._subreddit(sub).moderators)

    def add_moderator(self, sub: str, name: str) -> None:
        """Make ``name`` (given an account if new) a moderator of r/``sub``."""
        with self._lock:
            self._ensure_user(name)
            moderators = self._subreddit(sub).moderators
            if name.lower() not in (m.lower() for m in moderators):
                moderators.append(name)

    def add_subreddit(
        self,
        name: str,
        moderators: Iterable[str] = (),
        *,
        wiki_contributors: Iterable[str] = (),
    ) -> str:
        """Create a subreddit and return its fullname (``t5_...``).

        Unknown moderators get accounts. Moderators and `wiki_contributors` may edit
        the wiki; moderators may also comment in locked threads, as on Reddit.
        """
        with self._lock:
            mods = list(moderators)
            for mod in mods:
                if mod.lower() not in self._accounts:
                    self.add_user(mod)
            sub = _Subreddit(name, self._new_id(), self.clock.now(), mods, list(wiki_contributors))
            self._subreddits[name.lower()] = sub
            return f"t5_{sub.id}"

    def submit(self, sub: str, author: str, title: str, body: str = "") -> str:
        """Post a self post and return its fullname (``t3_...``)."""
        with self._lock:
            subreddit = self._subreddit(sub)
            self._ensure_user(author)
            post_id = self._new_id()
            post = _Post(
                kind="t3",
                id=post_id,
                seq=next(self._seq),
                author=self._accounts[author.lower()].name,
                body=body,
                subreddit=subreddit.name,
                link=f"t3_{post_id}",
                parent=f"t5_{subreddit.id}",
                created=self.clock.now(),
                title=title,
            )
            self._posts[post.fullname] = post
            return post.fullname

    def comment(self, parent_fullname: str, author: str, body: str) -> str:
        """Reply to a submission or comment as `author`, return the new fullname.

        Seeding ignores locks and archiving; the API does not.
        """
        with self._lock:
            self._ensure_user(author)
            return self._add_comment(self._post(parent_fullname), author, body).fullname

    def send_message(self, author: str, to: str, subject: str, body: str) -> str:
        """Send a private message from `author` to `to`, return its fullname (``t4_...``)."""
        with self._lock:
            self._ensure_user(author)
            self._ensure_user(to)
            return self._add_message(author, to, subject, body, None).fullname

    def edit(self, fullname: str, body: str) -> None:
        """Replace a post's text and stamp ``edited`` with the clock's time."""
        with self._lock:
            post = self._post(fullname)
            post.body = body
            post.edited = self.clock.now()

    def delete(self, fullname: str) -> None:
        """Delete a submission or comment, as its author would."""
        with self._lock:
            self._post(fullname).deleted = True

    def remove(self, fullname: str, moderator: str) -> None:
        """Remove a submission or comment, as a moderator would (``POST /api/remove``)."""
        with self._lock:
            self._post(fullname).removed_by = moderator

    def lock(self, fullname: str) -> None:
        """Lock a submission or comment: only moderators may reply below it."""
        with self._lock:
            self._post(fullname).locked = True

    def archive(self, fullname: str) -> None:
        """Archive a submission (and so its comments): nobody may reply any more."""
        with self._lock:
            post = self._post(fullname)
            self._posts[post.link].archived = True

    def set_wiki_page(self, sub: str, page: str, content: str, author: str | None = None) -> None:
        """Create or replace a wiki page, as `author` (the first moderator by default)."""
        with self._lock:
            subreddit = self._subreddit(sub)
            editor = author or (subreddit.moderators[0] if subreddit.moderators else self.bot)
            self._write_wiki(subreddit, page, content, editor, None)

    def revoke_tokens(self) -> None:
        """Forget every access token, so the next API call answers 401."""
        with self._lock:
            self._tokens.clear()

    # -- readers -----------------------------------------------------------------

    def thing(self, fullname: str) -> JSON:
        """Return a thing's ``data`` as the API would show it (t1, t3 or t4)."""
        with self._lock:
            if fullname.startswith("t4_"):
                return self._message_data(self._message(fullname), None)
            post = self._post(fullname)
            return self._comment_data(post) if post.kind == "t1" else self._submission_data(post)

    def replies_to(self, fullname: str) -> list[JSON]:
        """Return the direct replies to a post, oldest first, deleted ones included."""
        with self._lock:
            return [self._comment_data(self._posts[c]) for c in self._post(fullname).children]

    def comments_by(self, author: str) -> list[JSON]:
        """Return every comment `author` wrote, oldest first, deleted ones included."""
        with self._lock:
            posts = sorted(self._posts.values(), key=lambda p: p.seq)
            return [
                self._comment_data(p)
                for p in posts
                if p.kind == "t1" and p.author.lower() == author.lower()
            ]

    def messages_to(self, user: str) -> list[JSON]:
        """Return the private messages sent to `user`, oldest first."""
        with self._lock:
            messages = sorted(self._messages.values(), key=lambda m: m.seq)
            return [self._message_data(m, None) for m in messages if m.dest.lower() == user.lower()]

    def wiki_page(self, sub: str, page: str) -> str | None:
        """Return a wiki page's Markdown, or None if it does not exist."""
        with self._lock:
            found = self._wiki.get((sub.lower(), page.lower()))
            return found.content if found else None

    def wiki_settings(self, sub: str, page: str) -> JSON:
        """A wiki page's settings: ``permlevel`` (0 the subreddit's rules, 1 approved
        editors, 2 moderators only, who alone may then read it) and ``listed``."""
        with self._lock:
            return dict(self._wiki_settings.get((sub.lower(), page.lower()), _WIKI_DEFAULTS))

    # -- faults and counting -----------------------------------------------------

    def inject(
        self,
        route: str,
        fault: Fault | str,
        times: int = 1,
        *,
        retry_after: int = 4,
        message: str = "you are doing that too much. try again in 5 minutes.",
    ) -> None:
        """Arm `fault` for the next `times` requests that match `route`.

        `route` is a path glob, optionally preceded by a method: ``"/api/comment"``,
        ``"POST /api/comment"``, ``"GET /r/*/comments"``. Paths are compared without
        a trailing slash. `retry_after` is the 429's wait in seconds; `message` is
        the RATELIMIT error's text (PRAW itself waits and retries when it names at
        most its ``ratelimit_seconds``, 5 by default). Faults fire in arming order.
        """
        if times < 1:
            raise ValueError("times must be at least 1")
        method, _, pattern = route.rpartition(" ")
        armed = _ArmedFault(
            method=method.upper() or None,
            pattern=_normalise_path(pattern if pattern.startswith("/") else f"/{pattern}"),
            fault=Fault(fault),
            remaining=times,
            retry_after=retry_after,
            message=message,
        )
        with self._lock:
            self._faults.append(armed)

    def pending_faults(self) -> int:
        """Return how many armed fault firings have not happened yet."""
        with self._lock:
            return sum(f.remaining for f in self._faults)

    def release(self) -> None:
        """Let every response stalled by a TIMEOUT fault finish (by hanging up)."""
        with self._lock:
            stalled, self._stall = self._stall, threading.Event()
        stalled.set()

    def count(self, method: str | None = None, path_prefix: str | None = None) -> int:
        """Count received requests, optionally only one method or path prefix."""
        with self._lock:
            if method is None and path_prefix is None:
                return len(self.requests)
            return sum(
                1
                for r in self.requests
                if (method is None or r.method == method.upper())
                and (path_prefix is None or r.path.startswith(path_prefix))
            )

    # -- internals: HTTP ---------------------------------------------------------

    def _serve(self, handler: _Handler) -> None:
        split = urlsplit(handler.path)
        path = _normalise_path(split.path)
        params = dict(parse_qsl(split.query, keep_blank_values=True))
        length = int(handler.headers.get("Content-Length") or 0)
        raw_body = handler.rfile.read(length) if length else b""
        if raw_body and "json" in (handler.headers.get("Content-Type") or ""):
            loaded = json.loads(raw_body)
            params.update(
                {k: str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
            )
        elif raw_body:
            params.update(parse_qsl(raw_body.decode("utf-8"), keep_blank_values=True))
        method = handler.command.upper()
        shown = {k: ("***" if k == "password" else v) for k, v in params.items()}
        record = Request(method, path, shown)
        with self._lock:
            self.requests.append(record)
            fault = self._take_fault(method, path)
            limits = None if path == "/api/v1/access_token" else self._count_request()
        if limits is not None and float(limits["x-ratelimit-remaining"]) < 0:
            reset = int(limits["x-ratelimit-reset"])  # over the quota: as Reddit, 429
            self.refused += 1
            fault = _ArmedFault(None, path, Fault.TOO_MANY_REQUESTS, 1, reset, "")

        if self.on_request is not None:
            self.on_request(record, False)
        if fault is not None and fault.fault is Fault.TIMEOUT:
            with self._lock:
                stall = self._stall
            if not self._stopping:
                stall.wait(MAX_STALL_SECONDS)
            handler.hang_up()
            return
        if fault is not None and fault.fault not in _AFTER_ACTION:
            self._send_fault(handler, fault, limits or {})
            return

        status, payload, headers = self._dispatch(method, path, params, handler, record)
        if self.on_request is not None:
            self.on_request(record, True)
        if fault is not None and fault.fault is Fault.LOST_RESPONSE:
            handler.hang_up()
            return
        if fault is not None and fault.fault is Fault.LOST_RESPONSE_500:
            status, payload, headers = 500, {"message": _REASONS[500], "error": 500}, {}
        if params.get("raw_json") != "1":
            payload = _legacy_escape(payload)
        body = json.dumps(payload).encode("utf-8")
        all_headers = {"Content-Type": "application/json; charset=UTF-8", **(limits or {})}
        all_headers.update(headers)
        handler.send_payload(status, body, all_headers)

    def _count_request(self) -> dict[str, str]:
        """Count one request against the quota; Reddit's x-ratelimit-* headers after it.

        A negative remaining means the quota was already spent: the caller answers 429.
        """
        now = self.clock.now()
        window = int(now // RATELIMIT_WINDOW)
        if window != self._window:
            self._window, self._used = window, 0
        self._used += 1
        reset = max(1, math.ceil((window + 1) * RATELIMIT_WINDOW - now))
        remaining = self.quota - self._used
        return {
            "x-ratelimit-remaining": f"{remaining:.1f}",
            "x-ratelimit-used": str(self._used),
            "x-ratelimit-reset": str(reset),
        }

    def use_quota(self, requests: int) -> None:
        """Count ``requests`` of another tool of the bot's account in the current window."""
        with self._lock:
            window = int(self.clock.now() // RATELIMIT_WINDOW)
            if window != self._window:
                self._window, self._used = window, 0
            self._used += requests

    def rate_limit(self) -> tuple[int, float]:
        """The requests counted in the fake clock's current window, and when it resets."""
        with self._lock:
            now = self.clock.now()
            window = int(now // RATELIMIT_WINDOW)
            used = self._used if window == self._window else 0
            return used, (window + 1) * RATELIMIT_WINDOW

    def _take_fault(self, method: str, path: str) -> _ArmedFault | None:
        for armed in self._faults:
            if armed.remaining > 0 and armed.matches(method, path):
                armed.remaining -= 1
                if armed.remaining == 0:
                    self._faults.remove(armed)
                return armed
        return None

    def _send_fault(self, handler: _Handler, fault: _ArmedFault, limits: dict[str, str]) -> None:
        kind = fault.fault
        if kind is Fault.TOO_MANY_REQUESTS:
            seconds = str(fault.retry_after)
            page = _TOO_MANY_REQUESTS_PAGE.format(seconds=seconds).encode("utf-8")
            headers = {
                "Content-Type": "text/html; charset=UTF-8",
                "retry-after": seconds,
                "x-ratelimit-remaining": "0.0",
                "x-ratelimit-used": str(self.quota),
                "x-ratelimit-reset": seconds,
            }
            handler.send_payload(429, page, headers)
            return
        if kind is Fault.RATELIMIT:
            payload: JSON = {"json": {"errors": [["RATELIMIT", fault.message, "ratelimit"]]}}
            status = 200
        else:
            status = int(kind.value)
            payload = {"message": _REASONS[status], "error": status}
        headers = {"Content-Type": "application/json; charset=UTF-8", **limits}
        handler.send_payload(status, json.dumps(payload).encode("utf-8"), headers)

    def _dispatch(
        self,
        method: str,
        path: str,
        params: dict[str, str],
        handler: _Handler,
        record: Request,
    ) -> tuple[int, Any, dict[str, str]]:
        for route_method, pattern, route in _ROUTES:
            match = pattern.fullmatch(path)
            if match is None or route_method != method:
                continue
            try:
                authorization = handler.headers.get("Authorization", "")
                with self._lock:
                    user = None if route is _access_token else self._authenticate(authorization)
                    exchange = _Exchange(method, path, params, user, match, authorization)
                    return 200, route(self, exchange), {}
            except _ApiError as error:
                return 200, {"json": {"errors": [error.item]}}, {}
            except _HttpError as error:
                return error.status, error.body, error.headers
        with self._lock:
            self.unhandled.append(record)
        return 404, {"message": _REASONS[404], "error": 404}, {}

    def _authenticate(self, authorization: str) -> str | None:
        scheme, _, token = authorization.partition(" ")
        grant = self._tokens.get(token) if scheme.lower() == "bearer" else None
        if grant is None or self.clock.now() >= grant[1]:
            raise _HttpError(
                401,
                headers={"www-authenticate": 'Bearer realm="reddit", error="invalid_token"'},
            )
        return grant[0]

    # -- internals: model --------------------------------------------------------

    def _new_id(self) -> str:
        return _base36(next(self._ids))

    def _ensure_user(self, name: str) -> None:
        if name.lower() not in self._accounts:
            self.add_user(name)

    def _account(self, name: str) -> _Account:
        try:
            return self._accounts[name.lower()]
        except KeyError:
            raise _HttpError(404) from None

    def _subreddit(self, name: str) -> _Subreddit:
        try:
            return self._subreddits[name.lower()]
        except KeyError:
            raise KeyError(f"no subreddit r/{name}; call add_subreddit first") from None

    def _post(self, fullname: str) -> _Post:
        try:
            return self._posts[fullname]
        except KeyError:
            raise KeyError(f"no submission or comment {fullname}") from None

    def _message(self, fullname: str) -> _Message:
        try:
            return self._messages[fullname]
        except KeyError:
            raise KeyError(f"no message {fullname}") from None

    def _is_mod(self, user: str | None, subreddit: str) -> bool:
        sub = self._subreddits.get(subreddit.lower())
        return bool(user and sub and user.lower() in (m.lower() for m in sub.moderators))

    def _live(self, kind: str) -> Iterator[_Post]:
        """Yield the submissions (t3) or comments (t1) that are not deleted."""
        return (p for p in self._posts.values() if p.kind == kind and not p.gone)

    def _may_edit_wiki(self, user: str | None, sub: _Subreddit, page: str = "") -> bool:
        allowed = {n.lower() for n in sub.moderators + sub.wiki_contributors}
        if self._moderators_only(sub, page):
            allowed = {n.lower() for n in sub.moderators}
        return bool(user and user.lower() in allowed)

    def _moderators_only(self, sub: _Subreddit, page: str) -> bool:
        settings = self._wiki_settings.get((sub.name.lower(), page.lower()), _WIKI_DEFAULTS)
        return int(settings.get("permlevel", 0)) == 2

    def _is_moderator(self, user: str | None, sub: _Subreddit) -> bool:
        return bool(user and user.lower() in {n.lower() for n in sub.moderators})

    def _add_comment(self, parent: _Post, author: str, body: str) -> _Post:
        comment = _Post(
            kind="t1",
            id=self._new_id(),
            seq=next(self._seq),
            author=self._accounts[author.lower()].name,
            body=body,
            subreddit=parent.subreddit,
            link=parent.link,
            parent=parent.fullname,
            created=self.clock.now(),
        )
        self._posts[comment.fullname] = comment
        parent.children.append(comment.fullname)
        notified = {comment.author.lower()}
        if not parent.deleted and parent.author.lower() not in notified:
            kind = "comment_reply" if parent.kind == "t1" else "post_reply"
            self._notify(parent.author, comment.fullname, kind)
            notified.add(parent.author.lower())
        for name in _MENTION.findall(body):
            if name.lower() in self._accounts and name.lower() not in notified:
                self._notify(
                    self._accounts[name.lower()].name, comment.fullname, "username_mention"
                )
                notified.add(name.lower())
        return comment

    def _add_message(
        self, author: str, to: str, subject: str, body: str, parent: _Message | None
    ) -> _Message:
        message = _Message(
            id=self._new_id(),
            seq=next(self._seq),
            author=self._accounts[author.lower()].name,
            dest=self._accounts[to.lower()].name,
            subject=subject,
            body=body,
            created=self.clock.now(),
            first=(parent.first or parent.fullname) if parent else None,
            parent=parent.fullname if parent else None,
        )
        self._messages[message.fullname] = message
        self._notify(message.dest, message.fullname, "message")
        return message

    def _notify(self, recipient: str, fullname: str, kind: str) -> None:
        self._inbox.append(_InboxEntry(recipient, fullname, next(self._seq), kind))

    def _write_wiki(
        self, sub: _Subreddit, page: str, content: str, editor: str, reason: str | None
    ) -> None:
        revision = f"{next(self._seq):08x}-0000-4000-8000-{sub.id:0>12}"
        self._wiki[(sub.name.lower(), page.lower())] = _WikiPage(
            content, editor, self.clock.now(), revision, reason
        )

    def _visible(self, fullname: str) -> bool:
        """A deleted comment stays in a thread only while it has live replies."""
        post = self._posts[fullname]
        return not post.gone or any(self._visible(c) for c in post.children)

    def _sorted_children(self, post: _Post, sort: str) -> list[_Post]:
        children = [self._posts[c] for c in post.children if self._visible(c)]
        if sort == "new":
            return sorted(children, key=lambda p: -p.seq)
        if sort == "old":
            return sorted(children, key=lambda p: p.seq)
        return sorted(children, key=lambda p: (-p.score, p.seq))

    def _preorder(self, post: _Post, sort: str) -> list[str]:
        ids = [post.id]
        for child in self._sorted_children(post, sort):
            ids.extend(self._preorder(child, sort))
        return ids

    def _depth(self, post: _Post) -> int:
        depth = 0
        while post.parent.startswith("t1_"):
            post = self._posts[post.parent]
            depth += 1
        return depth

    def _tree(
        self, parent: _Post, sort: str, depth: int, budget: list[int], top: int = 0
    ) -> list[JSON]:
        """Render `parent`'s replies at `depth`, spending `budget`.

        Levels count from `top`, the depth of the response's first shown replies, so
        a focused ("continue this thread") view shows `max_depth` levels again.
        """
        children = self._sorted_children(parent, sort)
        if children and self.max_depth is not None and depth - top >= self.max_depth:
            return [_more(parent.fullname, depth, [], continue_thread=True)]
        rendered: list[JSON] = []
        for index, child in enumerate(children):
            if budget[0] <= 0:
                rest = [i for c in children[index:] for i in self._preorder(c, sort)]
                rendered.append(_more(parent.fullname, depth, rest))
                break
            budget[0] -= 1
            replies = self._tree(child, sort, depth + 1, budget, top)
            rendered.append(_thing("t1", self._comment_data(child, depth=depth, replies=replies)))
        return rendered

    def _context_chain(self, focus: _Post, context: int, sort: str, limit: int) -> list[JSON]:
        """Render `focus` with its replies under up to `context` ancestors."""
        chain = [focus]
        while len(chain) <= context and chain[-1].parent.startswith("t1_"):
            chain.append(self._posts[chain[-1].parent])
        chain.reverse()
        budget = [limit]
        replies = self._tree(focus, sort, len(chain), budget, top=len(chain))
        node = _thing("t1", self._comment_data(focus, depth=len(chain) - 1, replies=replies))
        for depth, ancestor in reversed(list(enumerate(chain[:-1]))):
            node = _thing("t1", self._comment_data(ancestor, depth=depth, replies=[node]))
        return [node]

    # -- internals: JSON shapes --------------------------------------------------

    def _user_id(self, name: str) -> str | None:
        account = self._accounts.get(name.lower())
        return f"t2_{account.id}" if account else None

    def _permalink(self, post: _Post) -> str:
        submission = self._posts[post.link]
        base = f"/r/{post.subreddit}/comments/{submission.id}/{_slug(submission.title)}/"
        return base if post.kind == "t3" else f"{base}{post.id}/"

    def _common(self, post: _Post) -> JSON:
        sub = self._subreddits[post.subreddit.lower()]
        author = "[deleted]" if post.gone else post.author
        data: JSON = {
            "id": post.id,
            "name": post.fullname,
            "author": author,
            "subreddit": sub.name,
            "subreddit_id": f"t5_{sub.id}",
            "subreddit_name_prefixed": f"r/{sub.name}",
            "subreddit_type": "public",
            "created": post.created,
            "created_utc": post.created,
            "edited": post.edited,
            "permalink": self._permalink(post),
            "locked": post.locked,
            "archived": self._posts[post.link].archived,
            "score": post.score,
            "ups": post.score,
            "downs": 0,
            "likes": None,
            "score_hidden": False,
            "distinguished": None,
            "stickied": False,
            "gilded": 0,
            "total_awards_received": 0,
            "saved": False,
            "send_replies": True,
            "banned_by": None,
            "approved_by": None,
            "removal_reason": None,
            "mod_reports": [],
            "user_reports": [],
            "report_reasons": None,
            "num_reports": None,
            "author_flair_text": None,
            "author_flair_css_class": None,
            "can_mod_post": False,
        }
        if not post.gone:
            data["author_fullname"] = self._user_id(post.author)
        return data

    def _submission_data(self, post: _Post) -> JSON:
        text = post.shown_text
        data = self._common(post)
        data.update(
            {
                "title": post.title,
                "selftext": text,
                "selftext_html": _render_markdown(text, self_post=True) if text else None,
                "domain": f"self.{post.subreddit}",
                "url": f"https://www.reddit.com{data['permalink']}",
                "is_self": True,
                "num_comments": sum(
                    1
                    for p in self._posts.values()
                    if p.link == post.fullname and p.kind == "t1" and not p.gone
                ),
                "upvote_ratio": 1.0,
                "over_18": False,
                "spoiler": False,
                "hidden": False,
                "is_video": False,
                "thumbnail": "self",
                "contest_mode": False,
                "suggested_sort": None,
                "link_flair_text": None,
                "link_flair_css_class": None,
                "media": None,
                "secure_media": None,
                "media_embed": {},
                "secure_media_embed": {},
                "quarantine": False,
                "removed_by_category": _removed_by_category(post),
            }
        )
        return data

    def _comment_data(
        self,
        post: _Post,
        *,
        depth: int | None = None,
        replies: list[JSON] | None = None,
        with_link: bool = False,
    ) -> JSON:
        text = post.shown_text
        submission = self._posts[post.link]
        data = self._common(post)
        data.update(
            {
                "body": text,
                "body_html": _render_markdown(text),
                "parent_id": post.parent,
                "link_id": post.link,
                "replies": _listing(replies) if replies else "",
                "controversiality": 0,
                "collapsed": False,
                "is_submitter": post.author == submission.author and not post.gone,
                "depth": self._depth(post) if depth is None else depth,
                "removed_by_category": _removed_by_category(post),
            }
        )
        if with_link:
            data.update(
                {
                    "link_title": submission.title,
                    "link_author": "[deleted]" if submission.deleted else submission.author,
                    "link_permalink": f"https://www.reddit.com{self._permalink(submission)}",
                    "link_url": f"https://www.reddit.com{self._permalink(submission)}",
                    "num_comments": self._submission_data(submission)["num_comments"],
                    "over_18": False,
                    "quarantine": False,
                }
            )
        return data

    def _message_data(self, message: _Message, entry: _InboxEntry | None) -> JSON:
        first = self._messages.get(message.first) if message.first else None
        return {
            "id": message.id,
            "name": message.fullname,
            "author": message.author,
            "author_fullname": self._user_id(message.author),
            "dest": message.dest,
            "subject": message.subject,
            "body": message.body,
            "body_html": _render_markdown(message.body),
            "created": message.created,
            "created_utc": message.created,
            "first_message": int(first.id, 36) if first else None,
            "first_message_name": first.fullname if first else None,
            "parent_id": message.parent,
            "replies": "",
            "context": "",
            "new": entry.new if entry else True,
            "type": "unknown",
            "was_comment": False,
            "subreddit": None,
            "subreddit_name_prefixed": None,
            "distinguished": None,
            "likes": None,
            "score": 0,
            "num_comments": None,
            "associated_awarding_id": None,
        }

    def _inbox_thing(self, entry: _InboxEntry) -> JSON:
        if entry.fullname.startswith("t4_"):
            return _thing("t4", self._message_data(self._messages[entry.fullname], entry))
        post = self._posts[entry.fullname]
        data = self._comment_data(post, with_link=True)
        subjects = {
            "comment_reply": "comment reply",
            "post_reply": "post reply",
            "username_mention": "username mention",
        }
        data.update(
            {
                "context": f"{self._permalink(post)}?context=3",
                "new": entry.new,
                "type": entry.type,
                "subject": subjects[entry.type],
                "was_comment": True,
                "dest": entry.recipient,
                "first_message": None,
                "first_message_name": None,
                "replies": "",
            }
        )
        return _thing("t1", data)

    def _paginate(self, things: list[JSON], params: dict[str, str]) -> JSON:
        """Slice a newest-first list of things the way Reddit's listings page."""
        return self._paginate_posts(things, params, lambda t: str(t["data"]["name"]), lambda t: t)

    def _paginate_posts(
        self,
        items: Iterable[Any],
        params: dict[str, str],
        name: Callable[[Any], str],
        render: Callable[[Any], JSON],
    ) -> JSON:
        """:meth:`_paginate` over newest-first ``items``, read only as far as the page
        and rendering only its own: a listing costs its page, not the whole site."""
        limit = _int_param(params, "limit", DEFAULT_LISTING_LIMIT)
        limit = max(1, min(limit, MAX_LISTING_LIMIT))
        newest = iter(items)
        if params.get("before"):
            newer: list[Any] = []
            for item in newest:
                if name(item) == params["before"]:
                    break
                newer.append(item)
            else:
                return _listing([])
            window, start, more = newer[-limit:], max(0, len(newer) - limit), True
        else:
            start = 0
            if params.get("after"):
                for item in newest:
                    start += 1
                    if name(item) == params["after"]:
                        break
                else:
                    return _listing([])
            window = list(itertools.islice(newest, limit))
            more = next(newest, None) is not None
        page = [render(item) for item in window]
        after = page[-1]["data"]["name"] if page and more else None
        before = page[0]["data"]["name"] if page and start > 0 else None
        return _listing(page, after=after, before=before)

    def _newest(self, kind: str) -> Iterator[_Post]:
        """The submissions (t3) or comments (t1) that are not deleted, newest first."""
        return (p for p in reversed(self._posts.values()) if p.kind == kind and not p.gone)


# -- route handlers --------------------------------------------------------------
# Each takes the server (its lock held) and the exchange, and returns the JSON
# payload, or raises _HttpError / _ApiError.


def _require_user(exchange: _Exchange) -> str:
    if exchange.user is None:
        raise _HttpError(403)
    return exchange.user


def _access_token(fake: FakeReddit, exchange: _Exchange) -> JSON:
    scheme, _, encoded = exchange.authorization.partition(" ")
    try:
        client = base64.b64decode(encoded).decode("utf-8") if scheme.lower() == "basic" else ""
    except ValueError:
        client = ""
    if client != f"{fake.client_id}:{fake.client_secret}":
        raise _HttpError(401)
    grant = exchange.params.get("grant_type")
    user: str | None
    if grant == "password":
        account = fake._accounts.get(exchange.params.get("username", "").lower())
        if account is None or account.password != exchange.params.get("password"):
            return {"error": "invalid_grant"}
        user = account.name
    elif grant == "client_credentials":
        user = None
    else:
        return {"error": "unsupported_grant_type"}
    token = f"fake-token-{next(fake._seq)}"
    fake._tokens[token] = (user, fake.clock.now() + 86400)
    return {"access_token": token, "token_type": "bearer", "expires_in": 86400, "scope": "*"}


def _me(fake: FakeReddit, exchange: _Exchange) -> JSON:
    account = fake._account(_require_user(exchange))
    unread = [e for e in fake._inbox if e.recipient == account.name and e.new]
    return {
        "name": account.name,
        "id": account.id,
        "created": account.created,
        "created_utc": account.created,
        "comment_karma": 0,
        "link_karma": 0,
        "total_karma": 0,
        "has_mail": bool(unread),
        "inbox_count": len(unread),
        "has_verified_email": True,
        "is_mod": any(fake._is_mod(account.name, s) for s in fake._subreddits),
        "is_employee": False,
        "is_suspended": False,
        "verified": True,
        "icon_img": "",
    }


def _user_about(fake: FakeReddit, exchange: _Exchange) -> JSON:
    account = fake._account(exchange.match["name"])
    return _thing(
        "t2",
        {
            "name": account.name,
            "id": account.id,
            "created": account.created,
            "created_utc": account.created,
            "comment_karma": 0,
            "link_karma": 0,
            "is_suspended": False,
            "is_employee": False,
            "is_mod": any(fake._is_mod(account.name, s) for s in fake._subreddits),
            "verified": True,
            "icon_img": "",
        },
    )


def _subreddits_of(fake: FakeReddit, names: str) -> list[_Subreddit]:
    subs = []
    for name in names.split("+"):
        found = fake._subreddits.get(name.lower())
        if found is None:
            raise _HttpError(404)
        subs.append(found)
    return subs


def _subreddit_about(fake: FakeReddit, exchange: _Exchange) -> JSON:
    (sub,) = _subreddits_of(fake, exchange.match["sub"])
    return _thing(
        "t5",
        {
            "display_name": sub.name,
            "display_name_prefixed": f"r/{sub.name}",
            "name": f"t5_{sub.id}",
            "id": sub.id,
            "title": sub.name,
            "public_description": "",
            "subscribers": len(fake._accounts),
            "subreddit_type": "public",
            "over18": False,
            "created": sub.created,
            "created_utc": sub.created,
            "url": f"/r/{sub.name}/",
            "user_is_moderator": fake._is_mod(exchange.user, sub.name),
        },
    )


def _moderators(fake: FakeReddit, exchange: _Exchange) -> JSON:
    (sub,) = _subreddits_of(fake, exchange.match["sub"])
    wanted = exchange.params.get("user", "").lower()
    children = [
        {
            "name": account.name,
            "id": f"t2_{account.id}",
            "date": sub.created,
            "mod_permissions": ["all"],
            "author_flair_text": None,
            "author_flair_css_class": None,
        }
        for account in (fake._accounts[m.lower()] for m in sub.moderators)
        if not wanted or account.name.lower() == wanted
    ]
    return {"kind": "UserList", "data": {"children": children}}


def _subreddit_new(fake: FakeReddit, exchange: _Exchange) -> JSON:
    names = {s.name for s in _subreddits_of(fake, exchange.match["subs"])}
    posts = (p for p in fake._newest("t3") if p.subreddit in names)
    return fake._paginate_posts(
        posts, exchange.params, _fullname, lambda p: _thing("t3", fake._submission_data(p))
    )


def _subreddit_comments(fake: FakeReddit, exchange: _Exchange) -> JSON:
    names = {s.name for s in _subreddits_of(fake, exchange.match["subs"])}
    posts = (p for p in fake._newest("t1") if p.subreddit in names)
    return fake._paginate_posts(
        posts,
        exchange.params,
        _fullname,
        lambda p: _thing("t1", fake._comment_data(p, with_link=True)),
    )


def _fullname(post: _Post) -> str:
    return post.fullname


def _user_comments(fake: FakeReddit, exchange: _Exchange) -> JSON:
    account = fake._account(exchange.match["name"])
    posts = sorted(
        (p for p in fake._live("t1") if p.author == account.name),
        key=lambda p: -p.seq,
    )
    things = [_thing("t1", fake._comment_data(p, with_link=True)) for p in posts]
    return fake._paginate(things, exchange.params)


def _thread(fake: FakeReddit, exchange: _Exchange) -> list[JSON]:
    submission = fake._posts.get(f"t3_{exchange.match['id']}")
    if submission is None:
        raise _HttpError(404)
    sort = exchange.params.get("sort") or "confidence"
    limit = _int_param(exchange.params, "limit", 200)
    if fake.comment_limit is not None:
        limit = min(limit, fake.comment_limit)
    focus_id = exchange.match["comment"] or exchange.params.get("comment")
    if focus_id:
        focus = fake._posts.get(f"t1_{focus_id}")
        if focus is None or focus.link != submission.fullname:
            comments: list[JSON] = []
        else:
            context = _int_param(exchange.params, "context", 0)
            comments = fake._context_chain(focus, min(context, 8), sort, limit)
    else:
        comments = fake._tree(submission, sort, 0, [limit])
    return [
        _listing([_thing("t3", fake._submission_data(submission))]),
        _listing(comments),
    ]


def _more_children(fake: FakeReddit, exchange: _Exchange) -> JSON:
    link = exchange.params.get("link_id", "")
    things = []
    for comment_id in filter(None, exchange.params.get("children", "").split(",")):
        post = fake._posts.get(f"t1_{comment_id}")
        if post is not None and post.link == link:
            things.append(_thing("t1", fake._comment_data(post)))
    return _things(things)


def _info(fake: FakeReddit, exchange: _Exchange) -> JSON:
    things = []
    for fullname in filter(None, exchange.params.get("id", "").split(",")):
        post = fake._posts.get(fullname)
        if post is None:
            continue
        if post.kind == "t1":
            things.append(_thing("t1", fake._comment_data(post)))
        else:
            things.append(_thing("t3", fake._submission_data(post)))
    return _listing(things)


def _submit(fake: FakeReddit, exchange: _Exchange) -> JSON:
    """``Subreddit.submit``: a self post; PRAW reads back its id, name and URL."""
    user = _require_user(exchange)
    sub = exchange.params.get("sr", "")
    title = exchange.params.get("title", "")
    if sub.lower() not in fake._subreddits:
        raise _ApiError("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr")
    if exchange.params.get("kind", "self") != "self":
        raise _ApiError("NO_LINKS", "this fake takes text posts only", "kind")
    if not title.strip():
        raise _ApiError("NO_TEXT", "we need something here", "title")
    if len(title) > MAX_TITLE_LENGTH:
        raise _ApiError("TOO_LONG", f"this is too long (max: {MAX_TITLE_LENGTH})", "title")
    text = exchange.params.get("text", "")
    if len(text) > MAX_SELFTEXT_LENGTH:
        raise _ApiError("TOO_LONG", f"this is too long (max: {MAX_SELFTEXT_LENGTH})", "text")
    post = fake._post(fake.submit(sub, user, title, text))
    data = {
        "url": f"https://www.reddit.com{fake._permalink(post)}",
        "drafts_count": 0,
        "id": post.id,
        "name": post.fullname,
    }
    return {"json": {"errors": [], "data": data}}


def _reply(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    thing_id = exchange.params.get("thing_id", "")
    text = exchange.params.get("text", "")
    if not text.strip():
        raise _ApiError("NO_TEXT", "we need something here", "text")
    if len(text) > MAX_COMMENT_LENGTH:
        raise _ApiError("TOO_LONG", f"this is too long (max: {MAX_COMMENT_LENGTH})", "text")
    if thing_id.startswith("t4_"):
        message = fake._messages.get(thing_id)
        if message is None:
            raise _HttpError(404)
        other = message.author if message.dest.lower() == user.lower() else message.dest
        subject = message.subject if message.subject.startswith("re:") else f"re: {message.subject}"
        reply = fake._add_message(user, other, subject, text, message)
        return _things([_thing("t4", fake._message_data(reply, None))])
    parent = fake._posts.get(thing_id)
    if parent is None:
        raise _HttpError(404)
    submission = fake._posts[parent.link]
    if submission.deleted:
        raise _ApiError("DELETED_LINK", "the link you are commenting on has been deleted", "parent")
    if parent.deleted:
        raise _ApiError("DELETED_COMMENT", "that comment has been deleted", "parent")
    if submission.archived:
        raise _ApiError("TOO_OLD", _TOO_OLD, "parent")
    if (submission.locked or parent.locked) and not fake._is_mod(user, parent.subreddit):
        raise _ApiError("THREAD_LOCKED", "Comments are locked.", "parent")
    comment = fake._add_comment(parent, user, text)
    return _things([_thing("t1", fake._comment_data(comment))])


def _edit(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    post = fake._posts.get(exchange.params.get("thing_id", ""))
    if post is None or post.deleted:
        raise _HttpError(404)
    if post.author.lower() != user.lower():
        raise _HttpError(403)
    post.body = exchange.params.get("text", "")
    post.edited = fake.clock.now()
    if post.kind == "t1":
        thing = _thing("t1", fake._comment_data(post))
    else:
        thing = _thing("t3", fake._submission_data(post))
    return _things([thing])


def _removed_by_category(post: _Post) -> str | None:
    """Reddit's word for why a post's text is gone: its author deleted it, or a moderator."""
    return "deleted" if post.deleted else "moderator" if post.removed_by else None


def _remove(fake: FakeReddit, exchange: _Exchange) -> JSON:
    """``POST /api/remove``: a moderator of the post's subreddit removes it."""
    user = _require_user(exchange)
    post = fake._posts.get(exchange.params.get("id", ""))
    if post is None:
        raise _HttpError(404)
    sub = fake._subreddits[post.subreddit.lower()]
    if user.lower() not in {name.lower() for name in sub.moderators}:
        raise _HttpError(403)
    post.removed_by = user
    return {}


def _delete(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    post = fake._posts.get(exchange.params.get("id", ""))
    if post is not None and post.author.lower() == user.lower():
        post.deleted = True
    return {}


def _compose(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    to = exchange.params.get("to", "").removeprefix("/u/").removeprefix("u/")
    if to.lower() not in fake._accounts:
        raise _ApiError("USER_DOESNT_EXIST", "that user doesn't exist", "to")
    if not exchange.params.get("subject", "").strip():
        raise _ApiError("NO_SUBJECT", "please enter a subject", "subject")
    if not exchange.params.get("text", "").strip():
        raise _ApiError("NO_TEXT", "we need something here", "text")
    fake._add_message(user, to, exchange.params["subject"], exchange.params["text"], None)
    return {"json": {"errors": []}}


# Which inbox entries each message/ listing shows.
_INBOX_FILTERS: dict[str, Callable[[_InboxEntry], bool]] = {
    "inbox": lambda e: True,
    "unread": lambda e: e.new,
    "messages": lambda e: e.type == "message",
    "mentions": lambda e: e.type == "username_mention",
    "comments": lambda e: e.type == "comment_reply",
    "selfreply": lambda e: e.type == "post_reply",
}


def _message_listing(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    box = exchange.match["box"]
    if box == "sent":
        sent = sorted(
            (m for m in fake._messages.values() if m.author.lower() == user.lower()),
            key=lambda m: -m.seq,
        )
        return fake._paginate(
            [_thing("t4", fake._message_data(m, None)) for m in sent], exchange.params
        )
    keep = _INBOX_FILTERS[box]
    entries = sorted(
        (e for e in fake._inbox if e.recipient.lower() == user.lower() and keep(e)),
        key=lambda e: -e.seq,
    )
    listing = fake._paginate([fake._inbox_thing(e) for e in entries], exchange.params)
    if box == "unread" and exchange.params.get("mark", "").lower() == "true":
        shown = {child["data"]["name"] for child in listing["data"]["children"]}
        for entry in entries:
            if entry.fullname in shown:
                entry.new = False
    return listing


def _mark(new: bool) -> Route:
    def mark(fake: FakeReddit, exchange: _Exchange) -> JSON:
        user = _require_user(exchange)
        wanted = set(exchange.params.get("id", "").split(","))
        for entry in fake._inbox:
            if entry.recipient.lower() == user.lower() and entry.fullname in wanted:
                entry.new = new
        return {}

    return mark


def _read_all(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    for entry in fake._inbox:
        if entry.recipient.lower() == user.lower():
            entry.new = False
    return {}


def _wiki_read(fake: FakeReddit, exchange: _Exchange) -> JSON:
    (sub,) = _subreddits_of(fake, exchange.match["sub"])
    name = exchange.match["page"]
    if fake._moderators_only(sub, name) and not fake._is_moderator(exchange.user, sub):
        raise _HttpError(403, {"reason": "MAY_NOT_VIEW", "message": "Forbidden", "error": 403})
    page = fake._wiki.get((sub.name.lower(), name.lower()))
    if page is None:
        raise _HttpError(404, {"reason": "PAGE_NOT_CREATED", "message": "Not Found", "error": 404})
    editor = fake._accounts.get(page.revision_by.lower())
    return {
        "kind": "wikipage",
        "data": {
            "content_md": page.content,
            "content_html": _render_markdown(page.content, wiki=True),
            "may_revise": fake._may_edit_wiki(exchange.user, sub, name),
            "reason": page.reason,
            "revision_date": page.revision_date,
            "revision_id": page.revision_id,
            "revision_by": _thing(
                "t2",
                {"name": page.revision_by, "id": editor.id if editor else None},
            ),
        },
    }


def _wiki_edit(fake: FakeReddit, exchange: _Exchange) -> JSON:
    user = _require_user(exchange)
    (sub,) = _subreddits_of(fake, exchange.match["sub"])
    page = exchange.params.get("page", "").strip()
    if not fake._may_edit_wiki(user, sub, page):
        raise _HttpError(403)
    if not page:
        raise _HttpError(
            400, {"reason": "INVALID_PAGE_NAME", "message": "Bad Request", "error": 400}
        )
    fake._write_wiki(
        sub, page, exchange.params.get("content", ""), user, exchange.params.get("reason")
    )
    return {}


_WIKI_DEFAULTS: JSON = {"permlevel": 0, "listed": True, "editors": []}


def _wiki_settings(fake: FakeReddit, exchange: _Exchange) -> JSON:
    """``GET`` or ``POST /r/{sub}/wiki/settings/{page}``: moderators only, as on Reddit."""
    user = _require_user(exchange)
    (sub,) = _subreddits_of(fake, exchange.match["sub"])
    if not fake._is_moderator(user, sub):
        raise _HttpError(403, {"reason": "MODERATOR_REQUIRED", "message": "Forbidden"})
    key = (sub.name.lower(), exchange.match["page"].lower())
    settings = dict(fake._wiki_settings.get(key, _WIKI_DEFAULTS))
    if exchange.method == "POST":
        if "permlevel" in exchange.params:
            try:
                settings["permlevel"] = int(exchange.params["permlevel"])
            except ValueError:
                raise _HttpError(400) from None
        if "listed" in exchange.params:
            settings["listed"] = exchange.params["listed"].lower() in ("true", "on", "1")
        fake._wiki_settings[key] = settings
    return {"kind": "wikipagesettings", "data": settings}


_AFTER_ACTION = {Fault.LOST_RESPONSE, Fault.LOST_RESPONSE_500}

_NAME = r"[A-Za-z0-9_-]+"
# (method, path regex, handler): the first match wins.
_ROUTES: list[tuple[str, re.Pattern[str], Route]] = [
    (m, re.compile(p), h)
    for m, p, h in [
        ("POST", r"/api/v1/access_token", _access_token),
        ("GET", r"/api/v1/me", _me),
        ("GET", rf"/user/(?P<name>{_NAME})/about", _user_about),
        ("GET", rf"/user/(?P<name>{_NAME})/comments", _user_comments),
        ("GET", rf"/r/(?P<sub>{_NAME})/about", _subreddit_about),
        ("GET", rf"/r/(?P<sub>{_NAME})/about/moderators", _moderators),
        ("GET", rf"/r/(?P<subs>{_NAME}(?:\+{_NAME})*)/new", _subreddit_new),
        ("GET", rf"/r/(?P<subs>{_NAME}(?:\+{_NAME})*)/comments", _subreddit_comments),
        (
            "GET",
            rf"(?:/r/{_NAME})?/comments/(?P<id>[a-z0-9]+)(?:/{_NAME}(?:/(?P<comment>[a-z0-9]+))?)?",
            _thread,
        ),
        ("POST", r"/api/morechildren", _more_children),
        ("GET", r"/api/morechildren", _more_children),
        ("GET", r"/api/info", _info),
        ("POST", r"/api/submit", _submit),
        ("POST", r"/api/comment", _reply),
        ("POST", r"/api/editusertext", _edit),
        ("POST", r"/api/del", _delete),
        ("POST", r"/api/remove", _remove),
        ("POST", r"/api/compose", _compose),
        (
            "GET",
            r"/message/(?P<box>inbox|unread|messages|sent|mentions|comments|selfreply)",
            _message_listing,
        ),
        ("POST", r"/api/read_message", _mark(new=False)),
        ("POST", r"/api/unread_message", _mark(new=True)),
        ("POST", r"/api/read_all_messages", _read_all),
        (
            "GET",
            rf"/r/(?P<sub>{_NAME})/wiki/settings/(?P<page>{_NAME}(?:/{_NAME})*)",
            _wiki_settings,
        ),
        (
            "POST",
            rf"/r/(?P<sub>{_NAME})/wiki/settings/(?P<page>{_NAME}(?:/{_NAME})*)",
            _wiki_settings,
        ),
        ("GET", rf"/r/(?P<sub>{_NAME})/wiki/(?P<page>{_NAME}(?:/{_NAME})*)", _wiki_read),
        ("POST", rf"/r/(?P<sub>{_NAME})/api/wiki/edit", _wiki_edit),
    ]
]


# -- helpers ---------------------------------------------------------------------


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while number:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
    return out or "0"


def _normalise_path(path: str) -> str:
    path = re.sub(r"/+", "/", path)
    path = path.removesuffix(".json")
    return path.rstrip("/") or "/"


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
    return slug[:50] or "_"


def _int_param(params: dict[str, str], name: str, default: int) -> int:
    try:
        return int(params.get(name) or default)
    except ValueError:
        raise _HttpError(400) from None


def _thing(kind: str, data: JSON) -> JSON:
    return {"kind": kind, "data": data}


def _things(things: list[JSON]) -> JSON:
    """The answer of a successful write: the things it created or changed."""
    return {"json": {"errors": [], "data": {"things": things}}}


def _listing(children: list[JSON], *, after: str | None = None, before: str | None = None) -> JSON:
    return {
        "kind": "Listing",
        "data": {
            "after": after,
            "before": before,
            "dist": len(children),
            "modhash": None,
            "geo_filter": "",
            "children": children,
        },
    }


def _more(parent: str, depth: int, children: list[str], *, continue_thread: bool = False) -> JSON:
    """A ``more`` object: hidden siblings, or "continue this thread" (count 0)."""
    first = "_" if continue_thread else children[0]
    return _thing(
        "more",
        {
            "count": len(children),
            "name": f"t1_{first}",
            "id": first,
            "parent_id": parent,
            "depth": depth,
            "children": children,
        },
    )


def _render_markdown(text: str, *, self_post: bool = False, wiki: bool = False) -> str:
    """Render Markdown the way a reader would see it: escaped paragraphs only."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p]
    inner = "\n\n".join(f"<p>{html.escape(p, quote=False)}</p>" for p in paragraphs)
    if wiki:
        return f'<div class="md wiki">{inner}\n</div>'
    rendered = f'<div class="md">{inner}\n</div>'
    return f"<!-- SC_OFF -->{rendered}<!-- SC_ON -->" if self_post else rendered


def _legacy_escape(value: Any) -> Any:
    """Escape ``& < >`` in every string, as Reddit does unless ``raw_json=1``."""
    if isinstance(value, str):
        return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if isinstance(value, list):
        return [_legacy_escape(v) for v in value]
    if isinstance(value, dict):
        return {k: _legacy_escape(v) for k, v in value.items()}
    return value


@functools.cache
def _timeout_requestor_class() -> type:
    """Return a prawcore Requestor that always applies its own timeout."""
    from prawcore import Requestor

    class TimeoutRequestor(Requestor):
        """Honour ``timeout``, which prawcore's Session overrides with 16 s."""

        def request(self, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
            return super().request(*args, timeout=self.timeout, **kwargs)

    return TimeoutRequestor


class _SleepRecorder(ModuleType):
    """Stands in for the ``time`` module: records ``sleep``, delegates the rest."""

    def __init__(self, real: ModuleType, slept: list[float]) -> None:
        super().__init__("time")
        self._real = real
        self._slept = slept

    def sleep(self, seconds: float) -> None:
        self._slept.append(seconds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextmanager
def client_sleeps() -> Iterator[list[float]]:
    """Record, instead of sleeping, the waits PRAW and prawcore take.

    prawcore sleeps before retrying a failed request and when its rate limiter
    thinks the budget is spent; PRAW sleeps before retrying after a short
    RATELIMIT error. Inside this block those sleeps return at once and their
    durations are appended to the yielded list. It patches module globals, so
    it is not safe to use from two threads at once.
    """
    import time

    import praw.reddit
    import prawcore.rate_limit
    import prawcore.sessions

    slept: list[float] = []
    recorder = _SleepRecorder(time, slept)
    modules: list[Any] = [prawcore.sessions, prawcore.rate_limit, praw.reddit]
    originals = [m.time for m in modules]
    for module in modules:
        module.time = recorder
    try:
        yield slept
    finally:
        for module, original in zip(modules, originals, strict=True):
            module.time = original
