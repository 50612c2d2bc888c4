"""Reading a system's rulings from config.toml: one reader for any frozen rulings dataclass.

A system describes its options as a frozen dataclass whose every field has a default
(RULES.md's ruling). :func:`read_options` builds it from the campaign's ``[rulings]``
table, converting each value by the type of its default:

* an :class:`~enum.Enum` default takes one of the enum's values;
* a ``bool`` takes ``true`` or ``false``;
* an ``int`` takes a whole number, within ``field(metadata={"range": (low, high)})``;
* a ``tuple`` of strings takes a list of non-empty strings, with as many entries as
  ``metadata={"length": (low, high)}`` allows.

The dataclass calls :func:`coerce_options` from its ``__post_init__``, so it holds the
same values however it is built.

Every bad key and every bad value is reported at once, and an unknown key lists the
known ones, so a GM fixes config.toml in one go.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     loud: bool = False
>>> read_options(Demo, {"loud": True}, "demo")
Demo(loud=True)
>>> read_options(Demo, {"lod": True}, "demo")
Traceback (most recent call last):
...
referee.base.errors.ConfigError: The demo rulings in config.toml have 1 problem:
- 'lod' is not a ruling; the demo rulings are loud.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, Field, fields
from enum import Enum
from typing import Any, ClassVar, TypeVar

from referee.base.errors import ConfigError
from referee.system.validation import problems_message

T = TypeVar("T")


def _convert(default: object, value: object, field: Field[Any]) -> object:
    """``value`` as the type of ``default``; ValueError saying what is allowed."""
    if isinstance(default, Enum):
        allowed = [member.value for member in type(default)]
        if value not in allowed:
            raise ValueError("allowed values are " + ", ".join(f'"{a}"' for a in allowed))
        return type(default)(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ValueError("allowed values are true, false")
        return value
    if isinstance(default, int):
        low, high = field.metadata.get("range", (-(10**6), 10**6))
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"allowed values are whole numbers from {low} to {high}")
        return value
    if isinstance(default, tuple):
        low, high = field.metadata.get("length", (0, 100))
        if (
            not isinstance(value, (list, tuple))
            or not low <= len(value) <= high
            or not all(isinstance(item, str) and item.strip() for item in value)
        ):
            raise ValueError(f"allowed values are lists of {low} to {high} non-empty strings")
        return tuple(item.strip() for item in value)
    raise TypeError(f"a ruling's default must be an Enum, bool, int or tuple, not {default!r}")


def _default_of(field: Field[Any]) -> object:
    if field.default_factory is not MISSING:
        return field.default_factory()
    return field.default


def coerce_options(options: object) -> None:
    """Convert every field of a frozen options value by its default's type, in place.

    Called from the dataclass's ``__post_init__``, so a value built directly from plain
    TOML values holds enum members and tuples like one built by :func:`read_options`. Raises
    ValueError naming every bad value.
    """
    problems: list[str] = []
    for field in fields(options):  # type: ignore[arg-type]
        value = getattr(options, field.name)
        try:
            object.__setattr__(options, field.name, _convert(_default_of(field), value, field))
        except ValueError as error:
            problems.append(f"{field.name} = {value!r}: {error}")
    if problems:
        raise ValueError("; ".join(problems))


def read_options(cls: type[T], mapping: object, system: str) -> T:
    """``cls`` built from a config mapping; ConfigError naming every bad key and value."""
    if not isinstance(mapping, Mapping):
        raise ConfigError(f"The {system} rulings in config.toml must be a table of options.")
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    defaults = cls()
    problems: list[str] = []
    values: dict[str, object] = {}
    for key, value in mapping.items():
        field = known.get(key) if isinstance(key, str) else None
        if field is None:
            names = ", ".join(known)
            problems.append(f"{key!r} is not a ruling; the {system} rulings are {names}.")
            continue
        try:
            values[key] = _convert(getattr(defaults, key), value, field)
        except ValueError as error:
            problems.append(f"{key} = {value!r}: {error}.")
    if problems:
        raise ConfigError(
            problems_message(f"The {system} rulings in config.toml", problems, "have")
        )
    return cls(**values)


C = TypeVar("C", bound="ConfigurableMixin")


class ConfigurableMixin:
    """Lets a frozen options dataclass read and write itself in config.toml.

    A subclass names its ``system`` (for messages) and gets :meth:`from_mapping`,
    :meth:`to_mapping`, and a ``__post_init__`` that coerces plain values.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo(ConfigurableMixin):
    ...     system = "demo"
    ...     loud: bool = False
    >>> Demo.from_mapping({"loud": True}).to_mapping()
    {'loud': True}
    """

    system: ClassVar[str]

    def __post_init__(self) -> None:
        coerce_options(self)

    @classmethod
    def from_mapping(cls: type[C], mapping: object) -> C:
        """The options from a config.toml table; ConfigError listing every problem."""
        return read_options(cls, mapping, cls.system)

    def to_mapping(self) -> dict[str, object]:
        """The options as config.toml writes them (the inverse of :meth:`from_mapping`)."""
        return options_mapping(self)


def options_mapping(options: object) -> dict[str, object]:
    """The options as config.toml writes them: the inverse of :func:`read_options`.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Demo:
    ...     names: tuple[str, ...] = ("a", "b")
    >>> options_mapping(Demo())
    {'names': ['a', 'b']}
    """

    def plain(value: object) -> object:
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, tuple):
            return list(value)
        return value

    return {f.name: plain(getattr(options, f.name)) for f in fields(options)}  # type: ignore[arg-type]
