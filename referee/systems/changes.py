"""What a verdict asks the store to write: explicit changes of state, never a mutation.

A rules engine returns its verdict with a tuple of :class:`Change` values (this
character's Willpower points 5 -> 4, that task's tally 3 -> 7). The caller applies
them with :func:`apply_changes`, which also checks that each ``before`` still holds,
so a change computed against stale state is caught instead of written.

Also here: :func:`find_name`, how every engine matches a name a player typed
(any case; a unique beginning is enough; a typo gets a suggestion).

Not to be confused with :mod:`referee.store.changes`, the store's undo log of one tag: a
:class:`Change` here is a rules engine's statement of what should be written.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Points:
...     left: int
>>> apply_changes(Points(5), "character", "Kara", [Change("character", "Kara", "left", 5, 4)])
Points(left=4)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypeVar

from referee.base.english import with_article
from referee.base.errors import UnknownName
from referee.base.names import NameIndex, name_key

T = TypeVar("T")


@dataclass(frozen=True)
class Change:
    """One field of one stored thing, before and after (values are JSON-serialisable)."""

    subject: str  # what kind of thing changes: "character", "task", "contest"
    name: str  # which one: a character's or a task's name
    key: str  # the field of its state
    before: object
    after: object


def apply_changes(value: T, subject: str, name: str, changes: Iterable[Change]) -> T:
    """``value`` with every change addressed to (``subject``, ``name``) applied, in order.

    Raises ValueError when a change's ``before`` is not the current value: the change
    was computed against other state and must not be written.
    """
    for change in changes:
        if (change.subject, change.name) != (subject, name):
            continue
        current = getattr(value, change.key)
        if current != change.before:
            raise ValueError(
                f"{subject} {name}: {change.key} is {current!r}, not {change.before!r}"
            )
        value = replace(value, **{change.key: change.after})  # type: ignore[type-var]
    return value


def changes_between(subject: str, name: str, before: object, after: object) -> tuple[Change, ...]:
    """One change per field that differs between two values of the same dataclass.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Task:
    ...     tally: int
    ...     turn: int
    >>> changes_between("task", "dig", Task(3, 1), Task(5, 1))
    (Change(subject='task', name='dig', key='tally', before=3, after=5),)
    """
    return tuple(
        Change(subject, name, f.name, getattr(before, f.name), getattr(after, f.name))
        for f in fields(before)  # type: ignore[arg-type]
        if getattr(before, f.name) != getattr(after, f.name)
    )


def find_name(typed: str, names: Sequence[str], what: str, plural: str = "") -> str:
    """The one name of ``names`` that ``typed`` means: equal, or the only one it begins.

    Names compare as :func:`referee.base.names.name_key` folds them; a typo gets the
    campaign's closest names as a suggestion. ``what`` names one of them in a refusal,
    ``plural`` all of them (``what`` + "s").

    >>> find_name("dex", ["dexterity", "dodge"], "trait")
    'dexterity'
    >>> find_name("d", ["dexterity", "dodge"], "trait")
    Traceback (most recent call last):
    ...
    referee.base.errors.UnknownName: 'd' could be dexterity or dodge: write more of the trait.
    >>> find_name("dexterty", ["dexterity", "dodge"], "trait")
    Traceback (most recent call last):
    ...
    referee.base.errors.UnknownName: 'dexterty' is not a trait: did you mean dexterity? \
The traits are dexterity, dodge.
    """
    key = name_key(typed)
    exact = [name for name in names if name_key(name) == key]
    if exact:
        return exact[0]
    matches = [name for name in names if key and name_key(name).startswith(key)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(matches[:-1]) + f" or {matches[-1]}"
        raise UnknownName(f"'{typed}' could be {shown}: write more of the {what}.")
    by_key = {name_key(name): name for name in names}
    guesses = [by_key[guess] for guess in NameIndex(names).suggest(key) if guess in by_key]
    hint = f": did you mean {' or '.join(guesses)}? The" if guesses else "; the"
    known = ", ".join(names)
    raise UnknownName(
        f"'{typed}' is not {with_article(what)}{hint} {plural or what + 's'} are {known}."
    )
