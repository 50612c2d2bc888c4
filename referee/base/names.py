"""Names as they show, and finding the name a player meant: exactly, by first words, or a typo.

Every name that enters (a sheet's ``name:``, a tag's name, an NPC, a rename) passes
through :func:`normalise_name`: NFKC, format and bidi characters dropped, blank-looking
fillers made spaces, one space between words. A name is then keyed and shown as it
looks, so ``Kara Venn\u2060`` is Kara Venn and ``Dax\u202eOrrel`` is DaxOrrel.
:func:`look_alike_key` is a name's confusable skeleton (Unicode TS #39, from the
confusables data of ``confusable_homoglyphs``): two names with one skeleton look
alike (``Kаra`` with a Cyrillic а and ``Kara``), and :func:`mixed_scripts` finds a
name spelt in letters of alphabets that are not written together.

A :class:`NameIndex` holds the campaign's names as keys (folded: one space between
words, casefolded, see :func:`name_key`). Each lookup costs the same however many
names there are:

* ``key in index``: a dict lookup;
* :meth:`NameIndex.starting`: the names a key's words begin ("kara" → "kara venn"),
  from a table of every name's leading words;
* :meth:`NameIndex.suggest`: names one or two typing slips away, from a table of
  each name (and its first word) with one letter deleted. A typo deletes, inserts,
  changes or swaps letters; deleting one letter on each side meets them all, so the
  candidates come from len(typed) + 1 lookups, each returning a few names at most.
  Accents are folded first for suggestions (``Kära`` and ``Kara`` meet, and ``Zoe``
  finds ``Zoë``), so a player with another keyboard gets the same help.

>>> index = NameIndex(["Kara Venn", "Captain Rhoss", "Trooper 1", "Trooper 2"])
>>> index.starting("kara"), index.starting("trooper")
(('kara venn',), ('trooper 1', 'trooper 2'))
>>> index.suggest("captian rhoss"), index.suggest("kra"), index.suggest("kära")
(['captain rhoss'], ['kara venn'], ['kara venn'])
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

from confusable_homoglyphs.categories import unique_aliases
from confusable_homoglyphs.confusables import confusables_data

from referee.base.effort import Effort
from referee.base.limits import BLANK_LOOKING, DEFAULT_LIMITS

__all__ = [
    "NameIndex",
    "fold_accents",
    "is_format",
    "is_invisible",
    "look_alike_key",
    "mixed_scripts",
    "name_key",
    "normalise_name",
]

# Format (Cf: zero-width, bidi, word joiner, byte-order mark...), control and surrogate
# characters show nothing, or change how the text beside them shows.
_DROPPED_CATEGORIES = frozenset({"Cf", "Cc", "Cs"})
# The rest of Unicode's default-ignorable characters, which show nothing either: the
# combining grapheme joiner, Khmer's inherent vowels, Mongolian and other variation
# selectors, unassigned ignorables and tags.
_IGNORABLE = frozenset("\u034f\u17b4\u17b5\u180b\u180c\u180d\u180f\u2065") | frozenset(
    map(chr, [*range(0xFE00, 0xFE10), *range(0xFFF0, 0xFFF9), *range(0xE0000, 0xE1000)])
)
# Scripts written together in one name (TS #39's "highly restrictive" level): Latin with
# Japanese, Chinese or Korean. Common (digits, punctuation) and Inherited (combining
# marks) go with any script.
_TOGETHER = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_ANY_SCRIPT = frozenset({"COMMON", "INHERITED", "Unknown"})  # "Unknown": not in its table


def is_format(char: str) -> bool:
    """Whether ``char`` is a format, bidi or control character (not a space): it shows
    nothing, or changes how the text beside it shows.

    >>> is_format("\u202e"), is_format("\ufeff"), is_format("\u061c"), is_format(" ")
    (True, True, True, False)
    """
    return unicodedata.category(char) in _DROPPED_CATEGORIES and not char.isspace()


def is_invisible(char: str) -> bool:
    """Whether ``char`` shows nothing in a name: a format character or another ignorable.

    >>> is_invisible("\u2060"), is_invisible("\ufe0f"), is_invisible("a")
    (True, True, False)
    """
    return is_format(char) or char in _IGNORABLE


@lru_cache(maxsize=8192)  # names repeat post after post; each is normalised once
def normalise_name(name: str) -> str:
    """``name`` as it shows: NFKC, invisible characters dropped, blanks one space each.

    >>> normalise_name("  Kara\u2060  Venn\ufeff "), normalise_name("Dax\u202eOrrel")
    ('Kara Venn', 'DaxOrrel')
    >>> normalise_name("\u3164"), normalise_name("Ｋａｒａ\u3164Venn")
    ('', 'Kara Venn')
    """
    if name.isascii() and name.isprintable():
        return " ".join(name.split())
    shown = []
    for char in unicodedata.normalize("NFKC", name):
        if char in BLANK_LOOKING or char.isspace():
            shown.append(" ")
        elif not is_invisible(char):
            shown.append(char)
    # Dropping a character may bring marks together that compose: normalised again.
    return " ".join(unicodedata.normalize("NFKC", "".join(shown)).split())


# Names sharing one deleted-letter form beyond this many are not told apart by it.
_PER_VARIANT = 16
_LONGEST = 40  # letters: longer names are suggested by their first word only
_CUTOFF = 0.6  # difflib's similarity below which a name is no suggestion


@lru_cache(maxsize=8192)
def name_key(name: str) -> str:
    """How a name is compared: as it shows (:func:`normalise_name`), casefolded.

    >>> name_key("  Kara   VENN "), name_key("Kara Venn\u2060")
    ('kara venn', 'kara venn')
    """
    return normalise_name(name).casefold()


def _prototype(char: str) -> str:
    """The character (or characters) that stands for ``char`` and every look-alike of it.

    ``confusable_homoglyphs`` keeps Unicode's confusables both ways: a character that
    imitates another lists it alone, the one imitated lists every imitation. So the
    prototype is the character with many look-alikes, the sequence a character imitates
    (``m`` looks like ``rn``), or of a pair imitating only each other, either (the lesser).
    """
    found = confusables_data.get(char)
    if not found or len(found) > 1:
        return char
    other = str(found[0]["c"])
    if len(other) > 1:
        return "".join(map(_prototype, other))
    return other if len(confusables_data.get(other, ())) > 1 else min(char, other)


def _skeleton(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(map(_prototype, decomposed)))


@lru_cache(maxsize=8192)
def look_alike_key(name: str) -> str:
    """What ``name`` looks like: its TS #39 skeleton, case folded (names ignore case).

    Two names with one key look alike: a Cyrillic ``а`` for a Latin ``a``, ``0`` for
    ``O``, ``rn`` for ``m``.

    >>> look_alike_key("K\u0430ra Venn") == look_alike_key("KARA VENN")
    True
    >>> look_alike_key("Kara Venn") == look_alike_key("Kara Vern")
    False
    """
    return _skeleton(_skeleton(normalise_name(name)).casefold())


def mixed_scripts(name: str) -> tuple[str, ...]:
    """The alphabets ``name`` mixes that are not written together (empty if none).

    >>> mixed_scripts("K\u0430ra Venn"), mixed_scripts("Zoë 2"), mixed_scripts("山田エリ")
    (('Cyrillic', 'Latin'), (), ())
    """
    scripts = unique_aliases(normalise_name(name)) - _ANY_SCRIPT
    if len(scripts) < 2 or any(scripts <= together for together in _TOGETHER):
        return ()
    return tuple(sorted(script.title() for script in scripts))


def fold_accents(text: str) -> str:
    """``text`` without accents and other combining marks, for comparing spellings.

    >>> fold_accents("kära zoë ångström")
    'kara zoe angstrom'
    """
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _deletions(word: str) -> set[str]:
    """``word`` and every string one letter shorter.

    >>> sorted(_deletions("abc"))
    ['ab', 'abc', 'ac', 'bc']
    """
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


class NameIndex:
    """The keys of a set of names, for exact, first-words and misspelled lookups."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._keys: dict[str, None] = {}
        self._leading: dict[str, list[str]] = {}  # "kara" -> ["kara venn", ...]
        self._variants: dict[str, list[str]] | None = None  # built at the first typo
        for name in names:
            self.add(name)

    def add(self, name: str) -> str:
        """Index ``name``; its key."""
        key = name_key(name)
        if key in self._keys:
            return key
        self._keys[key] = None
        words = key.split(" ")
        for count in range(1, len(words)):
            self._leading.setdefault(" ".join(words[:count]), []).append(key)
        if self._variants is not None:
            self._add_variants(key)
        return key

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def starting(self, key: str) -> tuple[str, ...]:
        """The keys whose first words are ``key``'s words, in the order they were added."""
        return tuple(self._leading.get(key, ()))

    def resolve(self, key: str) -> str | None:
        """``key`` itself if indexed, else the only key it starts, else ``None``."""
        if key in self._keys:
            return key
        starting = self._leading.get(key, ())
        return starting[0] if len(starting) == 1 else None

    def suggest(
        self,
        key: str,
        limit: int = 3,
        allowed: Callable[[str], bool] | None = None,
        budget: int = DEFAULT_LIMITS.max_suggest_steps,
    ) -> list[str]:
        """Up to ``limit`` keys that ``key`` may be a misspelling of, the closest first.

        Accents and case do not count against a name. ``allowed`` (a key -> bool) leaves
        out names the asker may not learn of, such as an NPC hidden from players.
        Comparing ``key`` with a name costs a step per letter of both, from ``budget``
        steps and from the open tag's (:mod:`referee.base.effort`); past either, the names
        found so far are all there is.
        """
        effort = Effort(budget)
        if self._variants is None:
            self._variants = {}
            for known in self._keys:
                self._add_variants(known)
        typed_key = fold_accents(key)
        candidates: dict[str, None] = {}
        for typed in (typed_key, typed_key.split(" ")[0]):
            if len(typed) > _LONGEST:
                continue
            for variant in _deletions(typed):
                candidates.update(dict.fromkeys(self._variants.get(variant, ())))
        scored = []
        matcher = difflib.SequenceMatcher()
        matcher.set_seq2(typed_key)
        for candidate in candidates:
            if candidate == key or (allowed is not None and not allowed(candidate)):
                continue
            if not effort.spend(2 * (len(candidate) + len(typed_key))):
                break
            best = 0.0
            folded = fold_accents(candidate)
            for form in (folded, folded.split(" ")[0]):
                matcher.set_seq1(form)
                if matcher.real_quick_ratio() >= _CUTOFF and matcher.quick_ratio() >= _CUTOFF:
                    best = max(best, matcher.ratio())
            if best >= _CUTOFF:
                scored.append((-best, candidate))
        return [candidate for _, candidate in sorted(scored)[:limit]]

    def _add_variants(self, key: str) -> None:
        assert self._variants is not None
        folded = fold_accents(key)
        forms = {folded.split(" ")[0]}
        if len(folded) <= _LONGEST:
            forms.add(folded)
        for form in forms:
            for variant in _deletions(form):
                found = self._variants.setdefault(variant, [])
                if len(found) < _PER_VARIANT and key not in found:
                    found.append(key)
