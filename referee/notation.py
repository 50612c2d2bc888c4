"""Generic dice notation: read ``(1d20+5)*2`` or ``4d6kh3`` into a syntax tree.

The pipeline follows avrae/d20, minus the global :mod:`random`: this module parses
text into frozen nodes (checking every size against a :class:`~referee.limits.Limits`
value), :mod:`referee.notation_roll` rolls a tree with a passed-in
:class:`~referee.dice.DiceSource`, :mod:`referee.notation_odds` gives the exact odds
of its total and :mod:`referee.notation_markdown` writes a rolled tree for a verdict.

Every expression d20 reads means the same here, with one deliberate difference:
``d%`` is a hundred-sided die showing 1-100 (d20 rolls a tens die, 0-90). The forms,
case-insensitive (selectors ``S`` are ``N`` exactly N, ``hN``/``lN`` the N highest or
lowest, ``<N``, ``>N``, ``<=N``, ``>=N``):

=================== ================================================ ==================
form                meaning                                          example
=================== ================================================ ==================
``NdX``, ``dX``     N dice of X sides (N defaults to 1; 0 rolls 0)   ``2d6``, ``d20``
``d%``              a hundred-sided die, 1-100                       ``d%``
``kS``, ``pS``      keep / drop (p) the dice or set items selected   ``4d6kh3``, ``4d6pl1``
``khN`` ``klN``     keep the N highest / lowest (N defaults to 1)    ``2d20kh1``
``dhN`` ``dlN``     drop the N highest / lowest (same as ``ph``/``pl``) ``4d6dl1``
``rrS``, ``rS``     reroll until no die is selected                  ``4d6r1``
``roS``             reroll the selected dice once                    ``8d6ro<3``
``raS``             reroll one selected die once and add it          ``1d6ra6``
``eS``, ``!``       explode: each selected die adds another          ``3d6!``, ``3d6e6``
``!S``              explode on the selected faces                    ``3d6!>5``
``miN``, ``maN``    every die at least / at most N                   ``8d6mi2``
``tS``, ``fS``      count successes (bare N: N or more) minus        ``10d10t6``,
                    failures (bare N: N or less)                     ``10d10t>=6f1``
``(a, b, c)``       a set: the sum of its kept items; k/p select     ``(1d6, 1d8)kh1``
``+ - * / // %``    arithmetic; ``/`` divides exactly, the total     ``(1d20+5)*2``
                    is cut toward zero as d20 does
``== != < > <= >=`` comparisons: 1 if true, 0 if false               ``1d20+5 >= 15``
``[text]``          an annotation shown beside the term              ``1d6 [fire]``
``Nx ...``          N separate rolls of the same expression          ``6x 4d6kh3``
``... adv``/``dis`` the leading 1d20 rolled twice, keep the higher   ``1d20+5 adv``
                    (``adv``) or lower (``dis``)
``... words``       a label after the roll, ``#`` optional           ``1d20+5 to climb``
=================== ================================================ ==================

>>> expression = parse_expression("4D6 kh3 + 2 to climb")
>>> expression.text, expression.label
('4d6kh3+2', 'to climb')
>>> parse_expression("(1, 2, 3)k1k2").text
'(1, 2, 3)k1k2'
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from referee.errors import TagError
from referee.limits import DEFAULT_LIMITS, Limits

USAGE = (
    "[[roll 2d6+3]] — NdX dice, kh3/kl1 keep, ro1/rr1 reroll, ! explode, t6 count "
    "successes, + - * / ( ), then a label"
)

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


# ---------------------------------------------------------------------------- parsing

_DICE_OPS: tuple[str, ...] = (
    "rr",
    "ro",
    "ra",
    "mi",
    "ma",
    "kh",
    "kl",
    "ph",
    "pl",
    "dh",
    "dl",
    "k",
    "p",
    "e",
)
_DICE_OPS += ("r", "t", "f", "!")
_SET_OPS = ("kh", "kl", "ph", "pl", "dh", "dl", "k", "p")
_ALIASES = {"r": ("rr", ""), "!": ("e", ""), "kh": ("k", "h"), "kl": ("k", "l")}
_ALIASES |= {"ph": ("p", "h"), "pl": ("p", "l"), "dh": ("p", "h"), "dl": ("p", "l")}
_CATS = ("<=", ">=", "<", ">", "=", "h", "l")
_ADVANTAGE = {"adv": "h", "advantage": "h", "dis": "l", "disadvantage": "l"}
_LABEL_STOP = frozenset("0123456789+-*/%<>=!,().[]")

# Forms other rollers read, with what to write here instead.
_UNSUPPORTED = (
    (
        "!!",
        "compounding explosions (!!) are not supported; write 3d6e6 (each explosion "
        "is a die of its own)",
    ),
    ("!p", "penetrating explosions (!p) are not supported; write 3d6e6-1 for one explosion"),
    ("df", "Fate dice (dF) are not supported; write 4d3-8 for 4dF"),
    ("cs", "critical ranges (cs) are not supported; the verdict shows every die instead"),
    ("cf", "critical ranges (cf) are not supported; the verdict shows every die instead"),
    ("ie", "Dice Maiden's ie is written e here: 5d10e10 explodes every 10"),
    ("ir", "Dice Maiden's ir is written rr here: 4d6rr1 rerolls every 1"),
    ("**", "powers are not supported; multiply instead, like 2*2*2"),
    ("^", "powers are not supported; multiply instead, like 2*2*2"),
    ("x", "write * to multiply, like 2d6*2 (and 6x 4d6kh3 only at the start, to repeat)"),
    ("adv", "adv goes after the roll, like 1d20+5 adv (it rolls 2d20kh1+5)"),
    ("dis", "dis goes after the roll, like 1d20+5 dis (it rolls 2d20kl1+5)"),
)


def _shorten(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class _Parser:
    """Recursive descent over one expression; each method reads one grammar rule."""

    def __init__(self, text: str, limits: Limits) -> None:
        self.text = text
        self.lowered = text.lower()
        self.pos = 0
        self.limits = limits
        self.dice = 0  # dice thrown so far, over every group
        self.terms = 0  # numbers and dice groups so far
        self.depth = 0
        self.guarded = False  # a *, /, // or %: a total may grow or divide by zero

    # -- helpers
    def fail(self, message: str) -> TagError:
        return TagError(message, USAGE)

    def space(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos].isspace():
            pos += 1
        self.pos = pos

    def peek(self, *options: str) -> str | None:
        for option in options:
            if self.lowered.startswith(option, self.pos):
                return option
        return None

    def digits(self) -> str:
        start = self.pos
        text = self.text
        while self.pos < len(text) and "0" <= text[self.pos] <= "9":
            self.pos += 1
        return text[start : self.pos]

    def number(self, digits: str, what: str) -> int:
        most = self.limits.max_number
        if len(digits) > len(str(most)) or int(digits) > most:
            raise self.fail(f"{_shorten(digits)} is more than the {most:,} {what} may be.")
        return int(digits)

    def nested(self) -> None:
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise self.fail(
                f"This roll nests more than {self.limits.max_depth} levels of brackets and "
                "signs; write it flatter."
            )

    def term(self) -> None:
        self.terms += 1
        if self.terms > self.limits.max_terms:
            raise self.fail(
                f"This roll has more than {self.limits.max_terms} numbers and dice; split it "
                "into smaller rolls."
            )

    # -- grammar
    def comparison(self) -> Node | None:
        return self.left_to_right(self.additive, ("==", "!=", "<=", ">=", "<", ">"))

    def additive(self) -> Node | None:
        return self.left_to_right(self.multiplicative, ("+", "-"))

    def multiplicative(self) -> Node | None:
        return self.left_to_right(self.unary, ("//", "*", "/", "%"))

    def left_to_right(
        self, operand: Callable[[], Node | None], ops: tuple[str, ...]
    ) -> Node | None:
        """Operands joined by ``ops``, left-associative. An operator with no operand after
        it is left unread, so "1d20 + to hit" is 1d20 and a label, as in d20."""
        left = operand()
        while left is not None:
            start = self.pos
            self.space()
            op = self.peek(*ops)
            if op is None or self.peek("**"):
                self.pos = start
                break
            self.pos += len(op)
            self.space()
            right = operand()
            if right is None:
                self.pos = start
                break
            left = Binary(op, left, right)
            if op in _GROWING:
                self.guarded = True
        return left

    def unary(self) -> Node | None:
        op = self.peek("+", "-")
        if op is None:
            return self.primary()
        start = self.pos
        self.pos += 1
        self.space()
        self.nested()
        operand = self.unary()
        self.depth -= 1
        if operand is None:
            self.pos = start
            return None
        return Unary(op, operand)

    def primary(self) -> Node | None:
        text, pos = self.lowered, self.pos
        char = text[pos] if pos < len(text) else ""
        node: Node
        if char == "(":
            node = self.group()
        elif char.isdigit() or char == "." or (char == "d" and self.peek("d%", *_D_DIGITS)):
            start = self.pos
            digits = self.digits()
            if self.peek("d%", *_D_DIGITS):
                node = self.dice_group(digits)
            elif self.peek(".") and (digits or self.text[self.pos + 1 : self.pos + 2].isdigit()):
                self.pos += 1
                decimals = self.digits()
                if len(digits) + len(decimals) > 30:
                    raise self.fail(
                        f"{_shorten(self.text[start : self.pos])} is too long a number."
                    )
                value = float(f"{digits or 0}.{decimals or 0}")
                if value > self.limits.max_number:
                    raise self.fail(
                        f"{_shorten(self.text[start : self.pos])} is more than the "
                        f"{self.limits.max_number:,} a number may be."
                    )
                self.term()
                node = Literal(value)
            elif digits:
                self.term()
                node = Literal(self.number(digits, "a number in a roll"))
            else:
                return None
        else:
            return None
        annotations = self.annotations()
        if annotations:
            node = _with_annotations(node, annotations)
        return node

    def annotations(self) -> tuple[str, ...]:
        found: list[str] = []
        while True:
            start = self.pos
            self.space()
            if not self.peek("["):
                self.pos = start
                return tuple(found)
            close = self.text.find("]", self.pos)
            if close < 0:
                raise self.fail(
                    f"The note '{_shorten(self.text[self.pos :])}' has no closing ]; "
                    "write notes like 1d6 [fire]."
                )
            found.append(self.text[self.pos : close + 1])
            self.pos = close + 1

    def group(self) -> Group:
        open_at = self.pos
        self.pos += 1
        self.nested()
        items: list[Node] = []
        trailing_comma = False
        self.space()
        while not self.peek(")"):
            item = self.comparison()
            if item is None:
                raise self.unreadable(self.pos, inside=self.text[open_at:])
            items.append(item)
            if len(items) > self.limits.max_set_size:
                raise self.fail(
                    f"A set holds at most {self.limits.max_set_size} items; split the roll."
                )
            self.space()
            if self.peek(","):
                self.pos += 1
                self.space()
                trailing_comma = True
                continue
            trailing_comma = False
            if not self.peek(")"):
                if self.pos >= len(self.text):
                    raise self.fail(f"'{_shorten(self.text[open_at:])}' has no closing ); add one.")
                raise self.unreadable(self.pos, inside=self.text[open_at:])
        self.pos += 1
        self.depth -= 1
        parenthesised = len(items) == 1 and not trailing_comma
        operations = self.operations(_SET_OPS, sides=None)
        return Group(tuple(items), operations, parenthesised)

    def dice_group(self, count_digits: str) -> Dice:
        start = self.pos - len(count_digits)
        self.pos += 1  # the d
        count = self.number(count_digits, "dice a roll may throw") if count_digits else 1
        if self.peek("%"):
            self.pos += 1
            sides = 100
        else:
            sides_digits = self.digits()
            sides = self.number(sides_digits, "faces a die")
        written = self.text[start : self.pos]
        if not 1 <= sides <= self.limits.max_sides:
            faces = "no faces" if sides == 0 else f"{sides:,} faces"
            raise self.fail(
                f"'{written}' has {faces}; a die has 1 to {self.limits.max_sides:,} sides."
            )
        self.dice += count
        if self.dice > self.limits.max_dice:
            raise self.fail(
                f"{self.dice:,} dice is more than the {self.limits.max_dice:,} one roll may throw."
            )
        self.term()
        operations = self.operations(_DICE_OPS, sides=sides)
        return Dice(count, sides, operations)

    def operations(self, names: tuple[str, ...], sides: int | None) -> tuple[Operation, ...]:
        """Operations after dice or a set; consecutive same ones merge, as in d20 (k1k2)."""
        found: list[Operation] = []
        while True:
            start = self.pos
            self.space()
            operation = self.operation(names, sides, spaced=self.pos > start)
            if operation is None:
                self.pos = start
                break
            if found and found[-1].op == operation.op and operation.op not in ("mi", "ma"):
                operation = Operation(operation.op, found.pop().selectors + operation.selectors)
            found.append(operation)
        if any(op.op == "f" for op in found) and not any(op.op == "t" for op in found):
            raise self.fail("f counts failures against successes; add a t, like 10d10t6f1.")
        return tuple(found)

    def operation(
        self, names: tuple[str, ...], sides: int | None, spaced: bool
    ) -> Operation | None:
        start = self.pos
        written = self.peek(*names)
        if written is None:
            if sides is None and self.peek(*(n for n in _DICE_OPS if n not in _SET_OPS)):
                name = self.peek(*_DICE_OPS)
                after = self.pos + len(name or "")
                if after < len(self.text) and self.text[after] in "0123456789<>hl":
                    raise self.fail(f"{name} works on dice, not on a set; only k and p do.")
            return None
        self.pos += len(written)
        if written == "!" and self.peek("!", "p"):
            self.pos = start
            return None  # reported as unsupported with the rest of the text
        op, cat = _ALIASES.get(written, (written, ""))
        selector = self.selector(cat, op, sides)
        if selector is None:
            self.pos = start
            return None
        at_word = self.pos < len(self.text) and self.text[self.pos].isalpha()
        if spaced and at_word and not self.peek(*names):  # "1d20 e1xtra": a label
            self.pos = start
            return None
        if op in ("mi", "ma") and selector.cat:
            raise self.fail(f"{op} takes a plain number, like {op}2, not {op}{selector}.")
        return Operation(op, (selector,))

    def selector(self, cat: str, op: str, sides: int | None) -> Selector | None:
        if not cat:
            cat = self.peek(*_CATS) or ""
            self.pos += len(cat)
        digits = self.digits()
        if not digits and self.pos < len(self.text) and self.text[self.pos] == " ":
            start = self.pos  # "kh 3", as referee has always read it
            self.space()
            digits = self.digits()
            if not digits:
                self.pos = start
        if not digits:
            if op == "e" and not cat and sides is not None:
                return Selector("", sides)  # "!" alone explodes on the top face
            if cat in ("h", "l") and op in ("k", "p"):
                return Selector(cat, 1)  # "2d20kh" keeps the highest one
            return None
        n = self.number(digits, "a selector")
        if op == "t" and not cat:
            cat = ">="  # Dice Maiden: t7 counts 7 or more
        if op == "f" and not cat:
            cat = "<="  # and f1 counts 1 or less
        return Selector("" if cat == "=" else cat, n)

    def unreadable(self, pos: int, inside: str = "") -> TagError:
        return self.unreadable_text(self.text[pos:].strip(), inside)

    def unreadable_text(self, rest: str, inside: str = "") -> TagError:
        lowered = rest.lower()
        for form, advice in _UNSUPPORTED:
            if lowered.startswith(form) or (form in ("!!", "!p") and lowered.startswith(form[1:])):
                return self.fail(f"I can't read '{_shorten(rest)}': {advice}.")
        where = _shorten(inside or self.text)
        return self.fail(
            f"I can't read '{_shorten(rest)}' in '{where}'. Write dice as NdX, like 2d6, and "
            "join the parts with + - * /."
        )

    def expression(self) -> Expression:
        text = self.text
        self.space()
        repeat = 1
        head = self.pos
        count = self.digits()
        if count and self.peek("x", "×") and self.pos + 1 < len(text):
            self.pos += 1
            repeat = self.number(count, "repeated sets")
            if not 1 <= repeat <= self.limits.max_sets:
                raise self.fail(
                    f"{count}x asks for {repeat:,} sets; roll 1 to {self.limits.max_sets} at once."
                )
            self.space()
        else:
            self.pos = head
        root = self.comparison()
        if root is None:
            if not text.strip():
                raise self.fail("Say what to roll, like 2d6+3.")
            raise self.unreadable(self.pos)
        end = self.pos
        self.space()
        rest = text[self.pos :].strip()
        label = ""
        if rest:
            first = rest.split(None, 1)
            keyword = first[0].lower()
            if keyword in _ADVANTAGE and self.pos > end:
                root = _advantage(root, _ADVANTAGE[keyword], self)
                rest = first[1] if len(first) > 1 else ""
            label = self.label(rest, spaced=self.pos > end)
        if self.dice * repeat > self.limits.max_dice:
            raise self.fail(
                f"{self.dice * repeat:,} dice is more than the {self.limits.max_dice:,} one roll "
                "may throw."
            )
        return Expression(root, str(root), label, repeat, self.guarded)

    def label(self, rest: str, spaced: bool) -> str:
        if not rest:
            return ""
        # Undecodable bytes arrive as surrogates or, decoded, as U+FFFD.
        if any(
            char == "\ufffd" or (unicodedata.category(char) in ("Cs", "Cc") and not char.isspace())
            for char in rest
        ):
            raise self.fail(
                "The label after the roll holds a character that cannot be shown; write it "
                "in plain text."
            )
        if rest[0] == "#":
            return rest[1:].strip()
        # d20 reads "1d20 + to hit" as 1d20 and a comment; so does referee.
        operator_then_words = (
            rest[0] in "+-*/" and rest[1:2].isspace() and rest[2:].lstrip()[:1].isalpha()
        )
        if spaced and (rest[0] not in _LABEL_STOP or operator_then_words):
            lowered = rest.lower()
            for form, advice in _UNSUPPORTED:
                if form.isalpha() and len(form) > 1 and lowered.split()[0] == form:
                    raise self.fail(f"I can't read '{_shorten(rest)}': {advice}.")
            return rest
        raise self.unreadable_text(rest)


_D_DIGITS = tuple(f"d{digit}" for digit in "0123456789")
_GROWING = frozenset(("*", "/", "//", "%"))


def _with_annotations(node: Node, annotations: tuple[str, ...]) -> Node:
    if isinstance(node, (Literal, Dice, Group)):
        return type(node)(**{**node.__dict__, "annotations": node.annotations + annotations})
    return node


def _advantage(root: Node, cat: str, parser: _Parser) -> Node:
    """d20's advantage: the leftmost 1d20 becomes 2d20kh1 (or kl1), as Avrae's ``adv``."""
    word = "adv" if cat == "h" else "dis"
    keep = "kh1" if cat == "h" else "kl1"

    def rewrite(node: Node) -> Node:
        if isinstance(node, Binary):
            return Binary(node.op, rewrite(node.left), node.right)
        if isinstance(node, Unary):
            return Unary(node.op, rewrite(node.operand))
        if isinstance(node, Dice) and node.count == 1 and node.sides == 20:
            parser.dice += 1
            operation = Operation("k", (Selector(cat, 1),))
            return Dice(2, 20, (operation, *node.operations), node.annotations)
        raise parser.fail(
            f"{word} rolls a d20 twice, so the roll must start with 1d20, like 1d20+5 {word} "
            f"(or write 2d20{keep}+5)."
        )

    return rewrite(root)


def parse_expression(text: str, limits: Limits = DEFAULT_LIMITS) -> Expression:
    """Parse dice notation into an :class:`Expression`, or raise :class:`TagError`.

    >>> parse_expression(" d% - 1d4 + 2 ").text
    '1d100-1d4+2'
    >>> parse_expression("1d20+5 adv # to hit").text
    '2d20kh1+5'
    >>> parse_expression("2d0")
    Traceback (most recent call last):
    ...
    referee.errors.TagError: '2d0' has no faces; a die has 1 to 1,000 sides.
    >>> parse_expression("1000d6+500d6")
    Traceback (most recent call last):
    ...
    referee.errors.TagError: 1,500 dice is more than the 1,000 one roll may throw.
    """
    if limits is DEFAULT_LIMITS:
        cached = _CACHE.get(text)
        if cached is not None:
            return cached
    expression = _parse(text.replace("−", "-").replace("×", "x"), limits)
    if limits is DEFAULT_LIMITS:
        if len(_CACHE) >= 1024:
            _CACHE.clear()
        _CACHE[text] = expression
    return expression


# Like d20's parse cache: players repeat the same few expressions. The common case
# (the default limits) is looked up by text alone, without hashing the limits; the
# odds cache relies on one Expression object per text. Errors are not cached.
_CACHE: dict[str, Expression] = {}


@functools.lru_cache(maxsize=256)
def _parse(text: str, limits: Limits) -> Expression:
    if len(text) > limits.max_tag_chars:
        raise TagError(
            f"This roll is {len(text):,} characters long; at most {limits.max_tag_chars:,}.", USAGE
        )
    return _Parser(text, limits).expression()


def looks_like_expression(text: str) -> bool:
    """Whether ``text`` starts like dice notation rather than a name.

    Used to tell ``roll 2d6+3`` or ``roll (1d6)`` from ``roll Kara agility``; it does
    not validate: a body that starts like notation is read as notation, and its
    problems are reported as notation problems.

    >>> looks_like_expression("d20"), looks_like_expression("(1+3)*6")
    (True, True)
    >>> looks_like_expression("Dax agility")
    False
    """
    stripped = text.lstrip()
    if not stripped:
        return False
    first = stripped[0]
    if first.isdigit() or first in "(+-−.":
        return True
    return first in "dD" and len(stripped) > 1 and (stripped[1].isdigit() or stripped[1] == "%")


from referee.notation_odds import Odds, chance_at_least, distribution, odds  # noqa: E402
from referee.notation_roll import RolledExpression, roll_expression  # noqa: E402

__all__ = [
    "USAGE",
    "Binary",
    "Dice",
    "Expression",
    "Group",
    "Literal",
    "Odds",
    "Operation",
    "RolledExpression",
    "Selector",
    "Unary",
    "chance_at_least",
    "distribution",
    "looks_like_expression",
    "odds",
    "parse_expression",
    "roll_expression",
]
