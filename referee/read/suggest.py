"""What a player probably meant by a tag that starts with no verb of the campaign.

A suggestion is only worth making when it would work, so it is built from the verb
table (the core's verbs and the campaign system's, whatever verbs they hold today)
and checked against the verbs' own parsers:

* **a known form without its verb**: ``[[Kara agility]]`` starts with a character's
  name; if the ``roll`` verb reads the whole tag, the suggestion is
  ``[[roll Kara agility]]``;
* **a misspelt verb**: the verbs spelt like the first word, closest first; the first
  whose parser reads the rest of the tag is suggested with the tag corrected
  (``[[shot Kara -> Trooper 1]]`` → ``[[shoot Kara -> Trooper 1]]``). A verb the rest
  does not fit is suggested only when the word is one slip away from it (``shooot``),
  never merely because it shares letters (``sheet`` is no ``shoot``).

Nothing here knows a system's verbs by name except ``roll``, the core's own.

>>> from referee.resolve.dispatch import verbs_for
>>> from referee.read.tags import ParseContext
>>> verbs = verbs_for(None)
>>> suggest_verb("rol", "2d6", verbs, ParseContext()).usage
'[[roll 2d6]]'
>>> suggest_verb("hlep", "", verbs, ParseContext()).verb.name
'help'
>>> suggest_verb("dossier", "Kara", verbs, ParseContext()) is None
True
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from referee.base.effort import Effort
from referee.base.errors import UserError

if TYPE_CHECKING:
    from referee.system import ParseContext, Verb

__all__ = ["Suggestion", "close_verb", "suggest_verb"]

SPELLING_CUTOFF = 0.6  # difflib's similarity below which a verb is not considered at all
SLIP_CUTOFF = 0.8  # a word this close is a slip of the verb even when the rest does not fit
_LONGEST_SLIP = 40  # letters: a longer first word is no slip of any verb
_LONGEST_ECHO = 120  # a corrected tag longer than this is not echoed; the verb's form is shown


@dataclass(frozen=True)
class Suggestion:
    """A verb the player probably meant, and the tag corrected when the rest fits its form."""

    verb: Verb
    text: str | None = None  # the corrected tag's text (no brackets), when it parses
    verb_added: bool = False  # the player's words were a form of the verb, written without it

    @property
    def usage(self) -> str:
        """The form shown under the problem: the corrected tag, else the verb's own form."""
        return f"[[{self.text}]]" if self.text else self.verb.usage

    @property
    def hint(self) -> str:
        """The sentence added to the problem."""
        if self.verb_added:
            return f" A tag starts with its verb, here {self.verb.name}."
        return f" Did you mean {self.verb.name}?"


def _fits(verb: Verb, rest: str, context: ParseContext) -> bool:
    """Whether ``verb``'s parser reads ``rest`` (its own rules, its own limits)."""
    try:
        verb.parse(rest, context)
    except UserError:  # TagError, or a number a parser's read_int refused
        return False
    return True


def _echo(text: str) -> str | None:
    """``text`` if it may be shown inside a code span in a reply, else None."""
    text = " ".join(text.split())
    if not text or "`" in text or len(text) > _LONGEST_ECHO:
        return None
    return text


@lru_cache(maxsize=8)
def _first_words(names: frozenset[str]) -> frozenset[str]:
    """The first word of every known name (``kara venn`` → ``kara``), made once per roster."""
    return frozenset(name.split(" ", 1)[0] for name in names)


def starts_with_name(text: str, context: ParseContext) -> bool:
    """Whether ``text`` starts with a known name, whole or by its first word."""
    words = text.casefold().split()
    return bool(words) and words[0] in _first_words(context.known_names)


def _spelled_like(word: str, verbs: Mapping[str, Verb]) -> list[tuple[float, str]]:
    """The verb words spelt like ``word`` (difflib's similarity at least SPELLING_CUTOFF),
    the closest first, with their similarity: :func:`difflib.get_close_matches` with the
    scores kept, so one pass serves both the guess and the slip."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    scored = []
    for known in verbs:
        matcher.set_seq1(known)
        if (
            matcher.real_quick_ratio() >= SPELLING_CUTOFF
            and matcher.quick_ratio() >= SPELLING_CUTOFF
            and (score := matcher.ratio()) >= SPELLING_CUTOFF
        ):
            scored.append((score, known))
    return sorted(scored, reverse=True)  # ties as difflib breaks them: the later word first


def close_verb(word: str, verbs: Mapping[str, Verb], cutoff: float = SLIP_CUTOFF) -> Verb | None:
    """The verb ``word`` is a slip of (``shot`` → shoot), by spelling alone; None if none.

    >>> from referee.resolve.dispatch import verbs_for
    >>> close_verb("hlp", verbs_for(None)).name, close_verb("dossier", verbs_for(None))
    ('help', None)
    """
    close = _spelled_like(word.casefold()[: _LONGEST_SLIP + 1], verbs)
    return verbs[close[0][1]] if close and close[0][0] >= cutoff else None


def suggest_verb(
    word: str, rest: str, verbs: Mapping[str, Verb], context: ParseContext
) -> Suggestion | None:
    """What a tag starting with the unknown ``word`` (then ``rest``) probably meant, if anything.

    ``context`` carries the known names (for forms that start with a name) and the
    limits the verbs' parsers apply. The suggestion's names are the player's own, so
    it never points at a character or vehicle the tag did not name.

    Trying the tag against a verb's parser costs a step per character, from
    ``Limits.max_suggest_steps`` and the open tag's budget (:mod:`referee.base.effort`); past
    either, the search gives up and the problem names the verbs without a guess.
    """
    effort = Effort(context.limits.max_suggest_steps)
    text = f"{word} {rest}".strip()
    roll = verbs.get("roll")
    if (
        roll is not None
        and starts_with_name(text, context)
        and effort.spend(len(text))
        and _fits(roll, text, context)
    ):
        return Suggestion(roll, _echo(f"{roll.name} {text}"), verb_added=True)
    folded = word.casefold()
    if len(folded) > _LONGEST_SLIP:
        return None  # no verb is that long, nor two slips away from it
    if not effort.spend(len(verbs) * (len(folded) + 8)):
        return None
    spelled = _spelled_like(folded, verbs)
    for _, candidate in spelled[:3]:
        verb = verbs[candidate]
        if not effort.spend(len(rest) + 1):
            break
        if _fits(verb, rest, context):
            return Suggestion(verb, _echo(f"{verb.name} {rest}"))
    if spelled and spelled[0][0] >= SLIP_CUTOFF:
        return Suggestion(verbs[spelled[0][1]])
    return None
