"""Read dice notation into a syntax tree: a hand-written recursive descent of d20's grammar.

Each method of :class:`_Parser` reads one rule of d20's ``grammar.lark`` (comparison,
additive, multiplicative, unary, then dice, sets, numbers and annotations), plus the
forms players bring from other rollers (``!``, ``t``/``f``, ``adv``, ``Nx``, labels).
Sizes are checked as they are read (:mod:`referee.notation.limits`), and what cannot be
read is answered with the part, the reason and the nearest valid form
(:mod:`referee.notation.advice`).

>>> parse_expression("4D6 kh3 + 2 to climb").text
'4d6kh3+2'
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from collections.abc import Callable

from referee.base.effort import Effort
from referee.base.errors import TagError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.notation.advice import advice_for, nearest_form, other_rollers_form, shorten
from referee.notation.limits import Caps, refusal
from referee.notation.tree import (
    Binary,
    Dice,
    Expression,
    Group,
    Literal,
    Node,
    Operation,
    Selector,
    Unary,
)

_DICE_OPS: tuple[str, ...] = ("rr", "ro", "ra", "mi", "ma", "kh", "kl", "ph", "pl", "dh", "dl")
_DICE_OPS += ("k", "p", "e", "r", "t", "f", "!")
_SET_OPS = ("kh", "kl", "ph", "pl", "dh", "dl", "k", "p")
_ALIASES = {"r": ("rr", ""), "!": ("e", ""), "kh": ("k", "h"), "kl": ("k", "l")}
_ALIASES |= {"ph": ("p", "h"), "pl": ("p", "l"), "dh": ("p", "h"), "dl": ("p", "l")}
_CATS = ("<=", ">=", "<", ">", "=", "h", "l")
_ADVANTAGE = {"adv": "h", "advantage": "h", "dis": "l", "disadvantage": "l"}
_NOT_A_LABEL = frozenset("+-<>=,)")
_D_DIGITS = tuple(f"d{digit}" for digit in "0123456789")
_GROWING = frozenset(("*", "/", "//", "%"))


class _Parser:
    """Recursive descent over one expression; each method reads one grammar rule."""

    def __init__(self, text: str, limits: Limits, *, repair: bool = True) -> None:
        self.text = text
        self.lowered = text.lower()
        self.pos = 0
        self.limits = limits
        # Whether an unreadable roll is answered with the nearest form. A repair is read
        # with this off, so the search never nests: each candidate costs one plain parse.
        self.repair = repair
        self.caps = Caps(limits)
        self.guarded = False  # a *, /, // or %: a total may grow or divide by zero

    # -- helpers
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
        self.caps.enter()
        operand = self.unary()
        self.caps.leave()
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
                value = float(f"{digits or 0}.{decimals or 0}")
                written = self.text[start : self.pos]
                self.caps.decimal(written, len(digits) + len(decimals), value)
                self.caps.term()
                node = Literal(value)
            elif digits:
                self.caps.term()
                node = Literal(self.caps.number(digits, "a number in a roll"))
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
                raise refusal(
                    f"The note '{shorten(self.text[self.pos :])}' has no closing ]; "
                    "write notes like 1d6 [fire]."
                )
            found.append(self.text[self.pos : close + 1])
            self.pos = close + 1

    def group(self) -> Group:
        open_at = self.pos
        self.pos += 1
        self.caps.enter()
        items: list[Node] = []
        trailing_comma = False
        self.space()
        while not self.peek(")"):
            item = self.comparison()
            if item is None:
                raise self.unreadable(self.pos, inside=self.text[open_at:])
            items.append(item)
            self.caps.set_size(len(items))
            self.space()
            if self.peek(","):
                self.pos += 1
                self.space()
                trailing_comma = True
                continue
            trailing_comma = False
            if not self.peek(")"):
                if self.pos >= len(self.text):
                    raise self.with_nearest(
                        f"'{shorten(self.text[open_at:])}' has no closing ); add one.", self.pos
                    )
                raise self.unreadable(self.pos, inside=self.text[open_at:])
        self.pos += 1
        self.caps.leave()
        parenthesised = len(items) == 1 and not trailing_comma
        operations = self.operations(_SET_OPS, sides=None)
        return Group(tuple(items), operations, parenthesised)

    def dice_group(self, count_digits: str) -> Dice:
        start = self.pos - len(count_digits)
        self.pos += 1  # the d
        count = self.caps.number(count_digits, "dice a roll may throw") if count_digits else 1
        if self.peek("%"):
            self.pos += 1
            sides = 100
        else:
            sides = self.caps.number(self.digits(), "faces a die")
        self.caps.dice(count, sides, self.text[start : self.pos])
        self.caps.term()
        operations = self.operations(_DICE_OPS, sides=sides)
        return Dice(count, sides, operations)

    def operations(self, names: tuple[str, ...], sides: int | None) -> tuple[Operation, ...]:
        """Operations after dice or a set; consecutive same ones merge, as in d20 (k1k2)."""
        found: list[Operation] = []
        spaced_from: tuple[list[Operation], int] | None = None  # what was read before a space
        while True:
            start = self.pos
            self.space()
            spaced = self.pos > start
            operation = self.operation(names, sides, spaced=spaced)
            if operation is None:
                self.pos = start
                break
            if spaced and spaced_from is None:
                spaced_from = (list(found), start)
            if found and found[-1].op == operation.op and operation.op not in ("mi", "ma"):
                operation = Operation(operation.op, found.pop().selectors + operation.selectors)
            found.append(operation)
        if spaced_from is not None and self.pos < len(self.text) and self.text[self.pos].isalnum():
            # "4d6 kh3" keeps, but "1d20 please" is a label: spaced operations are whole words.
            found, self.pos = spaced_from
        if any(op.op == "f" for op in found) and not any(op.op == "t" for op in found):
            raise refusal("f counts failures against successes; add a t, like 10d10t6f1.")
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
                    raise refusal(f"{name} works on dice, not on a set; only k and p do.")
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
            raise refusal(f"{op} takes a plain number, like {op}2, not {op}{selector}.")
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
        n = self.caps.number(digits, "a selector")
        if op == "t" and not cat:
            cat = ">="  # Dice Maiden: t7 counts 7 or more
        if op == "f" and not cat:
            cat = "<="  # and f1 counts 1 or less
        return Selector("" if cat == "=" else cat, n)

    # -- answers
    def with_nearest(self, message: str, position: int) -> TagError:
        """``message``, with the nearest valid form when a small repair finds one within
        the repair budget (``Limits.max_repair_steps``)."""
        if not self.repair:
            return refusal(message)  # a candidate repair: its caller only asks whether it reads
        effort = Effort(self.limits.max_repair_steps)
        suggestion = nearest_form(
            self.text, position, functools.partial(_reads, self.limits), effort
        )
        if suggestion is not None:
            message += f" Did you mean {suggestion}?"
        return refusal(message)

    def unreadable(self, pos: int, inside: str = "") -> TagError:
        return self.unreadable_text(self.text[pos:].strip(), inside, pos)

    def unreadable_text(self, rest: str, inside: str = "", position: int | None = None) -> TagError:
        if position is None:
            position = len(self.text) - len(rest)
        advice = advice_for(rest)
        if advice is not None:
            return self.with_nearest(f"I can't read '{shorten(rest)}': {advice}.", position)
        where = shorten(inside or self.text)
        return self.with_nearest(
            f"I can't read '{shorten(rest)}' in '{where}'. Write dice as NdX, like 2d6, and "
            "join the parts with + - * /.",
            position,
        )

    def expression(self) -> Expression:
        text = self.text
        self.space()
        repeat = 1
        head = self.pos
        count = self.digits()
        if count and self.peek("x", "×") and self.pos + 1 < len(text):
            self.pos += 1
            repeat = self.caps.number(count, "repeated sets")
            self.caps.sets(count, repeat)
            self.space()
        else:
            self.pos = head
        root = self.comparison()
        if root is None:
            if not text.strip():
                raise refusal("Say what to roll, like 2d6+3.")
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
        self.caps.thrown(repeat)
        return Expression(root, str(root), label, repeat, self.guarded)

    def label(self, rest: str, spaced: bool) -> str:
        if not rest:
            return ""
        # Undecodable bytes arrive as surrogates or, decoded, as U+FFFD.
        if any(
            char == "\ufffd" or (unicodedata.category(char) in ("Cs", "Cc") and not char.isspace())
            for char in rest
        ):
            raise refusal(
                "The label after the roll holds a character that cannot be shown; write it "
                "in plain text."
            )
        if rest[0] == "#":
            return rest[1:].strip()
        if not spaced or other_rollers_form(rest):
            raise self.unreadable_text(rest)
        # As in d20, what follows a space and cannot continue the roll is a comment
        # ("1d20 **bold**"), and so is an operator followed by words ("1d20 + to hit");
        # an operator or bracket with nothing readable after it is a mistake.
        operator_then_words = (
            rest[0] in "+-*/" and rest[1:2].isspace() and rest[2:].lstrip()[:1].isalpha()
        )
        if rest[0] in _NOT_A_LABEL and not operator_then_words:
            raise self.unreadable_text(rest)
        return rest


def _with_annotations(node: Node, annotations: tuple[str, ...]) -> Node:
    if isinstance(node, (Literal, Dice, Group)):
        return dataclasses.replace(node, annotations=node.annotations + annotations)
    return node


def _advantage(root: Node, cat: str, parser: _Parser) -> Node:
    """d20's advantage: the leftmost 1d20 becomes 2d20kh1 (or kl1), as Avrae's ``adv``.

    Any other leftmost term is refused, with that term rolled twice as the nearest form:
    ``2d6+1 adv`` suggests ``(2d6, 2d6)kh1+1``.
    """
    word = "adv" if cat == "h" else "dis"
    keep = Operation("k", (Selector(cat, 1),))

    def rewrite(node: Node, twice: bool) -> Node:
        if isinstance(node, Binary):
            return Binary(node.op, rewrite(node.left, twice), node.right)
        if isinstance(node, Unary):
            return Unary(node.op, rewrite(node.operand, twice))
        if twice:
            return Group((node, node), (keep,))
        if isinstance(node, Dice) and node.count == 1 and node.sides == 20:
            parser.caps.dice(1, 20, "1d20")
            return Dice(2, 20, (keep, *node.operations), node.annotations)
        raise refusal(
            f"{word} rolls a d20 twice, so the roll must start with 1d20, like 1d20+5 {word} "
            f"(or write 2d20{keep}+5). Did you mean {rewrite(root, True)}?"
        )

    return rewrite(root, False)


def dice_hint(text: str, limits: Limits = DEFAULT_LIMITS) -> str | None:
    """The nearest dice notation to ``text`` that is not notation as written, if it
    holds dice at all: ``d 20`` -> ``1d20``, ``Kara 1d20 adv`` -> ``2d20kh1``.

    >>> dice_hint("d 20"), dice_hint("Kara agility")
    ('1d20', None)
    """
    if _HOLDS_DICE.search(text) is None:
        return None
    effort = Effort(limits.max_repair_steps)
    return nearest_form(text, 0, functools.partial(_reads, limits), effort)


# A d not after a letter, then faces ("d 20", "3d6"); no digits before the d, which
# would add nothing to a search but a pass over every run of digits.
_HOLDS_DICE = re.compile(r"(?<![a-z])d\s?(\d+|%)", re.I)


def _reads(limits: Limits, text: str) -> str | None:
    """``text`` as it will be rolled (with its label), or None when it cannot be read."""
    try:
        expression = _Parser(text, limits, repair=False).expression()
    except TagError:
        return None
    written = expression.text
    if expression.label and (expression.label[0].isdigit() or expression.label[0] in "+-*/%"):
        return None  # a repair that leaves part of the roll as a label misleads
    if expression.repeat > 1:
        written = f"{expression.repeat}x {written}"
    return f"{written} {expression.label}".strip()


def parse_expression(text: str, limits: Limits = DEFAULT_LIMITS) -> Expression:
    """Parse dice notation into an :class:`Expression`, or raise :class:`TagError`.

    >>> parse_expression(" d% - 1d4 + 2 ").text
    '1d100-1d4+2'
    >>> parse_expression("1d20+5 adv # to hit").text
    '2d20kh1+5'
    >>> parse_expression("2d0")
    Traceback (most recent call last):
    ...
    referee.base.errors.TagError: '2d0' has no faces; a die has 1 to 1,000 sides.
    >>> parse_expression("1000d6+500d6")
    Traceback (most recent call last):
    ...
    referee.base.errors.TagError: 1,500 dice is more than the 1,000 one roll may throw.
    """
    return _parse(text.replace("−", "-").replace("×", "x"), limits)


@functools.lru_cache(maxsize=1024)
def _parse(text: str, limits: Limits) -> Expression:
    """The parse of ``text``, kept by text and limits as d20 keeps its parses: players
    repeat the same few expressions (``bench/notation_race.py``, parse + roll). Errors
    are not kept."""
    Caps(limits).length(text)
    return _Parser(text, limits).expression()
