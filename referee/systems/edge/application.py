"""``edge`` characters as the core keeps them: the application sheet, the stored record, checks.

A player applies with a code block of ``key: value`` lines under ``[[apply]]``::

    ```
    name: Kara Venn
    cool: 2
    hard: -1
    hot: 1
    sharp: 1
    weird: 0
    policy: up          # optional: when the advantage die is spent (R-39)
    ```

Stats are the campaign's (``[rulings] stats``; a stat left out is 0). Counters,
the advantage die and the policy are play state: a new character starts with
advantage 1, no counters and the campaign's default policy (``policy`` unset means
exactly that, so a later change of ``default_policy`` reaches it).

One :class:`EdgeCharacter` is the approved sheet and its state together; the store
keeps it as one versioned JSON record (:meth:`EdgeSheet.to_record`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from referee.base.errors import UserError
from referee.base.limits import DEFAULT_LIMITS, Limits, read_int
from referee.read.sheets import read_key_values
from referee.system.validation import check_version
from referee.systems.changes import Change

from .moves import Actor, Pending, Table
from .rulings import Policy
from .sheet import ADVANTAGE_MIN, Sheet, State, sheet_problems, state_problems

RECORD_VERSION = 1
MAX_SHEET_LINES = 40
_KINDS = ("pc", "npc")

SHEET_FORM = (
    "Put the sheet in a code block (``` lines above and below) with one `key: value` per "
    "line: `name: Kara Venn`, then each stat of the campaign with its value (`cool: 2`), "
    "and optionally `policy: up` (up, hit, strong, always or never)."
)


@dataclass(frozen=True)
class EdgeCharacter:
    """An approved sheet and what play has changed on it."""

    name: str
    kind: str = "pc"  # "pc" (a player's) or "npc" (a GM's)
    stats: Mapping[str, int] = field(default_factory=dict)  # a stat left out is 0
    advantage: int = ADVANTAGE_MIN  # the advantage die, 1-6
    policy: Policy | None = None  # the standing policy; None: the campaign's default
    counters: Mapping[str, int] = field(default_factory=dict)  # a counter left out is 0
    # How many times the advantage was set outright (spent, set by the GM, reset at an
    # encounter's end): a voided tag's advantage comes back only if none happened since.
    resets: int = 0
    # R-39 "ask": a move rolled without a policy, waiting for its player's edge or keep.
    pending: Pending | None = None

    def actor(self, table: Table) -> Actor:
        """The character as the rules engine reads it, under the campaign's rulings."""
        policy = self.policy or table.rulings.default_policy
        return Actor(
            Sheet(self.name, self.stats), State(self.advantage, policy, dict(self.counters))
        )

    def changed(self, changes: tuple[Change, ...]) -> EdgeCharacter:
        """The character with the engine's changes to it applied, each checked against now.

        >>> kara = EdgeCharacter("Kara", advantage=4)
        >>> kara.changed((Change("character", "Kara", "advantage", 4, 1),)).advantage
        1
        """
        character = self
        for change in changes:
            if change.name != self.name:
                continue
            current = getattr(character, change.key)
            if change.key == "policy" and current is None:
                current = change.before  # the default was in force
            if current != change.before:
                raise ValueError(f"{self.name}: {change.key} is {current!r}, not {change.before!r}")
            character = replace(character, **{change.key: change.after})  # type: ignore[arg-type]
        return character


def _pending(data: Any) -> Pending | None:
    """A stored waiting move (:meth:`Pending.to_dict`'s shape), or None."""
    return None if data is None else Pending.from_dict(data)


def _number(value: str, what: str, limits: Limits) -> int:
    return read_int(value, what, -limits.max_sheet_number, limits.max_sheet_number)


