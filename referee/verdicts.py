"""Verdicts: what resolving one tag produced, before anyone formats it.

A verdict never formats itself; :mod:`referee.render` turns it into Markdown through
the template named by ``kind``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .dice import Draw

if TYPE_CHECKING:  # a verdict names its tag; the parsing stage is not needed to hold one
    from .tags import Tag


@dataclass(frozen=True)
class Change:
    """A character's wounds and state before and after a verdict."""

    name: str
    wounds_before: int
    wounds_after: int
    state_before: str
    state_after: str
    penalty_after: int = 0  # the pain-shock penalty the character now rolls with


@dataclass(frozen=True)
class Verdict:
    """One resolved (or refused) tag."""

    tag: Tag
    roll_id: str
    kind: str  # the template to render with: dice, stat, initiative, attack, cast, problem
    result: Any = None  # the rules' own result value; None for a problem
    chance: Fraction | None = None  # the headline exact chance, when there is one
    changes: tuple[Change, ...] = ()
    draws: tuple[Draw, ...] = ()
    problem: str = ""  # for kind "problem": what is wrong, written for the player
    usage: str = ""  # for kind "problem": the right form of the verb

    @property
    def failed(self) -> bool:
        return self.kind == "problem"


@dataclass(frozen=True)
class Reply:
    """Everything the bot says in answer to one post."""

    post_fullname: str
    author: str
    verdicts: tuple[Verdict, ...]
    notes: tuple[str, ...] = ()  # plain sentences, e.g. about a post edited after rolling
