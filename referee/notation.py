"""Generic dice notation: parse ``2d6+3`` to a tree, roll it, and give its exact odds.

The pipeline follows avrae/d20, minus the global :mod:`random`:

* :func:`parse_expression` turns text into an :class:`Expression` (a flat sum of
  :class:`DiceTerm` and :class:`Constant` terms), checking every size against a
  :class:`~referee.limits.Limits` value;
* :func:`roll_expression` rolls it with a :class:`~referee.dice.DiceSource`, picking
  a handler for each term from a table keyed by term type;
* :func:`distribution` and :func:`chance_at_least` give the exact odds of the total.

The notation, case-insensitive, with spaces allowed around ``+`` and ``-``:

======== ============================================= ================
form     meaning                                       example
======== ============================================= ================
``NdX``  N dice of X sides (N defaults to 1)           ``2d6``, ``d20``
``d%``   a hundred-sided die                           ``d%``
``khN``  keep the N highest dice (N defaults to 1)     ``4d6kh3``
``klN``  keep the N lowest dice                        ``2d20kl1``
``dhN``  drop the N highest dice                       ``5d6dh2``
``dlN``  drop the N lowest dice                        ``4d6dl1``
``±N``   add or subtract a number                      ``3d6-2``
======== ============================================= ================

>>> from referee.dice import FixedDice
>>> expression = parse_expression("4D6 kh3 + 2")
>>> expression.text
'4d6kh3+2'
>>> rolled = roll_expression(expression, FixedDice([6, 1, 4, 5]))
>>> rolled.total
17
>>> [die.value for die in rolled.terms[0].dice if not die.kept]
[1]
>>> chance_at_least(parse_expression("2d6"), 10)
Fraction(1, 6)
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Literal, cast

from referee.dice import DiceSource
from referee.errors import TagError
from referee.limits import DEFAULT_LIMITS, Limits

USAGE = "[[roll 2d6+3]] — NdX dice, + or − numbers, kh/kl N to keep highest/lowest"

KeepKind = Literal["kh", "kl", "dh", "dl"]


@dataclass(frozen=True)
class Keep:
    """Which dice of a group count: keep or drop the ``n`` highest or lowest."""

    kind: KeepKind  # kh keep highest, kl keep lowest, dh drop highest, dl drop lowest
    n: int

    def rule(self, count: int) -> tuple[bool, int]:
        """As (keep the highest?, how many kept) for a group of ``count`` dice.

        >>> Keep("dl", 1).rule(4)
        (True, 3)
        """
        if self.kind == "kh":
            return True, self.n
        if self.kind == "kl":
            return False, self.n
        if self.kind == "dh":
            return False, count - self.n
        return True, count - self.n


@dataclass(frozen=True)
class DiceTerm:
    """``count`` dice of ``sides`` faces, added (sign 1) or subtracted (sign -1)."""

    sign: int
    count: int
    sides: int
    keep: Keep | None = None  # None: every die counts

    def __str__(self) -> str:
        keep = "" if self.keep is None else f"{self.keep.kind}{self.keep.n}"
        return f"{self.count}d{self.sides}{keep}"


@dataclass(frozen=True)
class Constant:
    """A number added (sign 1) or subtracted (sign -1); ``value`` is never negative."""

    sign: int
    value: int

    def __str__(self) -> str:
        return str(self.value)


Term = DiceTerm | Constant


@dataclass(frozen=True)
class Expression:
    """A parsed roll: a sum of signed terms and its normalised text, such as ``2d6+3``."""

    terms: tuple[Term, ...]
    text: str


@dataclass(frozen=True)
class RolledDie:
    """One die as it came up; ``kept`` is False when kh/kl/dh/dl set it aside."""

    sides: int
    value: int
    kept: bool


@dataclass(frozen=True)
class RolledTerm:
    """A term after rolling: its dice (none for a constant) and its signed subtotal."""

    term: Term
    dice: tuple[RolledDie, ...]
    subtotal: int


@dataclass(frozen=True)
class RolledExpression:
    """An expression after rolling: each term's dice and the total."""

    expression: Expression
    terms: tuple[RolledTerm, ...]
    total: int


# ---------------------------------------------------------------------------- parsing

