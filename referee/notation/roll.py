"""Roll a parsed dice expression: every die drawn from a passed-in source, in order.

Dice are drawn left to right as the tree is written; a group's rerolls and
explosions are drawn when its operations run, in the order they are written. So a
:class:`~referee.base.dice.FixedDice` replays a roll exactly, and the ledger's draws can
be checked against a revealed secret.

The rolled tree is made of small mutable objects (operations drop, reroll and add
dice as they run, as in d20's ``expression.py``); totals are read from it, so a
parenthesised group's total follows what its operations kept.

>>> from referee.base.dice import FixedDice
>>> from referee.notation import parse_expression
>>> rolled = roll_expression(parse_expression("4d6kh3+2"), FixedDice([6, 1, 4, 5]))
>>> rolled.total, [die.value for die in rolled.sets[0].left.dice if not die.kept]
(17, [1])
>>> roll_expression(parse_expression("8d6ro<3"), FixedDice([1, 6, 4, 2, 6, 3, 5, 6, 4, 3])).total
37
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, NamedTuple

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.notation.tree import (
    Binary,
    Dice,
    Expression,
    Group,
    Literal,
    Node,
    Number,
    Operation,
    Selector,
    Unary,
)


class RolledDie:
    """One die as it came up, with what its operations did to it.

    Most dice are never touched by an operation: what they would be set to is a class
    default, and a die holds only what differs (its faces, and what an operation
    changed). A term's dice are made at once (``4d6kh3`` makes four), so this is most of
    what making one costs.
    """

    kept = True  # False when k/p dropped it
    rerolled: list[int] | tuple[()] = ()  # faces rerolled away, oldest first
    forced_from: int | None = None  # the face before mi/ma changed it
    exploded = False  # it triggered another die
    added = False  # it was added by an explosion
    success = 0  # 1 a success, -1 a failure, when t/f count
    marked = False  # any of the four above changed: the verdict shows more than a face

    def __init__(self, sides: int, value: int, added: bool = False) -> None:
        self.sides = sides
        self.value = value
        if added:
            self.added = True

    @property
    def total(self) -> int:
        return self.value if self.kept else 0


class RolledLiteral:
    __slots__ = ("kept", "node")

    def __init__(self, node: Literal) -> None:
        self.node = node
        self.kept = True

    @property
    def number(self) -> Number:
        return self.node.value

    @property
    def total(self) -> Number:
        return self.number if self.kept else 0


class RolledDice:
    """A dice term as rolled: its faces, and its dice once anything asks for them.

    The dice (:class:`RolledDie`, which operations drop, reroll and mark) are made from
    the faces the first time ``dice`` is read: by the term's operations, a set's
    selection or a verdict listing them. A term nothing touches, the usual ``2d6``,
    stays its list of faces.
    """

    __slots__ = ("_dice", "counting", "faces", "kept", "node")

    def __init__(self, node: Dice, faces: list[int]) -> None:
        self.node = node
        self.faces = faces  # as drawn, in order; ``dice`` is the truth once made
        self._dice: list[RolledDie] | None = None
        self.kept = True
        self.counting = False  # t/f: the number is successes minus failures

    @property
    def dice(self) -> list[RolledDie]:
        dice = self._dice
        if dice is None:
            sides = self.node.sides
            dice = self._dice = [RolledDie(sides, face) for face in self.faces]
        return dice

    @property
    def untouched(self) -> list[int] | None:
        """The faces, while no die was asked for (every one kept, none marked); else None."""
        return self.faces if self._dice is None else None

    @property
    def number(self) -> int:
        if self._dice is None:
            return sum(self.faces)
        if self.counting:
            return sum([die.success for die in self._dice if die.kept])
        return sum([die.value for die in self._dice if die.kept])

    @property
    def total(self) -> int:
        return self.number if self.kept else 0


class RolledGroup:
    __slots__ = ("items", "kept", "node")

    def __init__(self, node: Group, items: list[Rolled]) -> None:
        self.node = node
        self.items = items
        self.kept = True

    @property
    def number(self) -> Number:
        items = self.items
        if len(items) == 1:  # a parenthesised value, the usual group
            return items[0].total
        return sum([item.total for item in items])

    @property
    def total(self) -> Number:
        return self.number if self.kept else 0


class RolledUnary:
    __slots__ = ("kept", "node", "operand")

    def __init__(self, node: Unary, operand: Rolled) -> None:
        self.node = node
        self.operand = operand
        self.kept = True

    @property
    def number(self) -> Number:
        value = self.operand.total
        return -value if self.node.op == "-" else value

    @property
    def total(self) -> Number:
        return self.number if self.kept else 0


_BINARY: dict[str, Callable[[Any, Any], Number]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
}


class RolledBinary:
    __slots__ = ("kept", "left", "node", "right")

    def __init__(self, node: Binary, left: Rolled, right: Rolled) -> None:
        self.node = node
        self.left = left
        self.right = right
        self.kept = True

    @property
    def number(self) -> Number:
        try:
            return _BINARY[self.node.op](self.left.total, self.right.total)
        except ZeroDivisionError:
            # Raised where it happens: a set's k/p may read a total before the roll ends.
            raise RuleViolation(
                f"'{self.node}' divides by zero; change the roll so nothing is divided by 0."
            ) from None

    @property
    def total(self) -> Number:
        return self.number if self.kept else 0


Rolled = RolledLiteral | RolledDice | RolledGroup | RolledUnary | RolledBinary


class RolledExpression(NamedTuple):
    """An expression after rolling: one rolled tree per set and each set's total.

    ``total`` is the first set's total for a single roll, else the sum of the sets.
    Totals are cut toward zero to whole numbers, as d20 does.
    """

    expression: Expression
    sets: tuple[Rolled, ...]
    totals: tuple[int, ...]
    total: int
    odds: tuple[Any, ...] = ()  # one notation_odds.Odds per set, when asked for

    def ledger_facts(self) -> dict[str, Any]:
        """What the ledger row keeps beside the dice: the total."""
        return {"total": self.total}


class _Roll:
    """One roll's source and its count of dice drawn, against ``limits.max_rolls``."""

    __slots__ = ("drawn", "many", "most", "roll")

    def __init__(self, dice: DiceSource, limits: Limits) -> None:
        self.roll = dice.roll
        # A source that draws several dice in one call (HmacDice, SeededDice) does so
        # for a term's own dice: the same faces, in the same order, one call a term.
        self.many = getattr(dice, "roll_many", None)
        self.most = limits.max_rolls
        self.drawn = 0

    def draw(self, sides: int) -> int:
        self.drawn += 1
        if self.drawn > self.most:
            self.refuse()
        return self.roll(sides)

    def draw_many(self, sides: int, count: int) -> list[int]:
        """``count`` dice of ``sides`` faces at once (a term's dice, its rerolls), in order."""
        self.drawn += count
        if self.drawn > self.most:
            self.refuse()
        if self.many is not None:
            return self.many(sides, count)
        face = self.roll
        return [face(sides) for _ in range(count)]

    def refuse(self) -> None:
        raise RuleViolation(
            f"This roll needs more than {self.most:,} dice, rerolls and "
            "explosions included; reroll or explode on fewer faces."
        )


