"""Step budgets for the work a player's text can cause, counted in steps, never timed.

Reading a tag is linear in its length, but the help around it is a search: the
nearest dice notation to an unreadable roll, the verb or name a slip was meant to be,
the words of a label. Each search spends steps from an :class:`Effort` with a budget
set in :class:`~referee.base.limits.Limits`; past it the search gives up and the reply says
the plain thing (what could not be read and the right form), never a worse error.

Every search of one tag also spends from the tag's own meter, which the pipeline opens
around the tag (:func:`metered`), and every tag of one post from the post's. So the
work one tag may cause, and one post, is bounded however the searches nest, and a test
can read what a tag spent (:attr:`Effort.spent`) instead of timing it.

>>> with metered(100) as tag:
...     search = Effort(30)
...     search.spend(20), search.spend(20), tag.spent
(True, False, 20)

Some work has a larger budget of its own, kept apart from the searches' (a trikus test's
chances may take a second): it spends from a *side allowance* of the post's meter
(:meth:`Effort.side`), so a post of many such tags stays bounded too.

>>> with metered(100) as post:
...     chance = Effort(500, parent=post.side("chance", 800))
...     chance.spend(400), post.spent, post.side("chance", 800).left
(True, 0, 400)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token

__all__ = ["Effort", "close_meter", "current", "metered", "open_meter", "outermost"]


class Effort:
    """Steps spent against a budget, and against every enclosing meter's budget.

    An effort made inside :func:`metered` spends from the open meter too, so a search
    stops as soon as either its own budget or the tag's (or the post's) is spent.
    """

    __slots__ = ("budget", "parent", "sides", "spent")

    def __init__(self, budget: int, parent: Effort | None = None, *, alone: bool = False) -> None:
        """``parent``: the meter also charged, by default the innermost open one (none
        with ``alone``)."""
        self.budget = budget
        self.spent = 0
        self.parent = None if alone else _CURRENT.get() if parent is None else parent
        self.sides: dict[str, Effort] | None = None

    @property
    def left(self) -> int:
        """Steps this effort may still spend, its meters' budgets included."""
        left = self.budget - self.spent
        return left if self.parent is None else min(left, self.parent.left)

    def spend(self, steps: int) -> bool:
        """Spend ``steps`` if every budget allows them; False (nothing spent) if not.

        A search that is told False gives up: it keeps what it found so far, if
        anything, and does no more work.
        """
        if steps > self.left:
            self.spent = self.budget  # spent out: later asks fail at once
            return False
        self.spent += steps
        if self.parent is not None:
            self.parent._charge(steps)
        return True

    def side(self, name: str, budget: int) -> Effort:
        """This meter's separate allowance ``name`` of ``budget`` steps, made on first use.

        Work with a budget larger than a tag's (a trikus test's chances) spends from the
        post meter's side allowance, not from the meter itself: the searches keep their
        budget, and every such tag of the post shares the allowance.
        """
        if self.sides is None:
            self.sides = {}
        found = self.sides.get(name)
        if found is None:
            found = self.sides[name] = Effort(budget, alone=True)
        return found

    def _charge(self, steps: int) -> None:
        self.spent += steps
        if self.parent is not None:
            self.parent._charge(steps)


_CURRENT: ContextVar[Effort | None] = ContextVar("referee_effort", default=None)


def current() -> Effort | None:
    """The innermost open meter (a tag's, a post's), or None outside the pipeline."""
    return _CURRENT.get()


def open_meter(budget: int) -> Token[Effort | None]:
    """Open a meter of ``budget`` steps until :func:`close_meter`: the cheap form the
    pipeline opens for every tag (``with metered(...)`` reads better everywhere else)."""
    return _CURRENT.set(Effort(budget))


def close_meter(token: Token[Effort | None]) -> None:
    """Close the meter :func:`open_meter` opened."""
    _CURRENT.reset(token)


def outermost() -> Effort | None:
    """The outermost open meter (a post's, in the pipeline), or None outside the pipeline.

    Work that has a budget of its own per tag (the exact odds of a roll) spends from the
    post's meter alone, so a post of many such tags stays bounded as a whole.
    """
    meter = _CURRENT.get()
    while meter is not None and meter.parent is not None:
        meter = meter.parent
    return meter


@contextmanager
def metered(budget: int) -> Iterator[Effort]:
    """Open a meter of ``budget`` steps for what runs inside (a post, a test's tag)."""
    token = open_meter(budget)
    try:
        meter = _CURRENT.get()
        assert meter is not None  # just opened
        yield meter
    finally:
        close_meter(token)
