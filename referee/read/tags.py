"""Roll tags: find ``[[ ... ]]`` in a post and parse each into a request.

Two pure stages:

* :func:`find_tags` reads a post's Markdown and returns the tags a reader sees as
  text, in order. Tags inside code (inline spans, fenced or indented blocks) and
  in ``>`` quotes are skipped, so quoting a roll never rolls it again.
* :func:`read_tag` turns one tag's text into a request, dispatching on the first
  word through a verb table (the core's verbs and the campaign system's, see
  :func:`referee.resolve.dispatch.verbs_for`). Anything it cannot read raises
  :class:`~referee.base.errors.TagError` with a message for the player and the right
  form of the verb; it raises nothing else, whatever the input.

The helpers a system's parsers share (names, modifiers, known-name prefixes) are
here too, so every system reads names and numbers alike.

>>> scan = find_tags("Kara fires. [[shoot Kara -> Trooper 1 head]] `[[roll d20]]`")
>>> [tag.text for tag in scan.tags]
['shoot Kara -> Trooper 1 head']
>>> from referee.resolve.dispatch import verbs_for
>>> parse_tag("roll 2d6+3", verbs_for(None)).expression.text
'2d6+3'
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NoReturn

from referee.base.errors import TagError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.notation import Expression, looks_like_expression, parse_expression
from referee.read.blocks import readable_blocks
from referee.read.suggest import suggest_verb
from referee.system.arguments import collapse, name_argument, shorten
from referee.system.interface import DEFAULT_CONTEXT, ParseContext, Verb

# ---------------------------------------------------------------------------- finding


@dataclass(frozen=True)
class Tag:
    """One ``[[ ... ]]`` in a post: its 0-based place among the post's tags and its text."""

    index: int
    text: str  # what is inside the brackets, stripped; may exceed max_tag_chars


@dataclass(frozen=True)
class TagScan:
    """The tags found in one post, and what was refused."""

    tags: tuple[Tag, ...]
    refused: int  # tags past limits.max_tags_per_post, not returned
    problem: str | None  # for the player: too many tags, or a post too long to read
    near: tuple[str, ...] = ()  # a bracket short of a tag: "[[roll 2d6]" (see near_misses)


# Inline: a backslash escape of ASCII punctuation, or a run of backticks.
_INLINE = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
_BACKTICKS = re.compile(r"`+")
# A tag holds no "[[" or "]]"; "[[1]](url)" is a Reddit link, not a tag. A note that
# ends the tag, as in "[[roll 1d6 [fire]]]", keeps its "]" (the first alternative).
_TAG = re.compile(
    r"\[\[((?:(?!\[\[|\]\]).)+?\[[^\[\]]*\](?=\]\])|(?:(?!\[\[|\]\]).)*)\]\](?!\()",
    re.DOTALL,
)


# A bracket short of a tag, in what is left of a paragraph once its tags are taken out:
# "[[" with no "]]" before the line ends (its text runs to a "]" or the line's end),
# or a single "[" that a "]]" closes. Neither may be a link: "[[1]](url)", "[x]](url)".
_OPEN_ONLY = re.compile(r"\[\[([^\[\]\n]{1,200})(?:\](?![\](])|(?=\n|$))")
_CLOSE_ONLY = re.compile(r"(?<!\[)\[([^\[\]\n]{1,200})\]\](?!\()")
MAX_NEAR_MISSES = 5  # a post full of brackets gets a few notes, not a wall


def _visible_text(paragraph: str) -> str:
    """The paragraph as read: code spans become a space and backslash escapes resolve."""
    if "`" not in paragraph and "\\" not in paragraph:  # nothing to resolve: most posts
        return paragraph
    starts: dict[int, list[int]] = {}  # run length -> start of each backtick run
    ends: dict[int, list[int]] = {}
    for run in _BACKTICKS.finditer(paragraph):
        size = run.end() - run.start()
        starts.setdefault(size, []).append(run.start())
        ends.setdefault(size, []).append(run.end())
    out: list[str] = []
    pos = 0
    while True:
        token = _INLINE.search(paragraph, pos)
        if token is None:
            out.append(paragraph[pos:])
            return "".join(out)
        out.append(paragraph[pos : token.start()])
        pos = token.end()
        if token.group()[0] == "\\":
            out.append(token.group()[1])
            continue
        # A code span closes at the next run of exactly the same length, if any.
        size = pos - token.start()
        candidates = starts.get(size, [])
        i = bisect_left(candidates, pos)
        if i == len(candidates):
            out.append(token.group())
        else:
            out.append(" ")
            pos = ends[size][i]


