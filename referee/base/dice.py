"""Randomness sources: the one way any rule in referee gets a die roll.

Rules never touch :mod:`random`. They take a :class:`DiceSource` and call
``roll(sides)``. Four sources exist:

* :class:`HmacDice` derives a tag's dice from (campaign secret, post fullname, tag
  index), so the same post always gets the same dice and a revealed secret lets
  anyone check every roll in the ledger;
* :class:`SeededDice` wraps a seeded :class:`random.Random`, for tests and
  statistics;
* :class:`FixedDice` plays back given values, for worked examples;
* :class:`RecordingDice` wraps any source and keeps every draw for the ledger.

>>> dice = FixedDice([3, 6])
>>> dice.roll(6), dice.roll(6)
(3, 6)
"""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

from referee.base.english import with_article
from referee.base.errors import UserError


class DiceSource(Protocol):
    """Anything that rolls a fair die."""

    def roll(self, sides: int) -> int:
        """Return a uniform integer from 1 to ``sides`` inclusive."""
        ...


class Draw(NamedTuple):
    """One die as drawn from a source: its faces and the face that came up.

    A named tuple rather than a dataclass: every die of every tag makes one, and a
    tuple is made in half the time.
    """

    sides: int
    value: int


# Draw(sides, value) without the named tuple's Python-level __new__: a die per call.
_new_draw = tuple.__new__
# Every Draw of a die of N faces, by face (0 unused), for the dice players roll most: a
# Draw is immutable, so a term of ten dice takes ten from a table instead of making them.
_DRAWS: dict[int, tuple[Draw, ...]] = {}


def _draws_of(sides: int) -> tuple[Draw, ...]:
    """The table of a die of ``sides`` faces, kept for a d1000 at most and 64 kinds of die;
    empty for a larger die (its Draws are made one by one)."""
    if sides > 1000:
        return ()
    table = tuple(_new_draw(Draw, (sides, face)) for face in range(sides + 1))
    if len(_DRAWS) < 64:
        _DRAWS[sides] = table
    return table


def _check_sides(sides: int) -> None:
    if sides < 1:
        raise ValueError(f"a die needs at least one face, not {sides}")


class SeededDice:
    """A source backed by a seeded :class:`random.Random`; for tests and simulation."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._random = random.Random(seed)
        # randint(1, n) is randrange(n) + 1 by definition: the same faces for a seed,
        # one Python call fewer per die.
        self._below = self._random.randrange

    def roll(self, sides: int) -> int:
        if sides < 1:
            _check_sides(sides)
        return self._below(sides) + 1

    def roll_many(self, sides: int, count: int) -> list[int]:
        """``count`` dice: the faces ``roll`` would give one by one."""
        if sides < 1:
            _check_sides(sides)
        below = self._below
        return [below(sides) + 1 for _ in range(count)]


class SystemDice:
    """A source backed by the operating system's randomness; for trying tags by hand."""

    def __init__(self) -> None:
        self._random = random.SystemRandom()

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        return self._random.randint(1, sides)


class FixedDice:
    """Plays back the given values in order; refuses a value the die cannot show.

    >>> FixedDice([7]).roll(6)
    Traceback (most recent call last):
    ...
    ValueError: fixed value 7 cannot come up on a d6
    """

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._next = 0

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        if self._next >= len(self._values):
            raise IndexError(f"FixedDice ran out after {len(self._values)} values")
        value = self._values[self._next]
        self._next += 1
        if not 1 <= value <= sides:
            raise ValueError(f"fixed value {value} cannot come up on a d{sides}")
        return value

    @property
    def remaining(self) -> int:
        """How many values are still unplayed (a test asserts 0 to catch extra rolls)."""
        return len(self._values) - self._next


