"""What a ``pool`` thread and campaign remember between posts, as stored JSON records.

* :class:`ThreadState` (table ``pool_threads``, keyed by the thread's fullname): the
  GM's standing difficulty and whether Willpower may be spent, the GM's word on a
  character's next roll (:class:`Call`), the thread's extended tasks and contests, and
  resisted rolls declared by one side while the other's owner has not declared his yet.
* :class:`SessionState` (table ``pool_campaign``, key ``session``): the number of the
  session the GM started last (R-33's free botch returns with each).

Records carry a ``version``; a later shape reads the old one.

>>> state = ThreadState(difficulty=7)
>>> ThreadState.from_dict(state.to_dict()) == state
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.base.errors import StoreError
from referee.system.validation import check_version

from .contests import Contest, Status, Task
from .rolls import PoolSpec, RollRequest

THREADS = "pool_threads"
CAMPAIGN = "pool_campaign"
SESSION_KEY = "session"
THREAD_VERSION = 1
SESSION_VERSION = 1


def request_to_dict(request: RollRequest) -> dict[str, Any]:
    """A roll request as JSON-ready data (a pending side keeps it until the other declares).

    >>> r = RollRequest(PoolSpec(("wits",), None, 1), "Kara", 7, 0, True)
    >>> request_from_dict(request_to_dict(r)) == r
    True
    """
    pool = request.pool
    return {
        "traits": list(pool.traits),
        "dice": pool.dice,
        "modifier": pool.modifier,
        "roller": request.roller,
        "difficulty": request.difficulty,
        "difficulty_modifier": request.difficulty_modifier,
        "willpower": request.willpower,
        "willpower_allowed": request.willpower_allowed,
        "reflexive": request.reflexive,
        "turn": request.turn,
    }


def request_from_dict(data: Mapping[str, Any]) -> RollRequest:
    """A request from :func:`request_to_dict`'s data."""
    pool = PoolSpec(tuple(str(t) for t in data["traits"]), data["dice"], int(data["modifier"]))
    return RollRequest(
        pool,
        roller=str(data["roller"]),
        difficulty=data["difficulty"],
        difficulty_modifier=int(data["difficulty_modifier"]),
        willpower=bool(data["willpower"]),
        willpower_allowed=bool(data.get("willpower_allowed", True)),
        reflexive=bool(data["reflexive"]),
        turn=data["turn"],
    )


@dataclass(frozen=True)
class Pending:
    """One side of a resisted roll, declared; it rolls when the opponent declares his."""

    roller: str  # the declaring character
    opponent: str  # the character he resists
    request: RollRequest
    post: str  # the post that declared it


@dataclass(frozen=True)
class Call:
    """The GM's word on one character's next roll in a thread (R-32: "The GM may forbid it
    for a roll"): its difficulty, and whether Willpower may be spent on it."""

    difficulty: int | None = None  # None: the thread's standing difficulty (else 6)
    willpower_allowed: bool = True


@dataclass(frozen=True)
class ThreadState:
    """A thread's standing difficulty, tasks, contests and half-declared resisted rolls."""

    difficulty: int | None = None  # the GM's standing difficulty; None: 6
    willpower_allowed: bool = True  # False: the GM forbade Willpower in this thread
    tasks: Mapping[str, Task] = field(default_factory=dict)  # by casefolded name
    contests: Mapping[str, Contest] = field(default_factory=dict)  # by casefolded name
    pending: tuple[Pending, ...] = ()
    # The GM's word on a character's next roll here, by casefolded name (used by it once).
    calls: Mapping[str, Call] = field(default_factory=dict)

    @property
    def open_tasks(self) -> tuple[Task, ...]:
        return tuple(t for t in self.tasks.values() if t.status is Status.OPEN)

    @property
    def open_contests(self) -> tuple[Contest, ...]:
        return tuple(c for c in self.contests.values() if c.status is Status.OPEN)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": THREAD_VERSION,
            "difficulty": self.difficulty,
            "willpower_allowed": self.willpower_allowed,
            "tasks": {key: task.to_dict() for key, task in self.tasks.items()},
            "contests": {key: contest.to_dict() for key, contest in self.contests.items()},
            "pending": [
                {
                    "roller": p.roller,
                    "opponent": p.opponent,
                    "request": request_to_dict(p.request),
                    "post": p.post,
                }
                for p in self.pending
            ],
            "calls": {
                key: {"difficulty": c.difficulty, "willpower_allowed": c.willpower_allowed}
                for key, c in self.calls.items()
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> ThreadState:
        """A thread's state from :meth:`to_dict`'s data (None: a thread with none yet)."""
        if data is None:
            return cls()
        data = check_version(data, THREAD_VERSION, "pool thread")
        try:
            return cls(
                difficulty=data["difficulty"],
                willpower_allowed=bool(data["willpower_allowed"]),
                tasks={str(k): Task.from_dict(v) for k, v in data["tasks"].items()},
                contests={str(k): Contest.from_dict(v) for k, v in data["contests"].items()},
                pending=tuple(
                    Pending(
                        str(p["roller"]),
                        str(p["opponent"]),
                        request_from_dict(p["request"]),
                        str(p["post"]),
                    )
                    for p in data["pending"]
                ),
                calls={  # a record from before calls has none
                    str(k): Call(v["difficulty"], bool(v["willpower_allowed"]))
                    for k, v in data.get("calls", {}).items()
                },
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise StoreError(f"A stored pool thread is malformed: {error!r}") from error


@dataclass(frozen=True)
class SessionState:
    """The campaign's session count."""

    number: int = 0  # sessions the GM started with [[session]]

    def to_dict(self) -> dict[str, Any]:
        return {"version": SESSION_VERSION, "number": self.number}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SessionState:
        if data is None:
            return cls()
        data = check_version(data, SESSION_VERSION, "pool session")
        try:
            return cls(int(data["number"]))
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(f"A stored pool session is malformed: {error!r}") from error
