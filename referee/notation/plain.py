"""Plain rolls compiled: ``2d6+3`` or ``(1d20+5)*2`` rolled and totalled by one function.

Most rolls at a table add and multiply plain dice and numbers: no dice kept, rerolled
or exploded, no division, no comparison. For such a tree, rolling with the general
roller (:mod:`referee.notation.roll`) spends most of its time finding out what each
node is: a dispatch a node, a ``total`` read through every level. Here a plain tree
is compiled once (trees come from the parse cache, so once an expression) into one
Python function that draws its dice in the same order, builds the same rolled tree
and computes the total in one arithmetic expression, as Jinja compiles a template.
Any other tree, or a roll over the campaign's dice limit, goes to the general roller.

The generated source names only the dice's counts and sides (whole numbers the parser
already capped) and constants handed in by name; nothing a player wrote is in it.

>>> from referee.base.dice import FixedDice
>>> from referee.notation.parse import parse_expression
>>> rolled = roll_expression(parse_expression("(1d20+5)*2"), FixedDice([12]))
>>> rolled.total, type(rolled.sets[0]).__name__
(34, 'RolledBinary')
>>> compiled(parse_expression("4d6kh3")) is None  # keeps dice: the general roller
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from referee.base.dice import DiceSource
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.notation.roll import (
    RolledBinary,
    RolledDice,
    RolledExpression,
    RolledGroup,
    RolledLiteral,
    RolledUnary,
    checked_total,
)
from referee.notation.roll import roll_expression as roll_generally
from referee.notation.tree import Binary, Dice, Expression, Group, Literal, Node, Unary

PLAIN_OPERATORS = frozenset(("+", "-", "*"))  # exact on whole numbers, never dividing


class Compiled(NamedTuple):
    """A plain tree's roller and how many dice one roll draws (against ``max_rolls``)."""

    roll: Callable[[Callable[[int], int], Callable[[int, int], list[int]]], tuple[Any, Any]]
    dice: int


class _Source:
    """The source text of a plain tree's roller, built by walking the tree once."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {
            "RL": RolledLiteral,
            "RD": RolledDice,
            "RG": RolledGroup,
            "RU": RolledUnary,
            "RB": RolledBinary,
        }
        self.draws: list[str] = []  # one line a dice term, in the order they are drawn
        self.dice = 0

    def name(self, value: Any) -> str:
        name = f"c{len(self.names)}"
        self.names[name] = value
        return name

    def visit(self, node: Node) -> tuple[str, str] | None:
        """The node's rolled-tree source and total source; None if the node is not plain.

        Each total is what the rolled node's ``total`` property gives (see
        :mod:`referee.notation.roll`): a term's sum, a literal's value, one item's total
        or the sum of a set's, the operator applied.
        """
        if isinstance(node, Literal):
            name = self.name(node)
            return f"RL({name})", self.name(node.value)
        if isinstance(node, Dice):
            if node.operations:
                return None
            faces = f"f{len(self.draws)}"
            if node.count == 1:  # a lone die is drawn alone, as the general roller does
                self.draws.append(f"{faces} = [one({node.sides})]")
                total = f"{faces}[0]"
            else:
                self.draws.append(f"{faces} = many({node.sides}, {node.count})")
                total = f"sum({faces})"
            self.dice += node.count
            return f"RD({self.name(node)}, {faces})", total
        if isinstance(node, Group):
            if node.operations:
                return None
            items = [self.visit(item) for item in node.items]
            if any(item is None for item in items):
                return None
            rolled = ", ".join(item[0] for item in items)  # type: ignore[index]
            totals = [item[1] for item in items]  # type: ignore[index]
            total = totals[0] if len(totals) == 1 else f"sum([{', '.join(totals)}])"
            return f"RG({self.name(node)}, [{rolled}])", total
        if isinstance(node, Unary):
            operand = self.visit(node.operand)
            if operand is None:
                return None
            total = f"(-{operand[1]})" if node.op == "-" else operand[1]
            return f"RU({self.name(node)}, {operand[0]})", total
        if isinstance(node, Binary):
            if node.op not in PLAIN_OPERATORS:
                return None
            left, right = self.visit(node.left), self.visit(node.right)
            if left is None or right is None:
                return None
            total = f"({left[1]} {node.op} {right[1]})"
            return f"RB({self.name(node)}, {left[0]}, {right[0]})", total
        return None


def _compile(root: Node) -> Compiled | None:
    source = _Source()
    try:
        visited = source.visit(root)
        if visited is None:
            return None
        lines = ["def roll(one, many):", *(f"    {line}" for line in source.draws)]
        lines.append(f"    return {visited[0]}, {visited[1]}")
        namespace = dict(source.names)
        exec("\n".join(lines), namespace)  # numbers and our own names only
    except (RecursionError, SyntaxError, MemoryError):
        # Nested deeper than Python compiles (a campaign's raised limits): roll generally.
        return None
    return Compiled(namespace["roll"], source.dice)


# Expressions come from the parse cache, so the same object returns for the same text:
# looked up by identity (hashing a tree hashes all of it), each kept beside its entry so
# a reused id cannot match.
_COMPILED: dict[int, tuple[Expression, Compiled | None]] = {}


def compiled(expression: Expression) -> Compiled | None:
    """The compiled roller of ``expression``'s tree, or None if the tree is not plain."""
    known = _COMPILED.get(id(expression))
    if known is not None and known[0] is expression:
        return known[1]
    made = _compile(expression.root)
    if len(_COMPILED) >= 1024:
        _COMPILED.clear()
    _COMPILED[id(expression)] = (expression, made)
    return made


def _one_by_one(roll: Callable[[int], int]) -> Callable[[int, int], list[int]]:
    """A term's dice from a source without ``roll_many``: one ``roll`` a die, in order."""
    return lambda sides, count: [roll(sides) for _ in range(count)]


def roll_expression(
    expression: Expression,
    dice: DiceSource,
    limits: Limits = DEFAULT_LIMITS,
    rate: Callable[[Expression, int], Any] | None = None,
) -> RolledExpression:
    """:func:`referee.notation.roll.roll_expression`, a plain single roll compiled.

    The same dice drawn in the same order, the same rolled tree and total; a tree that
    is not plain, a repeated roll (``6x ...``) or one over ``limits.max_rolls`` dice
    is rolled by the general roller.

    >>> from referee.base.dice import FixedDice
    >>> from referee.notation.parse import parse_expression
    >>> roll_expression(parse_expression("2d6+3"), FixedDice([2, 5])).total
    10
    """
    known = _COMPILED.get(id(expression))  # compiled(), inline: a call less a roll
    plan = known[1] if known is not None and known[0] is expression else compiled(expression)
    if plan is None or plan.dice > limits.max_rolls or expression.repeat != 1:
        return roll_generally(expression, dice, limits, rate)
    one = dice.roll
    many = getattr(dice, "roll_many", None) or _one_by_one(one)
    rolled, total = plan.roll(one, many)
    if expression.guarded:  # a product: held to max_total as the general roller holds it
        most = limits.max_total
        total = int(total) if -most <= total <= most else checked_total(rolled, limits)
    else:
        total = int(total)
    odds = () if rate is None else (rate(expression, total),)
    # The named tuple's own __new__ is a Python call: the same tuple, made directly.
    return _new_rolled(RolledExpression, (expression, (rolled,), (total,), total, odds))


_new_rolled = tuple.__new__
