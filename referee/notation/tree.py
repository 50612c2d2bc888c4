"""Dice notation's syntax tree: the frozen nodes a parsed roll is made of.

:mod:`referee.notation.parse` builds these from text, :mod:`referee.notation.roll`
rolls them and :mod:`referee.notation.odds` counts their outcomes. Each node prints
as d20 would write it, so ``str(tree)`` is the normalised roll.

>>> str(Dice(4, 6, (Operation("k", (Selector("h", 3),)),)))
'4d6kh3'
"""

from __future__ import annotations

from dataclasses import dataclass

Number = int | float


@dataclass(frozen=True)
class Selector:
    """Which dice or items an operation picks: ``cat`` and ``n`` as in ``h3`` or ``<2``."""

    cat: str  # "" exactly n, "h"/"l" the n highest/lowest, or "<", ">", "<=", ">="
    n: int

    def __str__(self) -> str:
        return f"{self.cat}{self.n}"

    def matches(self, value: Number) -> bool:
        """Whether a value selector (exact, <, >, <=, >=) picks ``value``; h/l never do."""
        cat, n = self.cat, self.n
        if cat == "":
            return value == n
        if cat == "<":
            return value < n
        if cat == ">":
            return value > n
        if cat == "<=":
            return value <= n
        return cat == ">=" and value >= n


@dataclass(frozen=True)
class Operation:
    """One operation on dice or a set, such as ``kh3`` or ``ro<2`` (selectors are unioned)."""

    op: str  # k keep, p drop, rr/ro/ra reroll, e explode, mi/ma clamp, t/f count
    selectors: tuple[Selector, ...]

    def __str__(self) -> str:
        return "".join(f"{self.op}{selector}" for selector in self.selectors)


@dataclass(frozen=True)
class Literal:
    """A number as written: ``3`` or ``0.5``."""

    value: Number
    annotations: tuple[str, ...] = ()

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Dice:
    """``count`` dice of ``sides`` faces and the operations applied to them in order."""

    count: int
    sides: int
    operations: tuple[Operation, ...] = ()
    annotations: tuple[str, ...] = ()

    def __str__(self) -> str:
        ops = "".join(str(op) for op in self.operations)
        return f"{self.count}d{self.sides}{ops}"


@dataclass(frozen=True)
class Group:
    """A set ``(a, b)`` or a parenthesised ``(a)``; ``k``/``p`` select among its items."""

    items: tuple[Node, ...]
    operations: tuple[Operation, ...] = ()
    parenthesised: bool = False  # "(a)": one value, whose own dice k/p select from
    annotations: tuple[str, ...] = ()

    def __str__(self) -> str:
        inner = ", ".join(str(item) for item in self.items)
        if len(self.items) == 1 and not self.parenthesised:
            inner += ","
        ops = "".join(str(op) for op in self.operations)
        return f"({inner}){ops}"


@dataclass(frozen=True)
class Unary:
    """``-x`` or ``+x``."""

    op: str
    operand: Node

    def __str__(self) -> str:
        return f"{self.op}{self.operand}"


@dataclass(frozen=True)
class Binary:
    """``left op right`` for arithmetic and comparisons."""

    op: str  # + - * / // % == != < > <= >=
    left: Node
    right: Node

    def __str__(self) -> str:
        if self.op in COMPARISONS:
            return f"{self.left} {self.op} {self.right}"
        return f"{self.left}{self.op}{self.right}"


Node = Literal | Dice | Group | Unary | Binary
COMPARISONS = frozenset(("==", "!=", "<", ">", "<=", ">="))


@dataclass(frozen=True)
class Expression:
    """A parsed roll: its tree, normalised text, label and how many times it is rolled.

    ``text`` is the roll as d20 would write it, without annotations or label.
    """

    root: Node
    text: str
    label: str = ""  # a comment after the roll, such as "to climb the wall"
    repeat: int = 1  # "6x 4d6kh3" rolls the tree 6 times, each shown
    guarded: bool = False  # it multiplies or divides: its totals are checked when rolled
