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
from referee.notation.tree import COMPARISONS, Binary, Dice, Group, Literal, Unary

DICE_SHOWN = 40  # dice listed per group; the rest are counted
TREE_DICE_SHOWN = 200  # dice listed in one rolled tree, over all its groups
REROLLS_SHOWN = 3  # rerolled faces listed per die; the rest are counted
FACES_INLINE = 6  # a compiled writer writes up to this many faces of a term one by one
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
# The text of a node that no roll changes, by kind of node: a literal's number, a dice
# term's "4d6kh3 (" and annotations, a set's closing ")kh1", an operator with its spaces.
FIXED: dict[type, Callable[[Any], Any]] = {
    Literal: lambda node: str(node.value) + _notes(node.annotations),
    Dice: lambda node: (
        f"{node.count}d{node.sides}{_ops(node.operations)} (",
        _notes(node.annotations),
    ),
    Group: lambda node: (
        "," if len(node.items) == 1 and not node.parenthesised else "",
        f"){_ops(node.operations)}{_notes(node.annotations)}",
    ),
    Unary: lambda node: node.op,
    Binary: lambda node: f" {_plain(node.op)} " if node.op in _SPACED else _plain(node.op),
}
# id(root) -> (root, its nodes' text, its compiled writer or None)
_TREES: dict[int, tuple[Any, dict[int, Any], Callable[[Any], str | None] | None]] = {}


def fixed_text(root: Any) -> dict[int, Any]:
    """Every node's fixed text in the tree under ``root`` (see :data:`FIXED`), by id(node).

    A parsed tree is cached by its text and rolled again and again, so this is made
    once a tree. Trees are looked up by identity (hashing a frozen node hashes its whole
    subtree), each kept beside its table, so no id in it can be reused meanwhile.
    """
    return _tree(root)[1]


def _tree(root: Any) -> tuple[Any, dict[int, Any], Callable[[Any], str | None] | None]:
    """The tree's entry in :data:`_TREES`, made the first time it is written."""
    known = _TREES.get(id(root))
    if known is not None and known[0] is root:
        return known
    table: dict[int, Any] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        table[id(node)] = FIXED[type(node)](node)
        stack.extend(_children(node))
    if len(_TREES) >= 4096:
        _TREES.clear()
    entry = _TREES[id(root)] = (root, table, _compile_writer(root, table))
    return entry


class _PlainWriter:
    """The source of a plain tree's writer: its text, fixed pieces and each term's faces.

    A tree with no operations anywhere (nothing kept, dropped, rerolled or exploded)
    and no more dice than are listed reads as fixed text with each term's faces between
    (``2d6 (`` faces ``) + 3``), so it is written by one f-string, compiled once a tree.
    Its guard falls back to :class:`_Writer` for a tree some enclosing set's operation
    changed (a subtree written on its own): every node kept, every term's faces untouched.
    """

    def __init__(self, fixed: dict[int, Any]) -> None:
        self.fixed = fixed
        self.names: dict[str, Any] = {"J": ", ".join}
        self.pieces: list[str] = []  # f-string fields: a constant's name or a term's faces
        self.guards: list[str] = []
        self.text = ""  # fixed text not yet named
        self.dice = 0

    def constant(self, text: str) -> None:
        self.text += text

    def field(self, source: str) -> None:
        if self.text:
            self.pieces.append(self.name(self.text))
            self.text = ""
        self.pieces.append(source)

    def name(self, value: Any) -> str:
        name = f"c{len(self.names)}"
        self.names[name] = value
        return name

    def visit(self, node: Any, path: str) -> bool:
        """Add the node at ``path`` (source reaching its rolled node); False if not plain."""
        self.guards.append(f"{path}.kept")
        fixed = self.fixed[id(node)]
        if isinstance(node, Literal):
            self.constant(fixed)
        elif isinstance(node, Dice):
            if node.operations or node.count > DICE_SHOWN:
                return False
            self.dice += node.count
            faces = f"u{len(self.guards)}"
            self.guards.append(f"({faces} := {path}.untouched) is not None")
            self.constant(fixed[0])
            if node.count <= FACES_INLINE:  # 2d6: its faces indexed, no join over a map
                if node.count > 1:
                    self.guards.append(f"len({faces}) == {node.count}")
                for index in range(node.count):
                    if index:
                        self.constant(", ")
                    self.field(f"{faces}[{index}]")
            else:
                self.field(f"J(map(str, {faces}))")
            self.constant(")" + fixed[1])
        elif isinstance(node, Group):
            if node.operations:
                return False
            self.constant("(")
            for index, item in enumerate(node.items):
                if index:
                    self.constant(", ")
                if not self.visit(item, f"{path}.items[{index}]"):
                    return False
            self.constant(fixed[0] + fixed[1])
        elif isinstance(node, Unary):
            self.constant(fixed)
            return self.visit(node.operand, f"{path}.operand")
        elif isinstance(node, Binary):
            if not self.visit(node.left, f"{path}.left"):
                return False
            self.constant(fixed)
            return self.visit(node.right, f"{path}.right")
        else:
            return False
        return True


