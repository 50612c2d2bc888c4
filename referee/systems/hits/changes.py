"""Change sets: what a ``hits`` rule changed, field by field, for a verdict to show.

Rules never mutate. Each returns new frozen values and the :class:`Change` rows between
the old and the new ones, which :func:`diff` computes so no rule can forget one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Change:
    """One field of one subject (a character, the scene, a timer) before and after."""

    subject: str  # a character's name, "scene", "chapter", "timer <name>", "duel <id>"
    field: str
    before: Any
    after: Any


def diff(subject: str, before: Any, after: Any) -> tuple[Change, ...]:
    """The changed fields between two values of the same dataclass, in field order.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Tally:
    ...     a: int
    ...     b: int
    >>> diff("t", Tally(1, 2), Tally(1, 3))
    (Change(subject='t', field='b', before=2, after=3),)
    """
    return tuple(
        Change(subject, f.name, getattr(before, f.name), getattr(after, f.name))
        for f in fields(before)
        if getattr(before, f.name) != getattr(after, f.name)
    )