def find_tags(body: str, limits: Limits = DEFAULT_LIMITS) -> TagScan:
    """Find the roll tags in a post's Markdown, in order, skipping code and quotes.

    Empty ``[[ ]]``, an unclosed ``[[`` and links like ``[[1]](url)`` are not tags.
    Tags past ``limits.max_tags_per_post`` are counted in ``refused``, not returned.
    Backslash escapes are resolved first, since Reddit's rich-text editor writes
    ``\\[\\[roll d20\\]\\]`` for what the player typed as ``[[roll d20]]``.

    >>> post = '''> [[roll d20]] (quoted)
    ...
    ...     [[roll d20]] (code)
    ...
    ... Then [[roll 2d6]] and [[init Kara, Dax]].'''
    >>> find_tags(post).tags
    (Tag(index=0, text='roll 2d6'), Tag(index=1, text='init Kara, Dax'))
    """
    if len(body) > limits.max_post_chars:
        return TagScan(
            (),
            0,
            f"This post is {len(body):,} characters long, more than the "
            f"{limits.max_post_chars:,} referee reads, so none of its tags were rolled.",
        )
    texts: list[str] = []
    near: list[str] = []
    for block in readable_blocks(body):
        visible = _visible_text(block)
        matches = [match for match in _TAG.finditer(visible) if _closes_nothing_early(match)]
        texts.extend(text for match in matches if (text := match.group(1).strip()))
        if "[" in visible and len(near) < MAX_NEAR_MISSES:
            # What is left once the tags are taken out, each tag read as a space.
            ends = [0, *(edge for match in matches for edge in match.span()), len(visible)]
            rest = " ".join(visible[ends[i] : ends[i + 1]] for i in range(0, len(ends), 2))
            if "[" in rest:  # every near miss holds one; most posts' brackets were tags
                near.extend(_near_misses(rest))
    cap = limits.max_tags_per_post
    refused = max(0, len(texts) - cap)
    problem = None
    if refused:
        problem = (
            f"This post has {len(texts):,} roll tags; referee rolls at most {cap:,} per post, "
            f"so the last {refused:,} were not rolled. Put them in another post."
        )
    tags = tuple(Tag(i, text) for i, text in enumerate(texts[:cap]))
    return TagScan(tags, refused, problem, tuple(near[:MAX_NEAR_MISSES]))


def _closes_nothing_early(match: re.Match[str]) -> bool:
    """False for a bracketed aside like ``[[citation needed] and [see above]]``.

    A tag's own brackets are notes (``[[roll 1d6 [fire]]]``) and open before they
    close; a "]" that closes nothing means the "[[" and "]]" belong to two asides.
    """
    text = match.group(1)
    if "]" not in text:  # most tags hold no bracket at all
        return True
    depth = 0
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                return False
    return True


def _near_misses(rest: str) -> Iterator[str]:
    """Each bracket-short tag in ``rest`` (a paragraph without its tags), as written."""
    for pattern, opening, closing in ((_OPEN_ONLY, "[[", "]"), (_CLOSE_ONLY, "[", "]]")):
        for match in pattern.finditer(rest):
            text = match.group(1).strip()
            if text:
                ended = closing if match.group(0).endswith("]") else ""
                yield f"{opening}{text}{ended}"


# ---------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class RollDice:
    """Roll plain dice notation: ``[[roll 2d6+3]]`` (or just ``[[2d6+3]]``)."""

    expression: Expression


# ------------------------------------------------------------ applications and GM tools


@dataclass(frozen=True)
class Apply:
    """``[[apply]]``: the post's first code block is a character sheet to review."""


@dataclass(frozen=True)
class Decide:
    """A GM's decision on an application: ``[[approve]]``, ``[[reject why]]``, ``[[revise note]]``.

    Without a name the decision is about the application the post replies to.
    """

    decision: str  # "approve", "reject" or "revise"
    name: str | None = None
    note: str = ""
    amendments: tuple[str, ...] = ()  # approve only: "named", "tough 2", "forbid X", "move X to d8"


