"""Generic dice notation: read ``(1d20+5)*2`` or ``4d6kh3`` into a syntax tree.

The pipeline follows avrae/d20, minus the global :mod:`random`, one topic a module:
:mod:`referee.notation.parse` reads text into the frozen nodes of
:mod:`referee.notation.tree` (every size held by :mod:`referee.notation.limits` to the
one :class:`~referee.base.limits.Limits`, every refusal worded by
:mod:`referee.notation.advice`), :mod:`referee.notation.roll` rolls a tree with a
passed-in :class:`~referee.base.dice.DiceSource`, :mod:`referee.notation.odds` gives the exact odds
of its total and :mod:`referee.notation.markdown` writes a rolled tree for a verdict.
This module is their public face. The package may import :mod:`referee.base` alone:
the dice language knows no tag, verb, store or dice system.

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

from referee.notation.advice import USAGE
from referee.notation.odds import Odds, chance_at_least, distribution, odds
from referee.notation.parse import dice_hint, parse_expression
from referee.notation.roll import RolledExpression, roll_expression
from referee.notation.tree import (
    COMPARISONS,
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

_ADVANTAGE_WORDS = frozenset(("adv", "dis", "advantage", "disadvantage"))


def looks_like_expression(text: str) -> bool:
    """Whether ``text`` starts like dice notation rather than a name.

    Used to tell ``roll 2d6+3`` or ``roll (1d6)`` from ``roll Kara agility``; it does
    not validate: a body that starts like notation is read as notation, and its
    problems are reported as notation problems.

    >>> looks_like_expression("d20"), looks_like_expression("(1+3)*6")
    (True, True)
    >>> looks_like_expression("Dax agility"), looks_like_expression("adv 1d20+5")
    (False, True)
    """
    stripped = text.lstrip()
    if not stripped:
        return False
    words = stripped.split(None, 1)
    if len(words) == 2 and words[0].lower() in _ADVANTAGE_WORDS:
        return looks_like_expression(words[1])  # "adv 1d20": answered as notation
    first = stripped[0]
    if first.isdigit() or first in "(+-−.":
        return True
    return first in "dD" and len(stripped) > 1 and (stripped[1].isdigit() or stripped[1] == "%")


__all__ = [
    "COMPARISONS",
    "USAGE",
    "Binary",
    "Dice",
    "Expression",
    "Group",
    "Literal",
    "Node",
    "Number",
    "Odds",
    "Operation",
    "RolledExpression",
    "Selector",
    "Unary",
    "chance_at_least",
    "dice_hint",
    "distribution",
    "looks_like_expression",
    "odds",
    "parse_expression",
    "roll_expression",
]