def _compile_writer(root: Any, fixed: dict[int, Any]) -> Callable[[Any], str | None] | None:
    """A plain tree's writer (see :class:`_PlainWriter`), or None for any other tree.

    The writer returns the text :class:`_Writer` would, or None when its guard fails.
    The source holds only names: the fixed text (annotations a player wrote among it)
    is handed in as constants.
    """
    source = _PlainWriter(fixed)
    try:
        if not source.visit(root, "r") or source.dice > TREE_DICE_SHOWN:
            return None
        source.field("")  # names the fixed text left at the end
        fields = "".join("{" + piece + "}" for piece in source.pieces if piece)
        code = (
            f"def write(r):\n    if {' and '.join(source.guards)}:\n"
            f'        return f"{fields}"\n    return None'
        )
        exec(code, source.names)  # our own names only: see the docstring
    except (RecursionError, SyntaxError, MemoryError):  # too deep to compile: write generally
        return None
    return source.names["write"]


def _children(node: Any) -> tuple[Any, ...]:
    if isinstance(node, Group):
        return node.items
    if isinstance(node, Unary):
        return (node.operand,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    return ()


class _Writer:
    """Writes one rolled tree, listing at most :data:`TREE_DICE_SHOWN` dice in all.

    Each writer calls the next through :data:`WRITERS` itself (a call a node fewer than
    a ``write`` method would take).
    """

    __slots__ = ("fixed", "left")

    def __init__(self, fixed: dict[int, Any]) -> None:
        self.fixed = fixed
        self.left = TREE_DICE_SHOWN

    def literal(self, rolled: RolledLiteral) -> str:
        text = self.fixed[id(rolled.node)]
        return text if rolled.kept else f"~~{text}~~"

    def dice(self, rolled: RolledDice) -> str:
        head, notes = self.fixed[id(rolled.node)]
        faces = rolled.untouched
        if faces is not None and len(faces) <= DICE_SHOWN and len(faces) <= self.left:
            self.left -= len(faces)
            text = f"{head}{', '.join(map(str, faces))}){notes}"  # no die struck or marked
            return text if rolled.kept else f"~~{text}~~"
        dice = rolled.dice
        if len(dice) <= DICE_SHOWN and len(dice) <= self.left:
            self.left -= len(dice)
            # A kept die no operation touched is its face: the usual die, written inline.
            shown = ", ".join([str(d.value) if d.kept and not d.marked else _die(d) for d in dice])
        else:
            listed = max(0, min(DICE_SHOWN, self.left, len(dice)))
            self.left -= listed
            shown = ", ".join([_die(die) for die in dice[:listed]])
            rest = len(dice) - listed
            shown += f", … {rest} more" if listed else f"{rest} dice"
        text = f"{head}{shown})"
        if rolled.counting:
            text += f" {rolled.number} success{'es' if abs(rolled.number) != 1 else ''}"
        text += notes
        return text if rolled.kept else f"~~{text}~~"

    def group(self, rolled: RolledGroup) -> str:
        comma, tail = self.fixed[id(rolled.node)]
        inner = ", ".join([WRITERS[type(item)](self, item) for item in rolled.items])
        text = f"({inner}{comma}{tail}"
        return text if rolled.kept else f"~~{text}~~"

    def unary(self, rolled: RolledUnary) -> str:
        operand = rolled.operand
        text = f"{self.fixed[id(rolled.node)]}{WRITERS[type(operand)](self, operand)}"
        return text if rolled.kept else f"~~{text}~~"

    def binary(self, rolled: RolledBinary) -> str:
        left, right = rolled.left, rolled.right
        text = (
            WRITERS[type(left)](self, left)
            + self.fixed[id(rolled.node)]
            + WRITERS[type(right)](self, right)
        )
        return text if rolled.kept else f"~~{text}~~"


# How each kind of rolled node is written; a new kind of node adds one entry here.
WRITERS: dict[type, Callable[[_Writer, Any], str]] = {
    RolledLiteral: _Writer.literal,
    RolledDice: _Writer.dice,
    RolledGroup: _Writer.group,
    RolledUnary: _Writer.unary,
    RolledBinary: _Writer.binary,
}


def plain_writer(node: Any) -> Callable[[Any], str | None] | None:
    """The compiled writer of a plain tree rooted at ``node`` (None for any other tree):
    it writes a set of that tree as :func:`markdown` does, or returns None (then
    :func:`markdown` writes it) when some enclosing operation changed the set."""
    return _tree(node)[2]


def markdown(rolled: Any) -> str:
    """One rolled set as Markdown, without its total (the template adds it in bold)."""
    node = rolled.node
    known = _TREES.get(id(node))
    if known is None or known[0] is not node:
        known = _tree(node)
    if known[2] is not None:
        text = known[2](rolled)
        if text is not None:
            return text
    return WRITERS[type(rolled)](_Writer(known[1]), rolled)


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

    The note is remembered per odds object and total (the same few repeat all game):
    the odds of a total come from a cache, one object per expression and total, so
    they are looked up by identity, not by hashing their fractions; each is kept
    beside its note so a reused id cannot match.
    """
    key = (id(odds), total)
    known = _NOTES.get(key)
    if known is not None and known[0] is odds:
        return known[1]
    text = _note(odds, total)
    if len(_NOTES) >= 4096:
        _NOTES.clear()
    _NOTES[key] = (odds, text)
    return text


_NOTES: dict[tuple[int, Any], tuple[Any, str]] = {}


def _note(odds: Any, total: int) -> str:
    if odds.chance is None:
        text = f" ({odds.reason}"
    elif odds.comparison:
        text = f" ({'true' if total else 'false'}; chance of true: {percent(odds.chance)}"
    else:
        text = f" (this high or higher: {percent(odds.chance)}"
    if odds.precision:
        text += f" ±{float(odds.precision):.0e} for the explosions and rerolls cut off"
    return text + ")"