class GivenDice:
    """Plays back faces a person typed (``referee roll TAG --dice 3,8,7,10``), in order.

    Unlike :class:`FixedDice` (for tests), its refusals are a user's mistakes, with
    messages saying how to fix them: too few faces, or a face the die cannot show.

    >>> GivenDice([9]).roll(8)
    Traceback (most recent call last):
    ...
    referee.base.errors.UserError: The 1st face given, 9, cannot come up on the d8 it feeds; \
give a face from 1 to 8.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self._next = 0

    def roll(self, sides: int) -> int:
        _check_sides(sides)
        place = _ordinal(self._next + 1)
        if self._next >= len(self._faces):
            raise UserError(
                f"The tag needs {with_article(place)} die (a d{sides}) but only {len(self._faces)} "
                f"face(s) were given; add more to --dice, in the order the dice are drawn."
            )
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise UserError(
                f"The {place} face given, {face}, cannot come up on the d{sides} it feeds; "
                f"give a face from 1 to {sides}."
            )
        self._next += 1
        return face

    @property
    def unused(self) -> int:
        """Faces given but not drawn."""
        return len(self._faces) - self._next


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class HmacDice:
    """Dice derived from HMAC-SHA256(secret, "post:index:block"): deterministic and checkable.

    Each digest block yields four 64-bit words; a word is used by rejection
    sampling, so every face is exactly equally likely. Every die drawn is kept, in
    order, in ``draws`` (what the ledger records), so a tag's dice need no
    :class:`RecordingDice` around them.

    >>> a = HmacDice(b"secret", "t1_abc", 0)
    >>> b = HmacDice(b"secret", "t1_abc", 0)
    >>> [a.roll(20) for _ in range(5)] == [b.roll(20) for _ in range(5)]
    True
    >>> a.draws[:2] == [Draw(20, a.draws[0].value), Draw(20, a.draws[1].value)]
    True
    """

    __slots__ = ("_block", "_inner", "_outer", "_prefix", "_used", "_words", "draws")

    _WORDS = struct.Struct(">4Q")  # a SHA-256 digest read as four big-endian 64-bit words

    def __init__(self, secret: bytes, post: str, tag_index: int) -> None:
        self._inner, self._outer = _hmac_keys(secret)
        self._prefix = f"{post}:{tag_index}:".encode()
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._used = 4  # words of the current block already used: none drawn yet
        self.draws: list[Draw] = []

    def _next_block(self) -> tuple[int, ...]:
        inner, outer = self._inner.copy(), self._outer.copy()
        inner.update(b"%s%d" % (self._prefix, self._block))
        outer.update(inner.digest())
        self._block += 1
        self._used = 0
        words = self._words = self._WORDS.unpack(outer.digest())
        return words

    def roll(self, sides: int) -> int:
        limit = _LIMITS.get(sides) or _limit(sides)
        while True:
            if self._used == 4:
                self._next_block()
            word = self._words[self._used]
            self._used += 1
            if word < limit:
                value = word % sides + 1
                self.draws.append(_new_draw(Draw, (sides, value)))
                return value

    def roll_many(self, sides: int, count: int) -> list[int]:
        """``count`` dice of ``sides`` faces: the faces ``roll`` would give one by one.

        >>> a, b = HmacDice(b"k", "t1_a", 0), HmacDice(b"k", "t1_a", 0)
        >>> a.roll_many(6, 9) == [b.roll(6) for _ in range(9)] and a.draws == b.draws
        True
        """
        limit = _LIMITS.get(sides) or _limit(sides)
        words = self._next_block() if self._used == 4 else self._words
        used = self._used
        # The usual term: its dice all in this block, no word past the limit.
        end = used + count
        faces = [word % sides + 1 for word in words[used:end] if word < limit]
        if len(faces) == count:
            self._used = end
        else:
            self._used = min(end, 4)
            faces = self._more(faces, sides, count, limit)
        table = _DRAWS.get(sides) or _draws_of(sides)
        if table:
            self.draws += [table[face] for face in faces]
        else:
            self.draws += [_new_draw(Draw, (sides, face)) for face in faces]
        return faces

    def _more(self, faces: list[int], sides: int, count: int, limit: int) -> list[int]:
        """``faces`` drawn on to ``count``: the words still needed, block after block.

        A word past the limit is skipped and the next round takes another, exactly as
        :meth:`roll` would one by one.
        """
        words, used = self._words, self._used
        while len(faces) < count:
            if used == 4:
                words, used = self._next_block(), 0
            taken = words[used : used + count - len(faces)]
            used += len(taken)
            faces += [word % sides + 1 for word in taken if word < limit]
        self._used = used
        return faces


_SPACE = 1 << 64  # a word is a uniform 64-bit number
# The largest multiple of a die's faces below 2**64, by faces: a word at or past it is
# redrawn, so every face stays exactly as likely (the usual dice, computed once).
_LIMITS: dict[int, int] = {}


def _limit(sides: int) -> int:
    if sides < 1:
        _check_sides(sides)
    limit = _SPACE - _SPACE % sides
    if len(_LIMITS) < 1024:
        _LIMITS[sides] = limit
    return limit


@lru_cache(maxsize=16)
def _hmac_keys(secret: bytes) -> tuple[Any, Any]:
    """SHA-256 states keyed with HMAC's inner and outer pads (RFC 2104), made once a secret.

    HMAC(key, m) = H((key ^ opad) || H((key ^ ipad) || m)): copying these two states and
    feeding them ``m`` gives exactly :func:`hmac.new`'s digest, without re-deriving the
    pads for every tag (a tag's dice cost one copy of each, not a new HMAC object).

    >>> import hmac
    >>> inner, outer = (state.copy() for state in _hmac_keys(b"k"))
    >>> inner.update(b"m"); outer.update(inner.digest())
    >>> outer.digest() == hmac.new(b"k", b"m", hashlib.sha256).digest()
    True
    """
    block = hashlib.sha256().block_size
    key = hashlib.sha256(secret).digest() if len(secret) > block else secret
    key = key.ljust(block, b"\0")
    inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in key))
    outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in key))
    return inner, outer


class RecordingDice:
    """Wraps a source and keeps every draw, in order, for the ledger."""

    def __init__(self, source: DiceSource) -> None:
        self._roll = source.roll
        self.draws: list[Draw] = []

    def roll(self, sides: int) -> int:
        value = self._roll(sides)
        self.draws.append(_new_draw(Draw, (sides, value)))
        return value


def recording(source: DiceSource) -> HmacDice | RecordingDice:
    """A source that keeps in ``draws`` every die drawn from now on, for the ledger.

    A fresh :class:`HmacDice` keeps its own (one call a die fewer); any other source,
    or one already drawn from, is wrapped in a :class:`RecordingDice`.

    >>> fresh = HmacDice(b"s", "t1_a", 0)
    >>> recording(fresh) is fresh, type(recording(FixedDice([1]))).__name__
    (True, 'RecordingDice')
    """
    if type(source) is HmacDice and not source.draws:
        return source
    return RecordingDice(source)


def replay_matches(source: DiceSource, draws: Iterable[Draw]) -> bool:
    """Whether ``source`` produces exactly ``draws``, die for die (for ``referee verify``)."""
    return all(source.roll(draw.sides) == draw.value for draw in draws)


def commitment(secret: bytes) -> str:
    """The sha256 of a campaign secret, which a GM publishes before play starts."""
    return hashlib.sha256(secret).hexdigest()