# ---------------------------------------------------------------------------- selection


def select(operation: Operation, items: list[Any], first_only: bool = False) -> list[Any]:
    """The kept items an operation's selectors pick, in their order; d20's rules for h/l.

    Among equal values the earlier item counts as higher (and as lower), as in d20's
    stable sort. With ``first_only`` each selector picks at most one item (``ra``).
    """
    kept = [item for item in items if item.kept]
    selectors = operation.selectors
    if len(selectors) == 1 and not first_only:  # the usual operation: kh3, ro<3
        return _pick(selectors[0], kept)
    chosen: list[Any] = []
    seen: set[int] = set()  # ids of chosen items: a die may be picked by two selectors
    for selector in selectors:
        picked = _pick(selector, kept)
        if first_only:
            picked = picked[: max(0, 1 - len(chosen))]
        for item in picked:
            if id(item) not in seen:
                seen.add(id(item))
                chosen.append(item)
    return chosen


def _pick(selector: Selector, kept: list[Any]) -> list[Any]:
    """The items one selector picks among ``kept``, in their order (h/l: highest first)."""
    if selector.cat == "h":
        return sorted(kept, key=_total, reverse=True)[: selector.n]
    if selector.cat == "l":
        return sorted(kept, key=_total)[: selector.n]
    return [item for item in kept if selector.matches(item.total)]


