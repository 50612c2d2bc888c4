"""Hypothesis strategies for hostile posts: what a player or GM could type, at its worst.

Used by the property tests of the tag parser, the sheet parser and the whole pipeline.
Every strategy draws text that may hold lone surrogates, invisible characters, digits
that are not ASCII and numbers far past any limit, mixed with the words the parsers
look for, so examples reach deep into each verb instead of failing at the first word.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hypothesis import strategies as st

from ..resolve import verbs_for

# Characters of every category, lone surrogates included.
ANY_CHAR = st.characters(exclude_categories=())
# Look-alike digits that str.isdigit() accepts and int() may not, and invisible marks.
ODD_CHARS = "²³①٣߃০¹\u200b\u200c\u200d\u2060\ufeff\u202e\u2066\u00ad\ud800\udfff"

NAMES = ("Kara", "Kara Venn", "Trooper 1", "Trooper 2", "Orla Vex", "Bandit", "X-Wing")
WORDS = (
    "->",
    "at",
    "head",
    "left",
    "arm",
    "leg",
    "unaware",
    "subdue",
    "with",
    "blaster",
    "baton",
    "env",
    "cover",
    "vs",
    "as",
    "trooper",
    "str",
    "agi",
    "end",
    "per",
    "agility",
    "strength",
    "named",
    "tough",
    "move",
    "to",
    "d8",
    "forbid",
    "force",
    "encounter",
    "Telekinesis",
    "+",
    "-",
    ",",
    ":",
    "2d6+3",
    "d20",
    "4d6kh3",
)
SHEET_KEYS = (
    "name",
    "race",
    "background",
    "strength",
    "agility",
    "endurance",
    "perception",
    "armour",
    "tough",
    "weapon",
    "magic",
    "technique",
    "named",
    "kind",
    "str",
)


def numbers() -> st.SearchStrategy[str]:
    """Numbers as typed: small, huge, signed, zero-padded, or in look-alike digits."""
    return st.one_of(
        st.integers(-12, 12).map(str),
        st.integers(-(10**30), 10**30).map(lambda n: f"{n:+d}" if n % 2 else str(n)),
        st.text(alphabet="0123456789", min_size=1, max_size=60),
        st.text(alphabet=ODD_CHARS + "0123456789+-d", min_size=1, max_size=6),
    )


def junk(max_size: int = 12) -> st.SearchStrategy[str]:
    """Short text of any characters, odd ones over-represented."""
    return st.text(alphabet=ANY_CHAR | st.sampled_from(ODD_CHARS), max_size=max_size)


def words() -> st.SearchStrategy[str]:
    """One word of a tag: a name, a keyword, a number or junk."""
    return st.one_of(st.sampled_from(NAMES + WORDS), numbers(), junk())


def tag_texts(verbs: Iterable[str] = ()) -> st.SearchStrategy[str]:
    """What goes inside ``[[ ]]``: every verb with random arguments, or anything at all.

    ``verbs`` are the verb words to try (a system's verb table); the core's by default.
    """
    verb = st.sampled_from(sorted(verbs or verbs_for(None))) | words()
    built = st.builds(lambda v, rest: " ".join([v, *rest]), verb, st.lists(words(), max_size=10))
    return st.one_of(built, junk(40))


def sheet_texts() -> st.SearchStrategy[str]:
    """A sheet's lines: known keys with hostile values, and junk lines."""
    line = st.one_of(
        st.builds(
            lambda key, value: f"{key}: {value}",
            st.sampled_from(SHEET_KEYS),
            st.one_of(
                numbers(),
                words(),
                st.builds(lambda n, s: f"d{n}" if s else n, numbers(), st.booleans()),
                st.lists(words(), max_size=4).map(", ".join),
            ),
        ),
        junk(30),
    )
    return st.lists(line, max_size=12).map("\n".join)


def bodies(verbs: Iterable[str] = ()) -> st.SearchStrategy[str]:
    """A post's Markdown: tags (of ``verbs``, see :func:`tag_texts`), a sheet, junk around."""
    tags = st.lists(tag_texts(verbs).map(lambda text: f"[[{text}]]"), max_size=4)
    apply = st.one_of(
        st.just(""),
        sheet_texts().map(lambda sheet: f"[[apply]]\n\n```\n{sheet}\n```\n"),
    )
    return st.builds(
        lambda tags, apply, noise: " ".join(tags) + "\n\n" + apply + noise,
        tags,
        apply,
        junk(20),
    )


def saved_thread(posts: list[tuple[str, str]]) -> Any:
    """A saved thread's JSON document holding ``(author, body)`` comments in order."""
    children = [
        {
            "kind": "t1",
            "data": {
                "name": f"t1_p{index}",
                "link_id": "t3_thread",
                "parent_id": f"t1_p{index - 1}" if index else "t3_thread",
                "author": author,
                "body": body,
                "created_utc": 10 + index,
                "edited": False,
            },
        }
        for index, (author, body) in enumerate(posts)
    ]
    submission = {"kind": "t3", "data": {"name": "t3_thread", "author": "gm", "selftext": ""}}
    return [{"data": {"children": [submission]}}, {"data": {"children": children}}]
