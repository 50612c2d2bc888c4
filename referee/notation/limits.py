"""Dice notation's caps on hostile input: every size a roll may reach, with its message.

The parser counts as it reads and asks :class:`Caps` before it accepts a number, a
die, a set or a level of nesting, so a roll is refused as soon as it passes one of
the :class:`~referee.base.limits.Limits` (the one place sizes are set) and the player is
told which size and what to write instead. Sizes only known when rolling (dice drawn
by rerolls and explosions, the size of a total) are checked by
:mod:`referee.notation.roll` against the same ``Limits``.

>>> caps = Caps(Limits(max_dice=10))
>>> caps.dice(4, 6, "4d6")
>>> caps.dice(7, 6, "7d6")
Traceback (most recent call last):
...
referee.base.errors.TagError: 11 dice is more than the 10 one roll may throw.
"""

from __future__ import annotations

from referee.base.errors import TagError
from referee.base.limits import Limits
from referee.notation.advice import USAGE, shorten


def refusal(message: str) -> TagError:
    """A notation error for the player, with the notation's usage line."""
    return TagError(message, USAGE)


class Caps:
    """One parse's running counts (dice, terms, nesting) held to ``limits``."""

    __slots__ = ("depth", "dice_count", "limits", "terms")

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.dice_count = 0  # dice thrown so far, over every group
        self.terms = 0  # numbers and dice groups so far
        self.depth = 0  # brackets, sets and signs open around the current term

    def length(self, text: str) -> None:
        most = self.limits.max_tag_chars
        if len(text) > most:
            raise refusal(f"This roll is {len(text):,} characters long; at most {most:,}.")

    def number(self, digits: str, what: str) -> int:
        """``digits`` as a number no larger than ``max_number``; ``what`` names it."""
        most = self.limits.max_number
        if len(digits) > len(str(most)) or int(digits) > most:
            raise refusal(f"{shorten(digits)} is more than the {most:,} {what} may be.")
        return int(digits)

    def decimal(self, written: str, digits: int, value: float) -> None:
        if digits > 30:
            raise refusal(f"{shorten(written)} is too long a number.")
        if value > self.limits.max_number:
            raise refusal(
                f"{shorten(written)} is more than the {self.limits.max_number:,} a number may be."
            )

    def enter(self) -> None:
        """One more level of brackets or signs."""
        self.depth += 1
        if self.depth > self.limits.max_depth:
            raise refusal(
                f"This roll nests more than {self.limits.max_depth} levels of brackets and "
                "signs; write it flatter."
            )

    def leave(self) -> None:
        self.depth -= 1

    def term(self) -> None:
        """One more number or group of dice."""
        self.terms += 1
        most = self.limits.max_expression_terms
        if self.terms > most:
            raise refusal(
                f"This roll has more than {most} numbers and dice; split it into smaller rolls."
            )

    def dice(self, count: int, sides: int, written: str) -> None:
        """``count`` dice of ``sides`` faces, as ``written``."""
        most_sides = self.limits.max_sides
        if not 1 <= sides <= most_sides:
            faces = "no faces" if sides == 0 else f"{sides:,} faces"
            raise refusal(f"'{written}' has {faces}; a die has 1 to {most_sides:,} sides.")
        self.dice_count += count
        self.thrown(1)

    def thrown(self, repeat: int) -> None:
        """The dice counted so far, rolled ``repeat`` times, fit ``max_dice``."""
        total = self.dice_count * repeat
        if total > self.limits.max_dice:
            raise refusal(
                f"{total:,} dice is more than the {self.limits.max_dice:,} one roll may throw."
            )

    def set_size(self, items: int) -> None:
        if items > self.limits.max_set_size:
            raise refusal(f"A set holds at most {self.limits.max_set_size} items; split the roll.")

    def sets(self, written: str, repeat: int) -> None:
        """``Nx`` asks for ``repeat`` separate rolls."""
        if not 1 <= repeat <= self.limits.max_sets:
            raise refusal(
                f"{written}x asks for {repeat:,} sets; roll 1 to {self.limits.max_sets} at once."
            )
