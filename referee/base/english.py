"""Small English for messages built around a variable word: "a" or "an" before it.

A refusal such as ``f"A {tier} writes ..."`` reads "A advanced writes" when the word
comes from a rule table or a campaign's config (tiers, races, trait kinds, ordinals);
:func:`with_article` picks the article by the word's sound, closely enough for the
words referee says. No imports: the lowest modules (:mod:`referee.base.dice`) use it too.

>>> with_article("advanced"), with_article("beginner"), with_article("8th")
('an advanced', 'a beginner', 'an 8th')
"""

from __future__ import annotations

# Vowel letters that sound like a consonant ("a unique", "a one-die line", "a European").
_CONSONANT_SOUND = ("uni", "use", "usu", "uti", "ure", "uro", "eu", "one", "once")
_SILENT_H = ("hour", "honest", "honour", "honor", "heir")  # "an hour"
_VOWEL_LETTER_NAMES = "AEFHILMNORSX"  # "an NPC", "an HP", "an X-wing"


def article(word: str) -> str:
    """ "a" or "an" for ``word``, by how it is said (an acronym by its first letter's name).

    >>> [article(w) for w in ("ability", "skill", "unique", "hour", "NPC", "11th", "1st")]
    ['an', 'a', 'a', 'an', 'an', 'an', 'a']
    """
    text = word.strip()
    if not text:
        return "a"
    head = text.split()[0].split("-")[0]
    if head[0].isdigit():
        digits = "".join(c for c in head if c.isdigit())
        # eight..., eighty..., eleven, eighteen (and their thousands, millions)
        vowel = digits.startswith("8") or (digits[:2] in ("11", "18") and len(digits) % 3 == 2)
        return "an" if vowel else "a"
    if len(head) > 1 and head.isupper():
        return "an" if head[0] in _VOWEL_LETTER_NAMES else "a"
    lower = head.casefold()
    if lower.startswith(_SILENT_H):
        return "an"
    if lower.startswith(_CONSONANT_SOUND):
        return "a"
    return "an" if lower[0] in "aeiou" else "a"


def with_article(word: str, capital: bool = False) -> str:
    """``word`` with "a" or "an" before it; ``capital``: to open a sentence.

    >>> with_article("master"), with_article("advanced", capital=True)
    ('a master', 'An advanced')
    """
    said = article(word)
    return f"{said.capitalize() if capital else said} {word}"
