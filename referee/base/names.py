"""Finding the name a player meant: exactly, by its first words, or a suggestion for a typo.

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

from referee.base.effort import Effort
from referee.base.limits import DEFAULT_LIMITS

__all__ = ["NameIndex", "fold_accents", "name_key"]

# Names sharing one deleted-letter form beyond this many are not told apart by it.
_PER_VARIANT = 16
_LONGEST = 40  # letters: longer names are suggested by their first word only
_CUTOFF = 0.6  # difflib's similarity below which a name is no suggestion


def name_key(name: str) -> str:
    """How a name is compared: one space between words, casefolded.

    >>> name_key("  Kara   VENN ")
    'kara venn'
    """
    return " ".join(name.split()).casefold()


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