@dataclass(frozen=True)
class EndEncounter:
    """``[[end encounter]]``: the system resets what an encounter ends (initiative...)."""


@dataclass(frozen=True)
class ShowHelp:
    """``[[help]]`` (every verb of the campaign's system) or ``[[help shoot]]`` (one verb)."""

    verb: str | None = None


DECIDE_USAGE = {
    "approve": "[[approve]] or [[approve Orla Vex with named, tough 2, move Mind Trick to d8]]",
    "reject": "[[reject the sheet does not fit the setting]]",
    "revise": "[[revise Agility is over the human cap; move a point to Endurance]]",
}


def parse_apply(rest: str, context: ParseContext) -> Apply:
    """``[[apply]]``, alone: the sheet is the post's code block."""
    if rest.strip():
        raise TagError(
            "Write [[apply]] alone, with your sheet in a code block below it.", "[[apply]]"
        )
    return Apply()


_OUTSIDE_PARENTHESES_COMMA = re.compile(r",(?![^()]*\))")  # a comma no ")" closes after


def decision_parser(decision: str) -> Callable[[str, ParseContext], Decide]:
    """The parser of ``[[approve ...]]``, ``[[reject ...]]`` or ``[[revise ...]]``."""
    usage = DECIDE_USAGE[decision]

    def parse(rest: str, context: ParseContext) -> Decide:
        rest = collapse(rest)
        if decision == "approve":
            name_part, _, amend_part = rest.partition(" with ")
            if rest.casefold().startswith("with "):
                name_part, amend_part = "", rest[5:]
            # A comma inside parentheses is an item's (``item Amulet (helpful, ?sith)``).
            parts = _OUTSIDE_PARENTHESES_COMMA.split(amend_part)
            amendments = tuple(collapse(item) for item in parts if collapse(item))
            name = (
                name_argument(name_part, "character", usage, context.limits) if name_part else None
            )
            return Decide("approve", name, "", amendments)
        name_part, colon, note = rest.partition(":")
        name = name_argument(name_part, "character", usage, context.limits) if colon else None
        note = note if colon else rest
        if len(note) > context.limits.max_tag_chars // 2:
            raise TagError("That note is too long; keep it under 1,000 characters.", usage)
        return Decide(decision, name, collapse(note))

    return parse


def parse_end(rest: str, context: ParseContext) -> EndEncounter:
    """``[[end encounter]]`` (or combat, fight)."""
    if rest.strip().casefold() not in ("", "encounter", "combat", "fight"):
        raise TagError("Write [[end encounter]].", END_USAGE)
    return EndEncounter()


APPLY_USAGE = "[[apply]] followed by your sheet in a code block"
END_USAGE = "[[end encounter]]"
HELP_USAGE = "[[help]] or [[help shoot]]"
HELP_POINTER = "[[help]] lists them with their forms."
DICE_USAGE = "[[roll 2d6+3]]"


def parse_dice(rest: str, context: ParseContext) -> RollDice:
    """``roll <dice>``: the notation of :mod:`referee.notation`.

    >>> parse_dice("4d6kh3", ParseContext()).expression.text
    '4d6kh3'
    """
    if not rest.strip():
        raise TagError("Say what to roll: dice like 2d6+3.", DICE_USAGE)
    return RollDice(parse_expression(rest, context.limits))


def parse_help(rest: str, context: ParseContext) -> ShowHelp:
    """``[[help]]`` or ``[[help <verb>]]``."""
    words = rest.split()
    if len(words) > 1:
        raise TagError("Ask for one verb at a time, like [[help shoot]].", HELP_USAGE)
    return ShowHelp(words[0].casefold()[:40] if words else None)


# ---------------------------------------------------------------------------- dispatch