class EdgeSheet:
    """The :class:`~referee.system.SheetFormat` of ``edge``."""

    form = SHEET_FORM
    # A legal sheet in this format (`referee new` writes it beside a new campaign).
    sample = """\
name: Nova Quill
cool: 1
hard: 2
hot: 0
sharp: 1
weird: -1
"""

    def parse(self, text: str, limits: Limits = DEFAULT_LIMITS, kind: str = "pc") -> dict[str, Any]:
        """A sheet's text as a record of ``kind``; UserError naming every line it cannot read."""
        record: dict[str, Any] = {"kind": kind, "stats": {}}

        def read_line(key: str, value: str) -> None:
            if key == "policy":
                try:
                    record["policy"] = Policy(value.casefold()).value
                except ValueError:
                    choices = ", ".join(p.value for p in Policy)
                    raise UserError(f"policy is one of {choices}.") from None
            elif key in record["stats"]:
                raise UserError(f"{key} is given twice.")
            else:
                record["stats"][key] = _number(value, key, limits)

        record["name"] = read_key_values(text, SHEET_FORM, MAX_SHEET_LINES, limits, read_line)
        return record

    def from_record(self, record: Mapping[str, Any]) -> EdgeCharacter:
        """A stored, shipped or parsed record -> the character; UserError if it is malformed."""
        # A shipped or parsed sheet has no version yet: it is read as the current one.
        check_version({"version": RECORD_VERSION, **record}, RECORD_VERSION, "edge character")
        try:
            policy = record.get("policy")
            return EdgeCharacter(
                name=str(record["name"]),
                kind=str(record.get("kind", "pc")),
                stats={str(k): v for k, v in dict(record.get("stats", {})).items()},
                advantage=record.get("advantage", ADVANTAGE_MIN),
                policy=None if policy is None else Policy(policy),
                counters={str(k): v for k, v in dict(record.get("counters", {})).items()},
                resets=int(record.get("resets", 0)),
                pending=_pending(record.get("pending")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UserError(
                f"An edge character needs a name, stats, and a policy of up, hit, strong, "
                f"always or never ({error})."
            ) from error

    def to_record(self, character: EdgeCharacter) -> dict[str, Any]:
        """The character as the store keeps it (advantage, policy and counters included)."""
        return {
            "version": RECORD_VERSION,
            "name": character.name,
            "kind": character.kind,
            "stats": dict(character.stats),
            "advantage": character.advantage,
            "policy": None if character.policy is None else character.policy.value,
            "counters": dict(character.counters),
            "resets": character.resets,
            **({"pending": character.pending.to_dict()} if character.pending else {}),
        }

    def validate(self, character: EdgeCharacter, rules: Table) -> list[str]:
        """Every way the character breaks the campaign's lists, each a sentence."""
        lists = rules.lists
        stats = {k: v for k, v in character.stats.items() if k not in lists.counters}
        problems = [
            _with_known(p, lists.stats) for p in sheet_problems(Sheet(character.name, stats), lists)
        ]
        for stat in character.stats:
            if stat in lists.counters:
                problems.append(f"{stat} is a counter: a GM sets counters in play.")
        if character.kind not in _KINDS:
            problems.append(f"kind is {character.kind!r}: a character is a pc or an npc.")
        state = State(character.advantage, Policy.UP, character.counters)
        problems += state_problems(state, lists)
        return problems

    def amend(self, character: EdgeCharacter, amendment: str) -> tuple[EdgeCharacter, str]:
        """``[[approve with cool 2]]``: set one stat (checked by the validation that follows)."""
        words = amendment.split()
        if len(words) >= 2 and re.fullmatch(r"[+-]?[0-9]{1,3}", words[-1]):
            stat = " ".join(words[:-1]).casefold()
            value = int(words[-1])
            return replace(character, stats={**character.stats, stat: value}), f"{stat} {value}"
        raise UserError(
            f"'{amendment[:40]}' is not an amendment. Write a stat and a value: cool 2."
        )


def _with_known(problem: str, stats: tuple[str, ...]) -> str:
    """A sheet problem, with the campaign's stats listed when a name was not one of them."""
    if "is not a stat" in problem:
        return problem.rstrip(".") + f"; the stats are {', '.join(stats)}."
    return problem
