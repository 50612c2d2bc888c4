"""Hypothesis strategies for hostile posts: what a player or GM could type, at its worst.

Used by the property tests of the tag parser, the sheet parser and the whole pipeline.
Every strategy draws text that may hold lone surrogates, invisible characters, digits
that are not ASCII and numbers far past any limit, mixed with the words the parsers
look for, so examples reach deep into each verb instead of failing at the first word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st

from referee.base.limits import DEFAULT_LIMITS
from referee.resolve.dispatch import verbs_for

if TYPE_CHECKING:
    from referee.system import Verb

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


def names() -> st.SearchStrategy[str]:
    """A name as typed: a known one mostly, else junk or invisible characters."""
    return st.one_of(
        st.sampled_from(NAMES),
        st.sampled_from(NAMES),
        junk(8),
        st.text(alphabet="\u200b\u200d\u202e\u2066\ufeff ", max_size=4),
    )


def _formed() -> st.SearchStrategy[str]:
    """Well-formed tags of every verb, with hostile names and numbers in their slots."""
    n = st.one_of(st.integers(0, 7).map(str), numbers())
    name = names()
    sign = st.sampled_from(["+", "-", ""])
    option = st.sampled_from(["", " head", " left arm", " unaware", " subdue", " with blaster"])
    stat = st.sampled_from(["agility", "str", "per+end", "agi + per", "x"])
    sheet_stats = st.builds(lambda a, b, c, d: f"str {a}, agi {b}, end {c}, per {d}", n, n, n, n)
    forms = [
        st.builds(lambda a, t, o, s, m: f"shoot {a} -> {t}{o} {s}{m}", name, name, option, sign, n),
        st.builds(lambda a, t, m: f"melee {a} -> {t} subdue -{m}", name, name, n),
        st.builds(lambda a, s, g, m: f"roll {a} {s} {g}{m}", name, stat, sign, n),
        st.builds(lambda c, s, m: f"roll {c}d{s}+{m}", n, n, n),
        st.builds(lambda a, b: f"init {a}, {b}", name, name),
        st.builds(lambda a, m: f"cast {a} Telekinesis +{m}", name, n),
        st.builds(lambda a, t: f"npc {a}: {t}", name, sheet_stats),
        st.builds(lambda a, t: f"npc {a} as {t}", name, st.sampled_from(["trooper", "x"])),
        st.builds(lambda a, g, m: f"wound {a} {g}{m}", name, sign, n),
        st.builds(lambda a, m: f"heal {a} {m}", name, n),
        st.builds(lambda a: f"heal {a}", name),
        st.builds(lambda m, t: f"approve with named, tough {m}, move X to d{t}", n, n),
        st.builds(lambda a: f"approve {a}", name),
        st.builds(lambda w: f"reject {w}", junk(20)),
        st.builds(lambda a, w: f"revise {a}: {w}", name, junk(20)),
        st.just("end encounter"),
        st.builds(lambda v, m: f"stat {v} armour +{m}", name, n),
    ]
    return st.one_of(*forms)


def tag_texts(verbs: Iterable[str] = ()) -> st.SearchStrategy[str]:
    """What goes inside ``[[ ]]``: every verb well formed with hostile values in its
    slots, every verb with random words after it, or anything at all.

    ``verbs`` are the verb words to try (a system's verb table); the core's by default.
    The well-formed shapes are stepped's verbs; under another system they are unknown.
    """
    verb = st.sampled_from(sorted(verbs or verbs_for(None))) | words()
    built = st.builds(lambda v, rest: " ".join([v, *rest]), verb, st.lists(words(), max_size=10))
    return st.one_of(_formed(), _formed(), built, junk(40))


def _sheet_line(key: str, typical: str) -> st.SearchStrategy[str]:
    hostile = st.one_of(numbers(), names(), junk(10))
    return st.one_of(
        st.just(f"{key}: {typical}"),
        st.just(f"{key}: {typical}"),
        hostile.map(lambda value: f"{key}: {value}"),
    )


# A legal sheet's lines, each of which the strategy may replace with a hostile value.
_LEGAL_SHEET = (
    ("name", "Orla Vex"),
    ("race", "human"),
    ("background", "soldier"),
    ("strength", "2"),
    ("agility", "d8"),
    ("endurance", "2"),
    ("perception", "3"),
    ("armour", "1"),
    ("weapon", "blaster, ranged, 2d6"),
    ("weapon", "baton, melee, +1, subdue"),
    ("magic", "Force 2"),
    ("technique", "Telekinesis d4"),
)


def sheet_texts() -> st.SearchStrategy[str]:
    """A sheet: a legal one with some lines made hostile, or known keys with hostile
    values and junk lines."""
    legal = st.tuples(*(_sheet_line(key, typical) for key, typical in _LEGAL_SHEET))
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
    return st.one_of(legal.map("\n".join), st.lists(line, max_size=12).map("\n".join))


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


# Dice notation's own alphabet: what a roll is written in, and what a repair works on.
NOTATION_ALPHABET = "0123456789dDkKhHlLxX+-−*/%(),. "


def _own_words(verb: Verb) -> list[str]:
    """The words of a verb's form, example and aliases, as a player would copy them."""
    text = " ".join((verb.name, *verb.aliases, verb.form, verb.example))
    return sorted(set(re.findall(r"[^\s\[\]]+", text)))


def costly_tags(
    verbs: Mapping[str, Verb],
    names: Iterable[str] = NAMES,
    max_chars: int = DEFAULT_LIMITS.max_tag_chars,
) -> st.SearchStrategy[str]:
    """Tags built to make the reader search: up to ``max_chars`` of dice notation's
    alphabet, bare or after a verb, and every verb of ``verbs`` followed by its own
    words, names and notation in any order, some misspelt by a letter."""
    notation = st.text(alphabet=NOTATION_ALPHABET, max_size=max_chars)
    known = sorted(set(names))

    def words_of(verb: Verb) -> st.SearchStrategy[str]:
        word = st.one_of(
            st.sampled_from(_own_words(verb)),
            st.sampled_from(known),
            st.text(alphabet=NOTATION_ALPHABET, min_size=1, max_size=12),
        )
        slip = st.builds(lambda w, i: w[:i] + w[i + 1 :], word, st.integers(0, 12))
        return st.lists(word | slip, max_size=max_chars // 4).map(" ".join)

    canonical = sorted({verb.name: verb for verb in verbs.values()}.items())
    per_verb = [
        st.builds(lambda head, rest: f"{head} {rest}", st.just(name), words_of(verb))
        for name, verb in canonical
    ]
    spelled = st.builds(
        lambda verb, rest: f"{verb} {rest}",
        st.sampled_from([name for name, _ in canonical]),
        notation,
    )
    tags = st.one_of(notation, spelled, *per_verb)
    # Hypothesis draws short texts mostly: a drawn tag said again and again reaches the
    # longest a tag may be, where a search costs the most.
    repeated = st.builds(lambda text, times: " ".join([text] * times), tags, st.integers(2, 400))
    return st.one_of(tags, repeated).map(lambda text: text[:max_chars])
