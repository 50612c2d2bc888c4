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

    # Every tag makes a verdict. A frozen dataclass's generated __init__ sets each field
    # through object.__setattr__, 1.0 µs for these twelve; filling the instance dict
    # directly gives the same frozen value in half the time. It takes the fields
    # above, in order, with their defaults (tests/test_verdicts.py holds it to them).
    def __init__(
        self,
        tag: Tag,
        roll_id: str,
        kind: str,
        result: Any = None,
        chance: Fraction | None = None,
        changes: tuple[Change, ...] = (),
        draws: tuple[Draw, ...] = (),
        problem: str = "",
        usage: str = "",
        writes: tuple[tuple[str, str, Any, Any], ...] = (),
        tracker: Any = None,
        internal_error: str = "",
    ) -> None:
        fields = self.__dict__  # one store a field: no keyword dict built and copied
        fields["tag"] = tag
        fields["roll_id"] = roll_id
        fields["kind"] = kind
        fields["result"] = result
        fields["chance"] = chance
        fields["changes"] = changes
        fields["draws"] = draws
        fields["problem"] = problem
        fields["usage"] = usage
        fields["writes"] = writes
        fields["tracker"] = tracker
        fields["internal_error"] = internal_error

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
