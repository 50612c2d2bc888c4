"""Verdicts: what resolving one tag produced, before anyone formats it.

A verdict never formats itself; :mod:`referee.render.renderer` turns it into Markdown through
the template named by ``kind``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from referee.base.dice import Draw
from referee.system.interface import Change

if TYPE_CHECKING:  # a verdict names its tag; the parsing stage is not needed to hold one
    from referee.read.tags import Tag
    from referee.resolve.tracker import Combatant


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
    # Every store record the tag wrote, (table, key, before, after): what [[void]] undoes.
    writes: tuple[tuple[str, str, Any, Any], ...] = ()
    tracker: Any = None  # what an initiative roll did to the thread's tracker (a turn note)
    internal_error: str = ""  # a bug's description (referee.pipeline.failures.describe), for the GM

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
    # The thread's initiative combatants (referee.resolve.tracker.Combatant) the verdicts concern
    # that have conditions: the reply echoes them, whatever the dice system.
    conditions: tuple[Combatant, ...] = ()