_total = operator.attrgetter("total")


# ---------------------------------------------------------------------------- operations


def _keep(operation: Operation, items: list[Any], roll: _Roll, sides: int) -> None:
    chosen = {id(item) for item in select(operation, items)}
    for item in items:
        if item.kept and id(item) not in chosen:
            item.kept = False


def _drop(operation: Operation, items: list[Any], roll: _Roll, sides: int) -> None:
    for item in select(operation, items):
        item.kept = False


def _reroll(chosen: list[RolledDie], roll: _Roll, sides: int) -> None:
    """Reroll each chosen die once, in order (a term's dice, ``sides`` known, in one draw)."""
    if not chosen:
        return
    if sides:
        faces = roll.draw_many(sides, len(chosen))
    else:  # a set's elements: each die its own
        faces = [roll.draw(die.sides) for die in chosen]
    for die, face in zip(chosen, faces, strict=True):
        die.marked = True
        if die.rerolled:
            die.rerolled.append(die.value)
        else:  # its own list: the class default is an empty tuple
            die.rerolled = [die.value]
        die.value = face


def _reroll_all(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    chosen = select(operation, dice)
    while chosen:
        _reroll(chosen, roll, sides)
        chosen = select(operation, dice)


def _reroll_once(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    _reroll(select(operation, dice), roll, sides)


def _explode(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    done: set[int] = set()  # ids of dice that already exploded
    chosen = select(operation, dice)
    while chosen:
        for die in chosen:
            die.exploded = die.marked = True
            dice.append(RolledDie(sides, roll.draw(sides), added=True))
        done.update(id(die) for die in chosen)
        chosen = [die for die in select(operation, dice) if id(die) not in done]


def _explode_once(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    for die in select(operation, dice, first_only=True):
        die.exploded = die.marked = True
        dice.append(RolledDie(sides, roll.draw(sides), added=True))


def _minimum(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    least = operation.selectors[-1].n
    for die in dice:
        if die.kept and die.value < least:
            die.forced_from, die.value, die.marked = die.value, least, True


def _maximum(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
    most = operation.selectors[-1].n
    for die in dice:
        if die.kept and die.value > most:
            die.forced_from, die.value, die.marked = die.value, most, True


def _count(sign: int) -> Callable[[Operation, list[RolledDie], _Roll, int], None]:
    def count(operation: Operation, dice: list[RolledDie], roll: _Roll, sides: int) -> None:
        for die in dice:
            if (
                die.kept
                and die.success == 0
                and any(s.matches(die.value) for s in operation.selectors)
            ):
                die.success = sign
                die.marked = True

    return count


# What each operation does; t/f mark dice and the group then counts them.
OPERATIONS: dict[str, Callable[[Operation, list[Any], _Roll, int], None]] = {
    "k": _keep,
    "p": _drop,
    "rr": _reroll_all,
    "ro": _reroll_once,
    "ra": _explode_once,
    "e": _explode,
    "mi": _minimum,
    "ma": _maximum,
    "t": _count(1),
    "f": _count(-1),
}


# ---------------------------------------------------------------------------- nodes


def _roll_literal(node: Literal, roll: _Roll) -> RolledLiteral:
    return RolledLiteral(node)


def _roll_dice(node: Dice, roll: _Roll) -> RolledDice:
    sides, count = node.sides, node.count
    # A lone die (1d20) is one call either way.
    faces = [roll.draw(sides)] if count == 1 else roll.draw_many(sides, count)
    rolled = RolledDice(node, faces)
    for operation in node.operations:
        OPERATIONS[operation.op](operation, rolled.dice, roll, sides)
        if operation.op == "t":
            rolled.counting = True
    return rolled


def elements(rolled: Rolled) -> list[Any]:
    """What a set operation selects from: a set's items, a parenthesised value's own.

    As in d20, ``(4d6)kh3`` keeps dice of the 4d6 and ``(1d4, 2)kh1`` keeps an item.
    """
    if isinstance(rolled, RolledGroup):
        if rolled.node.parenthesised:
            return elements(rolled.items[0])
        return rolled.items
    if isinstance(rolled, RolledDice):
        return rolled.dice
    return [rolled]


def _roll_group(node: Group, roll: _Roll) -> RolledGroup:
    rolled = RolledGroup(node, [ROLLERS[type(item)](item, roll) for item in node.items])
    if node.operations:
        items = elements(rolled)
        for operation in node.operations:
            OPERATIONS[operation.op](operation, items, roll, 0)
    return rolled


def _roll_unary(node: Unary, roll: _Roll) -> RolledUnary:
    return RolledUnary(node, ROLLERS[type(node.operand)](node.operand, roll))


def _roll_binary(node: Binary, roll: _Roll) -> RolledBinary:
    left = ROLLERS[type(node.left)](node.left, roll)
    return RolledBinary(node, left, ROLLERS[type(node.right)](node.right, roll))


# How each kind of node is rolled; a new kind of node adds one entry here.
ROLLERS: dict[type, Callable[[Any, _Roll], Rolled]] = {
    Literal: _roll_literal,
    Dice: _roll_dice,
    Group: _roll_group,
    Unary: _roll_unary,
    Binary: _roll_binary,
}


def checked_total(rolled: Rolled, limits: Limits = DEFAULT_LIMITS) -> int:
    """A rolled tree's total as a whole number (cut toward zero), or a message.

    The total is held to ``limits.max_total``; dividing by zero is refused where it
    happens (:class:`RolledBinary`), as d20 refuses it, naming the part that divides.
    (Within the parse limits no part can pass a float's range, so only the total needs
    the check.)
    """
    total = rolled.total
    most = limits.max_total
    if not -most <= total <= most:
        raise RuleViolation(f"'{rolled.node}' comes to more than {most:,}; use smaller numbers.")
    return int(total)


def roll_node(node: Node, dice: DiceSource, limits: Limits = DEFAULT_LIMITS) -> Rolled:
    """Roll one tree with ``dice`` (no checks on the total; see :func:`checked_total`)."""
    return ROLLERS[type(node)](node, _Roll(dice, limits))


def roll_expression(
    expression: Expression,
    dice: DiceSource,
    limits: Limits = DEFAULT_LIMITS,
    rate: Callable[[Expression, int], Any] | None = None,
) -> RolledExpression:
    """Roll ``expression`` with ``dice``, every set in turn, and add up each total.

    >>> from referee.base.dice import FixedDice
    >>> from referee.notation import parse_expression
    >>> roll_expression(parse_expression("2d20kl1-1"), FixedDice([15, 7])).total
    6
    >>> roll_expression(parse_expression("3x 1d6"), FixedDice([2, 5, 3])).totals
    (2, 5, 3)

    ``rate``, given, is called with each set's total for its odds (see
    :func:`referee.notation.odds.odds`).
    """
    root = expression.root
    roller = ROLLERS[type(root)]
    if expression.repeat == 1:
        rolled = roller(root, _Roll(dice, limits))
        # Sums of capped numbers and dice stay far inside max_total and never divide.
        total = checked_total(rolled, limits) if expression.guarded else int(rolled.total)
        odds = () if rate is None else (rate(expression, total),)
        return RolledExpression(expression, (rolled,), (total,), total, odds)
    sets = []
    totals = []
    for _ in range(expression.repeat):
        rolled = roller(root, _Roll(dice, limits))
        sets.append(rolled)
        totals.append(checked_total(rolled, limits) if expression.guarded else int(rolled.total))
    total = totals[0] if len(totals) == 1 else sum(totals)
    odds = () if rate is None else tuple([rate(expression, t) for t in totals])
    return RolledExpression(expression, tuple(sets), tuple(totals), total, odds)
