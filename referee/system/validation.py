"""What every engine's checks share: one message for many problems, versioned stored records.

A sheet, a config table or an application is checked whole, and every problem is
reported in one message, so a player or GM fixes everything in one go:

>>> print(problems_message("Kara's sheet", ["cool is 9.", "luck is not a stat."]))
Kara's sheet has 2 problems:
- cool is 9.
- luck is not a stat.

Stored state carries a ``version``; :func:`check_version` refuses a record of
another version (or not a record at all) with a :class:`~referee.base.errors.StoreError`
saying what to do, instead of misreading it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.base.errors import StoreError


def problems_message(subject: str, problems: list[str], have: str = "has") -> str:
    """``subject`` followed by its problems, one a line ("have" for a plural subject)."""
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return f"{subject} {have} {count}:\n" + "\n".join(f"- {p}" for p in problems)


def check_version(data: object, version: int, what: str) -> Mapping[str, Any]:
    """``data`` if it is a stored record of ``version``; StoreError naming ``what`` otherwise.

    >>> check_version({"version": 2}, 1, "pool sheet")
    Traceback (most recent call last):
    ...
    referee.base.errors.StoreError: A stored pool sheet has version 2; this referee reads \
version 1. Upgrade referee or restore the store from its backup.
    """
    if not isinstance(data, Mapping) or data.get("version") != version:
        found = data.get("version") if isinstance(data, Mapping) else type(data).__name__
        raise StoreError(
            f"A stored {what} has version {found!r}; this referee reads version {version}. "
            "Upgrade referee or restore the store from its backup."
        )
    return data


def is_whole(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is a whole number (not a bool) from ``low`` to ``high``.

    >>> is_whole(3, 0, 5), is_whole(True, 0, 5), is_whole(2.0, 0, 5)
    (True, False, False)
    """
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high