# One term, with the sign that joins it to the one before and the spaces around it.
_TERM = re.compile(
    r"\s*([+\-−]?)\s*(?:([0-9]*)d([0-9]+|%)(?:\s*(kh|kl|dh|dl)\s*([0-9]*))?|([0-9]+))\s*",
    re.IGNORECASE,
)
_LOOKS_LIKE = re.compile(r"\s*[+\-−]?\s*(?:[0-9]|d(?:[0-9]|%))", re.IGNORECASE)
_MAX_DIGITS = 7  # longer numbers are over every limit; checked before int() sees them


def _shorten(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _number(digits: str, what: str, limit: int) -> int:
    if len(digits) > _MAX_DIGITS:
        raise TagError(f"{_shorten(digits)} is more than the {limit:,} {what}.", USAGE)
    return int(digits)


def _dice_term(match: re.Match[str], sign: int, limits: Limits) -> DiceTerm:
    written = match.group(0).strip().lstrip("+-−").strip()
    count_digits, sides_digits, kind, keep_digits = match.group(2, 3, 4, 5)
    count = _number(count_digits, "dice one roll may throw", limits.max_dice) if count_digits else 1
    if count == 0:
        raise TagError(f"'{written}' throws no dice; throw 1 or more.", USAGE)
    if sides_digits == "%":
        sides = 100
    else:
        sides = _number(sides_digits, "faces a die may have", limits.max_sides)
    if not 2 <= sides <= limits.max_sides:
        faces = {0: "no faces", 1: "one face"}.get(sides, f"{sides:,} faces")
        raise TagError(
            f"'{written}' has {faces}; a die needs 2 to {limits.max_sides:,} sides.", USAGE
        )
    if count > limits.max_dice:
        raise TagError(
            f"{count:,} dice is more than the {limits.max_dice:,} one roll may throw.", USAGE
        )
    if kind is None:
        return DiceTerm(sign, count, sides)
    kind = kind.lower()
    n = _number(keep_digits, "dice one roll may throw", limits.max_dice) if keep_digits else 1
    if kind[0] == "k" and not 1 <= n <= count:
        raise TagError(f"'{written}' keeps {n:,} of {count:,} dice; keep 1 to {count:,}.", USAGE)
    if kind[0] == "d" and n >= count:
        raise TagError(
            f"'{written}' drops {n:,} of {count:,} dice; drop at most {count - 1:,}.", USAGE
        )
    return DiceTerm(sign, count, sides, Keep(cast(KeepKind, kind), n))


def parse_expression(text: str, limits: Limits = DEFAULT_LIMITS) -> Expression:
    """Parse dice notation into an :class:`Expression`, or raise :class:`TagError`.

    >>> parse_expression(" d% - 1d4 + 2 ").text
    '1d100-1d4+2'
    >>> parse_expression("2d0")
    Traceback (most recent call last):
    ...
    referee.errors.TagError: '2d0' has no faces; a die needs 2 to 1,000 sides.
    >>> parse_expression("1000d6+500d6")
    Traceback (most recent call last):
    ...
    referee.errors.TagError: 1,500 dice is more than the 1,000 one roll may throw.
    """
    return _parse(text, limits)


# Like d20's parse cache: players repeat the same few expressions. Errors are not cached.
@functools.lru_cache(maxsize=256)
def _parse(text: str, limits: Limits) -> Expression:
    terms: list[Term] = []
    parts: list[str] = []
    dice_count = 0
    pos, end = 0, len(text)
    if not text.strip():
        raise TagError("Say what to roll, like 2d6+3.", USAGE)
    while pos < end:
        match = _TERM.match(text, pos)
        if match is None or (terms and not match.group(1)):
            rest = _shorten(text[pos:].strip())
            raise TagError(
                f"I can't read '{rest}' in '{_shorten(text)}'. Write dice as NdX, like 2d6, "
                "and join the parts with + or -.",
                USAGE,
            )
        if len(terms) == limits.max_terms:
            raise TagError(
                f"This roll has more than {limits.max_terms} parts; split it into smaller rolls.",
                USAGE,
            )
        sign = -1 if match.group(1) in ("-", "−") else 1
        term: Term
        if match.group(6) is not None:
            what, most = "a number in a roll may be", limits.max_modifier
            value = _number(match.group(6), what, most)
            if value > most:
                raise TagError(f"{value:,} is more than the {most:,} {what}.", USAGE)
            term = Constant(sign, value)
        else:
            term = _dice_term(match, sign, limits)
            dice_count += term.count
            if dice_count > limits.max_dice:
                raise TagError(
                    f"{dice_count:,} dice is more than the {limits.max_dice:,} one roll may throw.",
                    USAGE,
                )
        terms.append(term)
        parts.append(("-" if sign < 0 else "+" if parts else "") + str(term))
        pos = match.end()
    return Expression(tuple(terms), "".join(parts))


def looks_like_expression(text: str) -> bool:
    """Whether ``text`` starts like dice notation (a digit, or ``d`` and a digit or ``%``).

    Used to tell ``roll 2d6+3`` from ``roll Kara agility``; it does not validate.

    >>> looks_like_expression("d20"), looks_like_expression("Dax agility")
    (True, False)
    """
    return _LOOKS_LIKE.match(text) is not None


# ---------------------------------------------------------------------------- rolling


def _roll_constant(term: Constant, dice: DiceSource) -> RolledTerm:
    return RolledTerm(term, (), term.sign * term.value)


def _roll_dice(term: DiceTerm, dice: DiceSource) -> RolledTerm:
    sides = term.sides
    values = [dice.roll(sides) for _ in range(term.count)]
    if term.keep is None:
        rolled = tuple([RolledDie(sides, value, True) for value in values])
        return RolledTerm(term, rolled, term.sign * sum(values))
    highest, n = term.keep.rule(term.count)
    # Among equal faces the earlier die is kept, so the choice is deterministic.
    order = sorted(range(len(values)), key=lambda i: (-values[i] if highest else values[i], i))
    kept = set(order[:n])
    rolled = tuple([RolledDie(sides, value, i in kept) for i, value in enumerate(values)])
    return RolledTerm(term, rolled, term.sign * sum(values[i] for i in kept))


# How each kind of term is rolled; a new kind of term adds one entry here.
ROLLERS: dict[type, Callable[[Term, DiceSource], RolledTerm]] = {
    Constant: _roll_constant,  # type: ignore[dict-item]
    DiceTerm: _roll_dice,  # type: ignore[dict-item]
}


def roll_expression(expression: Expression, dice: DiceSource) -> RolledExpression:
    """Roll every term of ``expression`` with ``dice`` and add up the total.

    >>> from referee.dice import FixedDice
    >>> roll_expression(parse_expression("2d20kl1-1"), FixedDice([15, 7])).total
    6
    """
    rolled = tuple([ROLLERS[type(term)](term, dice) for term in expression.terms])
    return RolledExpression(expression, rolled, sum(term.subtotal for term in rolled))


def bounds(expression: Expression) -> tuple[int, int]:
    """The lowest and highest total ``expression`` can roll.

    >>> bounds(parse_expression("4d6kh3-1d4+2"))
    (1, 19)
    """
    low = high = 0
    for term in expression.terms:
        if isinstance(term, Constant):
            least = most = term.value
        else:
            kept = term.count if term.keep is None else term.keep.rule(term.count)[1]
            least, most = kept, kept * term.sides
        if term.sign > 0:
            low, high = low + least, high + most
        else:
            low, high = low - most, high - least
    return low, high


# ---------------------------------------------------------------------------- odds

# distribution() gives up (returns None) past either bound, so a hostile tag cannot
# stall the worker: the total may take at most _MAX_OUTCOMES values, and the estimated
# inner-loop steps (sum of all dice, keep DP, term convolutions) stay under _MAX_STEPS.
_MAX_OUTCOMES = 10_000
_MAX_STEPS = 2_000_000

# Ways to roll each total, as (lowest total, ways for lowest, lowest + 1, ...).
_Ways = tuple[int, list[int]]


def _sum_ways(count: int, sides: int) -> _Ways:
    """Ways for the sum of ``count`` dice, one die at a time with prefix sums."""
    ways = [1]
    for _ in range(count):
        prefix = [0]
        running = 0
        for w in ways:
            running += w
            prefix.append(running)
        size = len(ways)
        ways = [
            prefix[min(i + 1, size)] - prefix[max(0, i + 1 - sides)]
            for i in range(size + sides - 1)
        ]
    return count, ways


def _keep_highest_ways(count: int, sides: int, keep: int) -> _Ways:
    """Ways for the sum of the ``keep`` highest of ``count`` dice (order statistics DP).

    Faces are visited from high to low; a state is (dice placed on higher faces, sum
    of those kept). Once ``keep`` dice are placed the rest show any lower face.
    """
    result: defaultdict[int, int] = defaultdict(int)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for face in range(sides, 0, -1):
        following: defaultdict[tuple[int, int], int] = defaultdict(int)
        for (placed, total), ways in states.items():
            left = count - placed
            for m in range(left + 1):
                now = placed + m
                subtotal = total + face * (min(now, keep) - placed)
                weight = ways * comb(left, m)
                if now >= keep:
                    result[subtotal] += weight * (face - 1) ** (count - now)
                else:
                    following[(now, subtotal)] += weight
        states = following
    low = keep
    return low, [result.get(total, 0) for total in range(low, keep * sides + 1)]


def _term_ways(term: Term) -> tuple[_Ways, int]:
    """Ways for one term's signed contribution and their denominator."""
    if isinstance(term, Constant):
        return (term.sign * term.value, [1]), 1
    if term.keep is None or term.keep.rule(term.count)[1] == term.count:
        low, ways = _sum_ways(term.count, term.sides)
    else:
        highest, kept = term.keep.rule(term.count)
        low, ways = _keep_highest_ways(term.count, term.sides, kept)
        if not highest:  # the lowest k of faces x are (sides + 1) - the highest k of faces
            ways = ways[::-1]
    if term.sign < 0:
        low, ways = -(low + len(ways) - 1), ways[::-1]
    return (low, ways), term.sides**term.count


def _cost(expression: Expression) -> int:
    steps, span = 0, 1
    for term in expression.terms:
        if isinstance(term, DiceTerm):
            kept = term.count if term.keep is None else term.keep.rule(term.count)[1]
            if kept == term.count:
                steps += term.count * term.count * term.sides
            else:
                steps += term.sides * term.sides * kept * kept * term.count
            width = kept * (term.sides - 1) + 1
            steps += span * width
            span += width - 1
    return steps


@functools.lru_cache(maxsize=512)
def _distribution(expression: Expression) -> tuple[tuple[int, Fraction], ...] | None:
    low, high = bounds(expression)
    if high - low + 1 > _MAX_OUTCOMES or _cost(expression) > _MAX_STEPS:
        return None
    offset, ways, denominator = 0, [1], 1
    for term in expression.terms:
        (term_low, term_ways), term_denominator = _term_ways(term)
        combined = [0] * (len(ways) + len(term_ways) - 1)
        for i, a in enumerate(ways):
            if a:
                for j, b in enumerate(term_ways):
                    combined[i + j] += a * b
        offset, ways, denominator = offset + term_low, combined, denominator * term_denominator
    return tuple((offset + i, Fraction(w, denominator)) for i, w in enumerate(ways) if w)


def distribution(expression: Expression) -> dict[int, Fraction] | None:
    """The exact chance of each total, or None when that is too costly to compute.

    It gives up when the total could take more than 10,000 values, or when the
    estimated work passes 2,000,000 steps (about a second): ``100d100`` is fine,
    ``1000d6`` and ``30d30kh15`` are not. Results are cached per expression.

    >>> distribution(parse_expression("2d20kh1"))[20]
    Fraction(39, 400)
    >>> distribution(parse_expression("1000d1000")) is None
    True
    """
    pairs = _distribution(expression)
    return None if pairs is None else dict(pairs)


def chance_at_least(expression: Expression, total: int) -> Fraction | None:
    """The exact chance that ``expression`` rolls ``total`` or more; None if too costly.

    A target at or below the lowest total, or above the highest, is answered even
    when the full distribution is not.

    >>> chance_at_least(parse_expression("4d6kh3"), 18)
    Fraction(7, 432)
    >>> chance_at_least(parse_expression("1000d1000"), 1000)
    Fraction(1, 1)
    """
    low, high = bounds(expression)
    if total <= low:
        return Fraction(1)
    if total > high:
        return Fraction(0)
    pairs = _distribution(expression)
    if pairs is None:
        return None
    return sum((chance for value, chance in pairs if value >= total), Fraction(0))
