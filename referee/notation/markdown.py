"""A rolled dice tree as Reddit Markdown, the way a player reads it.

``4d6kh3 (6, ~~1~~, 4, 5) + 2``: every die in its group, dropped dice struck,
rerolled faces struck before the face that replaced them (``~~1~~→4``), dice that
exploded marked ``!``, faces raised or lowered by ``mi``/``ma`` shown as ``1→2``,
successes and failures of ``t``/``f`` marked ✓ and ✗, annotations beside their
terms. A group of more than :data:`DICE_SHOWN` dice shows that many and a count of
the rest (a tree at most :data:`TREE_DICE_SHOWN` in all, a die at most
:data:`REROLLS_SHOWN` rerolled faces), so a long roll stays far under Reddit's 10,000
characters.

Everything the player wrote (annotations) is escaped, and the notation's own
``*``, ``<`` and ``>``, which mean something to Markdown.

>>> from referee.base.dice import FixedDice
>>> from referee.notation import parse_expression, roll_expression
>>> rolled = roll_expression(parse_expression("4d6kh3+2"), FixedDice([6, 1, 4, 5]))
>>> markdown(rolled.sets[0])
'4d6kh3 (6, ~~1~~, 4, 5) + 2'
>>> rolled = roll_expression(parse_expression("2d6ro1!"), FixedDice([1, 6, 4, 3]))
>>> markdown(rolled.sets[0])
'2d6ro1e6 (~~1~~→4, 6!, 3)'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.base.markdown import escape_markdown, percent
from referee.notation.roll import (
    RolledBinary,
    RolledDice,
    RolledDie,
    RolledGroup,
    RolledLiteral,
    RolledUnary,
)
from referee.notation.tree import COMPARISONS

DICE_SHOWN = 40  # dice listed per group; the rest are counted
TREE_DICE_SHOWN = 200  # dice listed in one rolled tree, over all its groups
REROLLS_SHOWN = 3  # rerolled faces listed per die; the rest are counted
# The notation's own characters that mean something to Markdown or HTML.
_OPS = str.maketrans({"*": "\\*", "<": "&lt;", ">": "&gt;", "^": "\\^", "~": "\\~"})


def _plain(text: str) -> str:
    return text.translate(_OPS)


def _die(die: RolledDie) -> str:
    text = str(die.value)
    if not die.marked:  # the usual die: its face, struck if dropped
        return text if die.kept else f"~~{text}~~"
    if die.forced_from is not None:
        text = f"{die.forced_from}→{text}"
    if len(die.rerolled) == 1:  # rerolled once, as ro and most rr leave a die
        text = f"~~{die.rerolled[0]}~~→{text}"
    elif die.rerolled:
        faces = [f"~~{face}~~" for face in die.rerolled]
        if len(faces) > REROLLS_SHOWN:
            faces[REROLLS_SHOWN - 1 : -1] = [f"… {len(faces) - REROLLS_SHOWN} more"]
        text = "→".join(faces) + "→" + text
    if die.exploded:
        text += "!"
    if die.success > 0:
        text += "✓"
    elif die.success < 0:
        text += "✗"
    return text if die.kept else f"~~{text}~~"


def _notes(annotations: tuple[str, ...]) -> str:
    if not annotations:
        return ""
    return " " + " ".join(f"*{escape_markdown(note[1:-1].strip(), 100)}*" for note in annotations)


def _ops(operations: tuple[Any, ...]) -> str:
    return _plain("".join([str(op) for op in operations]))


_SPACED = COMPARISONS | {"+", "-"}  # operators written with a space either side


class _Writer:
    """Writes one rolled tree, listing at most :data:`TREE_DICE_SHOWN` dice in all."""

    def __init__(self) -> None:
        self.left = TREE_DICE_SHOWN

    def write(self, rolled: Any) -> str:
        text = WRITERS[type(rolled)](self, rolled)
        return text if rolled.kept else f"~~{text}~~"

    def literal(self, rolled: RolledLiteral) -> str:
        node = rolled.node
        return str(node.value) + _notes(node.annotations)

    def dice(self, rolled: RolledDice) -> str:
        node = rolled.node
        head = f"{node.count}d{node.sides}{_ops(node.operations)} ("
        notes = _notes(node.annotations)
        faces = rolled.untouched
        if faces is not None and len(faces) <= DICE_SHOWN and len(faces) <= self.left:
            self.left -= len(faces)
            return f"{head}{', '.join(map(str, faces))}){notes}"  # no die struck or marked
        dice = rolled.dice
        if len(dice) <= DICE_SHOWN and len(dice) <= self.left:
            self.left -= len(dice)
            shown = ", ".join([_die(die) for die in dice])
        else:
            listed = max(0, min(DICE_SHOWN, self.left, len(dice)))
            self.left -= listed
            shown = ", ".join([_die(die) for die in dice[:listed]])
            rest = len(dice) - listed
            shown += f", … {rest} more" if listed else f"{rest} dice"
        text = f"{head}{shown})"
        if rolled.counting:
            text += f" {rolled.number} success{'es' if abs(rolled.number) != 1 else ''}"
        return text + notes

    def group(self, rolled: RolledGroup) -> str:
        node = rolled.node
        inner = ", ".join([self.write(item) for item in rolled.items])
        comma = "," if len(node.items) == 1 and not node.parenthesised else ""
        return f"({inner}{comma}){_ops(node.operations)}{_notes(node.annotations)}"

    def unary(self, rolled: RolledUnary) -> str:
        return rolled.node.op + self.write(rolled.operand)

    def binary(self, rolled: RolledBinary) -> str:
        op = rolled.node.op
        between = f" {_plain(op)} " if op in _SPACED else _plain(op)
        return self.write(rolled.left) + between + self.write(rolled.right)


# How each kind of rolled node is written; a new kind of node adds one entry here.
WRITERS: dict[type, Callable[[_Writer, Any], str]] = {
    RolledLiteral: _Writer.literal,
    RolledDice: _Writer.dice,
    RolledGroup: _Writer.group,
    RolledUnary: _Writer.unary,
    RolledBinary: _Writer.binary,
}


def markdown(rolled: Any) -> str:
    """One rolled set as Markdown, without its total (the template adds it in bold)."""
    return _Writer().write(rolled)


def odds_note(odds: Any, total: int) -> str:
    """A verdict's chance in brackets: of this total or higher, or of a comparison being true.

    >>> from fractions import Fraction
    >>> from referee.notation.odds import Odds
    >>> odds_note(Odds(Fraction(5, 12)), 9)
    ' (this high or higher: 41.7%)'
    >>> odds_note(Odds(Fraction(11, 20), comparison=True), 0)
    ' (false; chance of true: 55.0%)'
    >>> odds_note(Odds(Fraction(1, 3), Fraction(1, 10**9)), 9)
    ' (this high or higher: 33.3% ±1e-09 for the explosions and rerolls cut off)'
    """
    if odds.chance is None:
        text = f" ({odds.reason}"
    elif odds.comparison:
        text = f" ({'true' if total else 'false'}; chance of true: {percent(odds.chance)}"
    else:
        text = f" (this high or higher: {percent(odds.chance)}"
    if odds.precision:
        text += f" ±{float(odds.precision):.0e} for the explosions and rerolls cut off"
    return text + ")"