def read_tag(
    text: str, context: ParseContext, verbs: Mapping[str, Verb]
) -> tuple[Verb | None, Any]:
    """The verb a tag's text starts with and its request; TagError (never anything else).

    ``verbs`` maps every verb word and alias to its :class:`~referee.system.Verb`. A tag
    that starts with dice notation needs no verb: ``[[d20]]`` rolls a d20 (the verb is
    then None). An unknown verb is refused with the list of verbs and what the player
    probably meant (see :mod:`referee.read.suggest`): a verb whose form the tag fits.
    """
    limits = context.limits
    if len(text) > limits.max_tag_chars:
        raise TagError(
            f"This tag is {len(text):,} characters long; a tag may hold at most "
            f"{limits.max_tag_chars:,}.",
            _fallback(verbs),
        )
    text = text.replace("−", "-")
    words = text.split(maxsplit=1)
    if not words:
        raise TagError("This tag is empty. Start it with a verb.", _fallback(verbs))
    word, rest = words[0], words[1] if len(words) == 2 else ""
    verb = verbs.get(word.casefold())
    if verb is not None:
        request = verb.parse(rest, context)
    elif looks_like_expression(text):
        request = RollDice(parse_expression(text, limits))
    else:
        _refuse_verb(word, rest, verbs, context)
    return verb, request


def _fallback(verbs: Mapping[str, Verb]) -> str:
    """The form shown under a tag too long or empty to have a verb: the campaign's roll."""
    return verbs["roll"].usage if "roll" in verbs else DICE_USAGE


def _refuse_verb(
    word: str, rest: str, verbs: Mapping[str, Verb], context: ParseContext
) -> NoReturn:
    """Refuse a tag whose first word is no verb, naming the verbs and the likeliest one."""
    canonical = list(dict.fromkeys(verb.name for verb in verbs.values()))
    suggestion = suggest_verb(word, rest, verbs, context)
    # Without a suggestion no verb's form is shown: it would point the player the wrong way.
    hint = suggestion.hint if suggestion else f" {HELP_POINTER}"
    usage = suggestion.usage if suggestion else ""
    raise TagError(
        f"'{shorten(word, 20)}' is not a roll verb. Verbs: {', '.join(canonical)}.{hint}", usage
    )


def parse_tag(text: str, verbs: Mapping[str, Verb], context: ParseContext = DEFAULT_CONTEXT) -> Any:
    """Parse one tag's text into a request (see :func:`read_tag`).

    >>> from referee.resolve.dispatch import verbs_for
    >>> parse_tag("r 2d6+3", verbs_for(None)).expression.text
    '2d6+3'
    >>> parse_tag("rol 2d6", verbs_for(None))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.base.errors.TagError: 'rol' is not a roll verb. Verbs: roll, init, ..., help. \
Did you mean roll?
    """
    return read_tag(text, context, verbs)[1]


_DICE = re.compile(r"[0-9]*d(?:[0-9]|%)", re.IGNORECASE)


@lru_cache(maxsize=8)
def _without_searches(limits: Limits) -> Limits:
    """``limits`` with no budget for the searches that help a player (repairs, guesses)."""
    return replace(limits, max_repair_steps=0, max_suggest_steps=0)


_SHORTEST_VERB = 3  # "[[r u sure]": a one-letter alias alone does not make prose a tag


def near_miss_problems(
    near: tuple[str, ...], context: ParseContext, verbs: Mapping[str, Verb]
) -> tuple[str, ...]:
    """A note for each bracket-short tag (``[[roll 2d6]``) that would have been a tag.

    The rule, so ordinary prose with brackets gets no reply: the text inside must read
    as a tag of this campaign (its verb's parser accepts it), and either start with a
    verb word of three letters or more (``roll``, ``shoot``, ``help``) or roll dice
    (``2d6``, ``r d20``). ``[[citation needed]`` and ``[see above]]`` are prose.
    """
    notes = []
    # Only whether a near miss reads matters, not what it might have meant: no searches.
    context = replace(context, limits=_without_searches(context.limits))
    for written in near:
        text = written.strip("[]").strip()
        first = text.split(maxsplit=1)[:1]
        if not first or (first[0].casefold() not in verbs and not looks_like_expression(text)):
            continue  # no verb and no dice: prose, and no search for what it meant
        try:
            verb, request = read_tag(text, context, verbs)
        except TagError:
            continue
        word = text.split(maxsplit=1)[0].casefold()
        dice = isinstance(request, RollDice) and _DICE.search(text) is not None
        if not dice and (verb is None or len(word) < _SHORTEST_VERB):
            continue
        notes.append(
            f"“{shorten(written, 60)}” is a roll tag with a bracket missing, so nothing was "
            f"rolled for it. A tag is two brackets on each side: write [[{shorten(text, 60)}]] "
            "in a new reply."
        )
    return tuple(notes)
