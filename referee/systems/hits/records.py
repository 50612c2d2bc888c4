"""Reading stored ``hits`` JSON: every problem of a record collected, none raised half-way.

>>> reader = Reader({"level": "two"}, "the sheet")
>>> reader.get("level", int, 1), reader.problems
(1, ["the sheet: 'level' has the wrong type"])
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

FORMAT_VERSION = 1  # of every hits record: sheets and the campaign state


def listing(what: str, problems: list[str]) -> str:
    """One message naming every problem, for the GM."""
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return f"{what} has {count}:\n" + "\n".join(f"- {p}" for p in problems)


class Reader:
    """Reads fields of a stored mapping, collecting every problem instead of stopping."""

    def __init__(self, data: object, what: str) -> None:
        self.problems: list[str] = []
        self.what = what
        if not isinstance(data, Mapping):
            self.problems.append(f"{what} must be a JSON object, not {type(data).__name__}")
            data = {}
        self.data: Mapping[str, Any] = data

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
        if key not in self.data:
            self.problems.append(f"{self.what} lacks {key!r}")
            return default
        value = self.data[key]
        if isinstance(value, bool) and kind is int:
            value = None  # JSON true is not a number
        if not isinstance(value, kind):
            self.problems.append(f"{self.what}: {key!r} has the wrong type")
            return default
        return value

    def member(self, key: str, enum: type[Enum], default: Any) -> Any:
        raw = self.get(key, str, default.value)
        try:
            return enum(raw)
        except ValueError:
            allowed = ", ".join(m.value for m in enum)
            self.problems.append(f"{self.what}: {key} = {raw!r}, allowed: {allowed}")
            return default

    def check_version(self) -> None:
        version = self.get("version", int, FORMAT_VERSION)
        if version != FORMAT_VERSION:
            self.problems.append(
                f"{self.what} has format version {version!r}; this referee reads {FORMAT_VERSION}"
            )
