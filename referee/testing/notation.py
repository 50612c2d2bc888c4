"""Hypothesis strategies for dice notation: d20's grammar, and anything a player may type.

:func:`d20_expressions` writes only what d20's ``grammar.lark`` reads (written from its
rules: dice with operations and selectors, sets, signs, arithmetic, comparisons and
annotations), to compare referee with d20 and to reach deep into the parser;
:func:`notation_text` mixes those with hostile text for "never an exception" properties.
"""

from __future__ import annotations

from hypothesis import strategies as st

from referee.testing.hostile import ANY_CHAR, ODD_CHARS

_integer = st.integers(0, 12).map(str)
_selector = st.tuples(st.sampled_from(["", "h", "l", "<", ">"]), st.integers(0, 7)).map(
    lambda pair: f"{pair[0]}{pair[1]}"
)
_dice_op = st.tuples(st.sampled_from(["k", "p", "rr", "ro", "ra", "e", "mi", "ma"]), _selector)
_set_op = st.tuples(st.sampled_from(["k", "p"]), _selector)


def _op_text(pair: tuple[str, str]) -> str:
    op, selector = pair
    if op in ("mi", "ma"):
        return op + selector.lstrip("hl<>")
    return op + selector


_dice = st.tuples(
    st.integers(0, 4), st.sampled_from([1, 2, 4, 6, 20]), st.lists(_dice_op, max_size=2)
).map(lambda t: f"{t[0]}d{t[1]}" + "".join(_op_text(op) for op in t[2]))
_annotation = st.sampled_from(["", "", " [fire]"])


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(
        inner, st.sampled_from(["+", "-", "*", "//", "%", "/", "==", "<", ">="]), inner
    )
    group = st.tuples(st.lists(inner, max_size=3), st.lists(_set_op, max_size=2))
    return (
        binary.map(lambda t: f"{t[0]} {t[1]} {t[2]}")
        | st.tuples(st.sampled_from(["-", "+"]), inner).map("".join)
        | group.map(
            lambda t: (
                "("
                + ", ".join(t[0])
                + ("," if len(t[0]) == 1 else "")
                + ")"
                + "".join(_op_text(op) for op in t[1])
            )
        )
        | inner.map(lambda text: f"({text})")
    )


_expression = st.recursive(
    st.tuples(_dice | _integer, _annotation).map("".join), _extend, max_leaves=6
)


def d20_expressions() -> st.SearchStrategy[str]:
    """Expressions of d20's grammar, small enough to roll quickly."""
    return _expression


# Characters of the notation, with the other rollers' forms players bring.
_NOTATION_CHARS = "0123456789d%()+-*/<>=!,.khlprotfeimax [] #^×−"


def notation_text() -> st.SearchStrategy[str]:
    """Anything a player may type after ``roll``: d20 expressions, mangled or whole,
    notation characters in any order, and hostile text."""
    mangled = st.tuples(_expression, st.text(_NOTATION_CHARS + ODD_CHARS, max_size=6)).map("".join)
    return (
        _expression
        | mangled
        | st.text(alphabet=_NOTATION_CHARS, max_size=40)
        | st.text(ANY_CHAR, max_size=30)
    )
