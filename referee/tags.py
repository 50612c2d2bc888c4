"""Roll tags: find ``[[ ... ]]`` in a post and parse each into a request.

Two pure stages:

* :func:`find_tags` reads a post's Markdown and returns the tags a reader sees as
  text, in order. Tags inside code (inline spans, fenced or indented blocks) and
  in ``>`` quotes are skipped, so quoting a roll never rolls it again.
* :func:`parse_tag` turns one tag's text into a request dataclass, dispatching on
  the first word through the :data:`VERBS` table. Anything it cannot read raises
  :class:`~referee.errors.TagError` with a message for the player and the right
  form of the verb; it raises nothing else, whatever the input.

>>> scan = find_tags("Kara fires. [[shoot Kara -> Trooper 1 head]] `[[roll d20]]`")
>>> [tag.text for tag in scan.tags]
['shoot Kara -> Trooper 1 head']
>>> parse_tag(scan.tags[0].text)
Attack(verb='shoot', attacker='Kara', target='Trooper 1', weapon=None, location='head', \
unaware=False, subdue=False, modifier=0, environment=0)
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Union

from referee.errors import TagError, UserError
from referee.limits import DEFAULT_LIMITS, Limits, is_visible, read_int
from referee.notation import Expression, looks_like_expression, parse_expression

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


# Markdown block structure, read one line at a time.
_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]+|$)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})(.*)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
# Inline: a backslash escape of ASCII punctuation, or a run of backticks.
_INLINE = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
_BACKTICKS = re.compile(r"`+")
# A tag holds no "[[" or "]]"; "[[1]](url)" is a Reddit link, not a tag.
_TAG = re.compile(r"\[\[((?:(?!\[\[|\]\]).)*)\]\](?!\()", re.DOTALL)


def _readable_blocks(body: str) -> Iterator[str]:
    """Yield the paragraphs of ``body`` a reader sees as text, without code and quotes.

    Fenced code (``` or ~~~, to its closing fence or the end), indented code (4
    spaces or a tab after a blank line; 8 inside a list) and ``>`` quote lines are
    left out. ``>!spoilers!<`` are text.
    """
    paragraph: list[str] = []
    fence: tuple[str, int] | None = None  # the open fence's character and length
    in_list = False
    after_blank = True
    for raw in body.splitlines():
        line = raw.expandtabs(4)
        text = line.lstrip(" ")
        indent = len(line) - len(text)
        if fence is not None:
            char, length = fence
            run = len(text) - len(text.lstrip(char))
            if run >= length and not text[run:].strip():
                fence = None
            continue
        if not text:
            if paragraph:
                yield "\n".join(paragraph)
                paragraph = []
            after_blank = True
            continue
        if not paragraph and indent >= (8 if in_list else 4):
            after_blank = False
            continue  # indented code block
        marker = _LIST_MARKER.match(text)
        if marker is None and after_blank and indent < 2:
            in_list = False
        starts_block = marker is not None
        while marker is not None:
            in_list = True
            text = text[marker.end() :]
            marker = _LIST_MARKER.match(text)
        after_blank = False
        opening = _FENCE_OPEN.match(text)
        if opening is not None and opening.group(1)[0] == "`" and "`" in opening.group(2):
            opening = None  # a backtick fence's info string holds no backtick
        quote = text.startswith(">") and not text.startswith(">!")
        heading = _HEADING.match(text) is not None
        if (quote or heading or starts_block or opening is not None) and paragraph:
            yield "\n".join(paragraph)
            paragraph = []
        if quote:
            continue
        if opening is not None:
            fence = (opening.group(1)[0], len(opening.group(1)))
            continue
        if heading:
            yield text
            continue
        paragraph.append(text)
    if paragraph:
        yield "\n".join(paragraph)


def _visible_text(paragraph: str) -> str:
    """The paragraph as read: code spans become a space and backslash escapes resolve."""
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
    texts = [
        text
        for block in _readable_blocks(body)
        for match in _TAG.finditer(_visible_text(block))
        if (text := match.group(1).strip())
    ]
    cap = limits.max_tags_per_post
    refused = max(0, len(texts) - cap)
    problem = None
    if refused:
        problem = (
            f"This post has {len(texts):,} roll tags; referee rolls at most {cap:,} per post, "
            f"so the last {refused:,} were not rolled. Put them in another post."
        )
    return TagScan(tuple(Tag(i, text) for i, text in enumerate(texts[:cap])), refused, problem)


# ---------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class RollDice:
    """Roll plain dice notation: ``[[roll 2d6+3]]`` (or just ``[[2d6+3]]``)."""

    expression: Expression


@dataclass(frozen=True)
class RollStat:
    """Roll a character's stats: ``[[roll Kara agility+perception -1]]``."""

    actor: str
    stats: tuple[str, ...]  # the four core stats in full; any other word casefolded
    modifier: int = 0


@dataclass(frozen=True)
class RollInitiative:
    """Roll initiative for everyone named: ``[[init Kara, Trooper 1, Trooper 2]]``."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Attack:
    """One attack: ``[[shoot Kara -> Trooper 1 head with blaster pistol unaware +2]]``."""

    verb: str  # "shoot" (ranged) or "melee"
    attacker: str
    target: str
    weapon: str | None = None  # None: the attacker's default weapon
    location: str = "torso"  # torso, head, arm, leg, left arm, right leg ...
    unaware: bool = False  # the target does not see it coming
    subdue: bool = False  # the attacker means to incapacitate, not kill
    modifier: int = 0  # added to the attack roll
    environment: int = 0  # env/cover: added to the target's defence


@dataclass(frozen=True)
class Cast:
    """Cast a magic technique: ``[[cast Kara Telekinesis +1]]``."""

    actor: str
    technique: str
    modifier: int = 0


# Every request a tag can become. Vehicle, application and GM requests are defined
# further down with their verbs, so they are named here as forward references.
Request = Union[  # "X | Y" cannot hold forward references at run time
    "RollDice",
    "RollStat",
    "RollInitiative",
    "Attack",
    "Cast",
    "VehicleStat",
    "Apply",
    "Decide",
    "CreateNpc",
    "AdjustWounds",
    "EndEncounter",
]


@dataclass(frozen=True)
class ParseContext:
    """What the parser may know about the campaign."""

    known_names: frozenset[str] = frozenset()  # casefolded character names
    limits: Limits = DEFAULT_LIMITS


DEFAULT_CONTEXT = ParseContext()

Parser = Callable[[str, ParseContext], Request]

STATS = ("strength", "agility", "endurance", "perception")
LOCATIONS = ("head", "torso", "arm", "leg")
_LOCATION_WORDS = {**{word: word for word in LOCATIONS}, "body": "torso", "chest": "torso"}
_SIDES = ("left", "right")

_SIGNED = re.compile(r"[+\-][0-9]+")
_TRAILING_MODIFIER = re.compile(r"\s*([+\-])\s*([0-9]+)\s*$")
_SEPARATOR = re.compile(r"\s*(?:->|→|=>)\s*|\s+at\s+", re.IGNORECASE)
_ENVIRONMENT = re.compile(r"(env|cover)([+\-]?[0-9]+)?", re.IGNORECASE)
_MAX_DIGITS = 7


def _shorten(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _number(text: str, usage: str, limits: Limits) -> int:
    """A signed modifier such as ``+2`` or ``-10``, within ``limits.max_modifier``."""
    digits = text.lstrip("+-")
    value = int(digits) if len(digits) <= _MAX_DIGITS else limits.max_modifier + 1
    if value > limits.max_modifier:
        raise TagError(
            f"'{_shorten(text)}' is more than the ±{limits.max_modifier:,} a modifier may be.",
            usage,
        )
    return -value if text.startswith("-") else value


def _name(text: str, what: str, usage: str, limits: Limits) -> str:
    name = _collapse(text)
    if not name:
        raise TagError(f"Name the {what}.", usage)
    if not is_visible(name):
        raise TagError(
            f"The {what}'s name shows nothing but invisible characters; write a name "
            "with letters or digits.",
            usage,
        )
    if len(name) > limits.max_name_chars:
        raise TagError(
            f"The {what}'s name '{_shorten(name)}' is {len(name):,} characters long; "
            f"names may be at most {limits.max_name_chars:,}.",
            usage,
        )
    return name


def _trailing_modifiers(text: str, usage: str, limits: Limits) -> tuple[str, int]:
    """Split off trailing ``+N``/``-N`` modifiers (summed) from ``text``."""
    total = 0
    while (match := _TRAILING_MODIFIER.search(text)) is not None and match.start() > 0:
        total += _number(match.group(1) + match.group(2), usage, limits)
        text = text[: match.start()]
    if abs(total) > limits.max_modifier:
        raise TagError(
            f"The modifiers add up to {total:+,}, beyond the ±{limits.max_modifier:,} "
            "a modifier may be.",
            usage,
        )
    return text, total


def _known_prefix(words: list[str], context: ParseContext) -> int:
    """How many leading ``words`` form the longest known character name (0 if none)."""
    if not context.known_names:
        return 0
    best, length = 0, -1
    for count, word in enumerate(words, start=1):
        length += len(word) + 1
        if length > context.limits.max_name_chars:
            break
        if " ".join(words[:count]).casefold() in context.known_names:
            best = count
    return best


def _stat(word: str, usage: str) -> str:
    """The full name of a core stat from a prefix of 3+ letters; other words casefolded."""
    folded = word.casefold()
    if not any(char.isalpha() for char in folded):
        raise TagError(f"'{_shorten(word)}' is not a stat. Stats: {', '.join(STATS)}.", usage)
    matches = [stat for stat in STATS if len(folded) >= 3 and stat.startswith(folded)]
    return matches[0] if len(matches) == 1 else folded


def parse_roll(rest: str, context: ParseContext) -> RollDice | RollStat:
    """``roll 2d6+3`` or ``roll <character> <stat>[+<stat>...] [+N|-N]``.

    >>> parse_roll("Trooper 1 agi + per -1", DEFAULT_CONTEXT)
    RollStat(actor='Trooper 1', stats=('agility', 'perception'), modifier=-1)
    """
    usage, limits = USAGE["roll"], context.limits
    if not rest.strip():
        raise TagError("Say what to roll: dice like 2d6+3, or a character and a stat.", usage)
    if looks_like_expression(rest):
        return RollDice(parse_expression(rest, limits))
    text, modifier = _trailing_modifiers(rest, usage, limits)
    words = re.sub(r"\s*\+\s*", "+", text).split()
    known = _known_prefix(words, context)
    split = known if 0 < known < len(words) else len(words) - 1
    if split < 1:
        raise TagError(
            f"Name a character and a stat to roll, like 'Kara agility', not just "
            f"'{_shorten(_collapse(text))}'.",
            usage,
        )
    actor = _name(" ".join(words[:split]), "character", usage, limits)
    parts = " ".join(words[split:]).split("+")
    if not all(part.strip() for part in parts):
        raise TagError(
            f"Join stats with +, like agility+perception. Stats: {', '.join(STATS)}.", usage
        )
    return RollStat(actor, tuple(_stat(_collapse(part), usage) for part in parts), modifier)


def parse_init(rest: str, context: ParseContext) -> RollInitiative:
    """``init <name>, <name>, ...``; without commas, known names split the words.

    >>> parse_init("Kara,  Trooper 1", DEFAULT_CONTEXT)
    RollInitiative(names=('Kara', 'Trooper 1'))
    >>> parse_init("Kara Trooper 1", ParseContext(frozenset({"kara", "trooper 1"})))
    RollInitiative(names=('Kara', 'Trooper 1'))
    """
    usage, limits = USAGE["init"], context.limits
    chunks = [_collapse(chunk) for chunk in re.split(r"[,;]", rest)]
    chunks = [chunk for chunk in chunks if chunk]
    if len(chunks) == 1 and context.known_names:
        words, names = chunks[0].split(), []
        while words and (count := _known_prefix(words, context)):
            names.append(" ".join(words[:count]))
            words = words[count:]
        if not words:
            chunks = names
    if not chunks:
        raise TagError("Name who rolls initiative, separated by commas.", usage)
    if len(chunks) > limits.max_names_per_tag:
        raise TagError(
            f"This tag names {len(chunks):,} combatants; one tag may name at most "
            f"{limits.max_names_per_tag:,}. Split them over several tags.",
            usage,
        )
    return RollInitiative(tuple(_name(chunk, "combatant", usage, limits) for chunk in chunks))


def _is_option(words: list[str], i: int) -> bool:
    word = words[i].casefold()
    if word in _SIDES:
        return i + 1 < len(words) and words[i + 1].casefold() in ("arm", "leg")
    return (
        word in _LOCATION_WORDS
        or word in ("unaware", "subdue", "with")
        or _ENVIRONMENT.fullmatch(word) is not None
        or _SIGNED.fullmatch(word) is not None
    )


def _attack_parser(verb: str) -> Parser:
    def parse(rest: str, context: ParseContext) -> Attack:
        usage, limits = USAGE[verb], context.limits
        separator = _SEPARATOR.search(rest)
        if separator is None:
            raise TagError(
                f"Put -> between the attacker and the target: {verb} <attacker> -> <target>.",
                usage,
            )
        attacker = _name(rest[: separator.start()], "attacker", usage, limits)
        words = re.sub(r"(?<!\S)([+\-])\s+(?=[0-9])", r"\1", rest[separator.end() :]).split()
        end = _known_prefix(words, context)
        if not end:
            while end < len(words) and not _is_option(words, end):
                end += 1
        target = _name(" ".join(words[:end]), "target", usage, limits)
        weapon: str | None = None
        location: str | None = None
        flags: set[str] = set()  # "unaware", "subdue"
        modifier = environment = 0
        i = end
        while i < len(words):
            word = words[i].casefold()
            option = _ENVIRONMENT.fullmatch(word)
            if word in _SIDES and i + 1 < len(words) and words[i + 1].casefold() in ("arm", "leg"):
                word, i = f"{word} {words[i + 1].casefold()}", i + 1
            if word.split()[-1] in _LOCATION_WORDS:
                word = _LOCATION_WORDS.get(word, word)
                if location is not None:
                    raise TagError(
                        f"Name one hit location, not both {location} and {word}.",
                        usage,
                    )
                location = word
            elif word in ("unaware", "subdue"):
                flags.add(word)
            elif word == "with":
                start = i + 1
                while i + 1 < len(words) and not _is_option(words, i + 1):
                    i += 1
                if weapon is not None:
                    raise TagError("Name one weapon, after a single 'with'.", usage)
                weapon = _name(" ".join(words[start : i + 1]), "weapon", usage, limits)
            elif option is not None:
                amount = option.group(2)
                if amount is None:
                    if i + 1 == len(words) or not re.fullmatch(r"[+\-]?[0-9]+", words[i + 1]):
                        raise TagError(
                            f"Give a number after '{option.group(1)}', like "
                            f"'{option.group(1)} +1'.",
                            usage,
                        )
                    i += 1
                    amount = words[i]
                environment += _number(amount, usage, limits)
            elif _SIGNED.fullmatch(word):
                modifier += _number(word, usage, limits)
            else:
                raise TagError(
                    f"'{_shorten(words[i])}' is not an attack option. After the target write "
                    "any of: head, arm, leg, left/right arm or leg, unaware, subdue, "
                    "with <weapon>, env N or cover N, +N or -N.",
                    usage,
                )
            i += 1
        for total, what in ((modifier, "modifiers"), (environment, "environment modifiers")):
            if abs(total) > limits.max_modifier:
                raise TagError(
                    f"The {what} add up to {total:+,}, beyond the ±{limits.max_modifier:,} "
                    "a modifier may be.",
                    usage,
                )
        return Attack(
            verb,
            attacker,
            target,
            weapon=weapon,
            location=location or "torso",
            unaware="unaware" in flags,
            subdue="subdue" in flags,
            modifier=modifier,
            environment=environment,
        )

    parse.__name__ = parse.__qualname__ = f"parse_{verb}"
    parse.__doc__ = f"``{verb} <attacker> -> <target> [options]``."
    return parse


def parse_cast(rest: str, context: ParseContext) -> Cast:
    """``cast <character> <technique> [+N|-N]``; known names decide where the name ends.

    >>> parse_cast("Kara Venn Mind Trick +1", ParseContext(frozenset({"kara venn"})))
    Cast(actor='Kara Venn', technique='Mind Trick', modifier=1)
    >>> parse_cast("Kara Venn Mind Trick", DEFAULT_CONTEXT)
    Cast(actor='Kara', technique='Venn Mind Trick', modifier=0)
    """
    usage, limits = USAGE["cast"], context.limits
    text, modifier = _trailing_modifiers(rest, usage, limits)
    words = text.split()
    known = _known_prefix(words, context)
    split = known if 0 < known < len(words) else 1
    if len(words) < 2:
        raise TagError("Name the caster and then the technique.", usage)
    actor = _name(" ".join(words[:split]), "caster", usage, limits)
    return Cast(actor, _name(" ".join(words[split:]), "technique", usage, limits), modifier)


# ------------------------------------------------------------ vehicles and ships


@dataclass(frozen=True)
class VehicleStat:
    """A craft's parameter with the ordinal d10: ``[[stat X-Wing armour vs Walker 1]]``."""

    vehicle: str
    parameter: str  # as written, casefolded: weapon, speed, acceleration, armour, sensors...
    against: str | None = None  # the opponent whose kind picks the scale
    modifier: int = 0


_VERSUS = re.compile(r"\s+(?:vs\.?|versus|against)\s+", re.IGNORECASE)


def parse_vehicle_stat(rest: str, context: ParseContext) -> VehicleStat:
    """``stat <vehicle> <parameter> [vs <opponent>] [+N|-N]``.

    >>> parse_vehicle_stat("X-Wing weapon power vs AT-AT 1 -1", DEFAULT_CONTEXT)
    VehicleStat(vehicle='X-Wing', parameter='weapon power', against='AT-AT 1', modifier=-1)
    """
    usage, limits = USAGE["stat"], context.limits
    text, modifier = _trailing_modifiers(" " + rest.strip(), usage, limits)
    versus = _VERSUS.search(text)
    own = text[: versus.start()] if versus else text
    other = text[versus.end() :] if versus else ""
    words = own.split()
    take = 2 if len(words) > 2 and " ".join(words[-2:]).casefold() == "weapon power" else 1
    if len(words) <= take:
        raise TagError("Name the vehicle and then the parameter, like 'X-Wing armour'.", usage)
    name = _name(" ".join(words[:-take]), "vehicle", usage, limits)
    against = _name(other, "opponent", usage, limits) if versus else None
    return VehicleStat(name, " ".join(words[-take:]).casefold(), against, modifier)


# ---------------------------------------------------------------------------- dispatch

# verb (and alias) -> parser of the words after it; extended through register_verb.
VERBS: dict[str, Parser] = {}
# verb -> its right form, shown under an error and in the README's tag table.
USAGE: dict[str, str] = {}
_CANONICAL: dict[str, str] = {}  # verb or alias -> the verb it stands for


def register_verb(name: str, parser: Parser, usage: str, aliases: tuple[str, ...] = ()) -> None:
    """Add (or replace) a verb, its right form and any aliases.

    >>> register_verb("peek", lambda rest, context: RollDice(parse_expression("d6")),
    ...               "[[peek]]", aliases=("look",))
    >>> parse_tag("LOOK")
    RollDice(expression=Expression(terms=(DiceTerm(sign=1, count=1, sides=6, keep=None),), \
text='1d6'))
    >>> unregister_verb("peek")
    """
    verb = name.casefold()
    USAGE[verb] = usage
    for word in (verb, *(alias.casefold() for alias in aliases)):
        VERBS[word] = parser
        _CANONICAL[word] = verb


def unregister_verb(name: str) -> None:
    """Remove a verb and its aliases (for tests that register a verb of their own)."""
    verb = name.casefold()
    USAGE.pop(verb, None)
    for word in [word for word, target in _CANONICAL.items() if target == verb]:
        VERBS.pop(word, None)
        del _CANONICAL[word]


register_verb(
    "roll",
    parse_roll,
    "[[roll 2d6+3]] or [[roll Kara agility+perception -1]]",
    aliases=("r",),
)
register_verb("init", parse_init, "[[init Kara, Trooper 1, Trooper 2]]", aliases=("initiative",))
register_verb(
    "shoot",
    _attack_parser("shoot"),
    "[[shoot Kara -> Trooper 1 head with blaster pistol unaware env 1 +2]]",
    aliases=("fire", "attack"),
)
register_verb(
    "melee",
    _attack_parser("melee"),
    "[[melee Dax -> Trooper 2 left arm subdue with stun baton -1]]",
    aliases=("strike", "hit"),
)
register_verb("cast", parse_cast, "[[cast Kara Telekinesis +1]]")
register_verb(
    "stat",
    parse_vehicle_stat,
    "[[stat X-Wing armour]] or [[stat Speeder 1 speed vs X-Wing +1]]",
    aliases=("param",),
)


def parse_tag(text: str, context: ParseContext = DEFAULT_CONTEXT) -> Request:
    """Parse one tag's text into a request, or raise :class:`TagError` (never anything else).

    A tag that starts with dice notation needs no verb: ``[[d20]]`` rolls a d20.

    >>> parse_tag("r 2d6+3").expression.text
    '2d6+3'
    >>> parse_tag("sht Kara -> Trooper 1")
    Traceback (most recent call last):
    ...
    referee.errors.TagError: 'sht' is not a roll verb. Verbs: roll, init, shoot, melee, cast, \
stat, apply, approve, reject, revise, npc, wound, heal, end. Did you mean shoot?
    """
    limits = context.limits
    if len(text) > limits.max_tag_chars:
        raise TagError(
            f"This tag is {len(text):,} characters long; a tag may hold at most "
            f"{limits.max_tag_chars:,}.",
            USAGE["roll"],
        )
    text = text.replace("−", "-")
    words = text.split(maxsplit=1)
    if not words:
        raise TagError("This tag is empty. Start it with a verb.", USAGE["roll"])
    word, rest = words[0], words[1] if len(words) == 2 else ""
    parser = VERBS.get(word.casefold())
    if parser is not None:
        return parser(rest, context)
    if looks_like_expression(text):
        return RollDice(parse_expression(text, limits))
    verbs = ", ".join(USAGE)
    close = difflib.get_close_matches(word.casefold(), list(_CANONICAL), n=1)
    hint = f" Did you mean {_CANONICAL[close[0]]}?" if close else ""
    usage = USAGE[_CANONICAL[close[0]]] if close else USAGE["roll"]
    raise TagError(f"'{_shorten(word, 20)}' is not a roll verb. Verbs: {verbs}.{hint}", usage)


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
class CreateNpc:
    """``[[npc Trooper 4 as trooper]]`` or ``[[npc Bandit: str 2, agi 3, end 2, per 2]]``."""

    name: str
    template: str | None = None
    fields: tuple[str, ...] = ()  # inline "key value" items, after the template's


@dataclass(frozen=True)
class AdjustWounds:
    """``[[wound X +1]]``, ``[[wound X -1]]``, ``[[heal X]]`` (all) or ``[[heal X 1]]``."""

    name: str
    change: int | None  # wounds added (negative heals); None heals every wound


@dataclass(frozen=True)
class EndEncounter:
    """``[[end encounter]]``: clears the thread's initiative order."""


_DECIDE_USAGE = {
    "approve": "[[approve]] or [[approve Orla Vex with named, tough 2, move Mind Trick to d8]]",
    "reject": "[[reject the sheet does not fit the setting]]",
    "revise": "[[revise Agility is over the human cap; move a point to Endurance]]",
}


def parse_apply(rest: str, context: ParseContext) -> Apply:
    if rest.strip():
        raise TagError(
            "Write [[apply]] alone, with your sheet in a code block below it.", "[[apply]]"
        )
    return Apply()


def _decision_parser(decision: str) -> Parser:
    usage = _DECIDE_USAGE[decision]

    def parse(rest: str, context: ParseContext) -> Decide:
        rest = _collapse(rest)
        if decision == "approve":
            name_part, _, amend_part = rest.partition(" with ")
            if rest.casefold().startswith("with "):
                name_part, amend_part = "", rest[5:]
            amendments = tuple(_collapse(item) for item in amend_part.split(",") if _collapse(item))
            name = _name(name_part, "character", usage, context.limits) if name_part else None
            return Decide("approve", name, "", amendments)
        name_part, colon, note = rest.partition(":")
        name = _name(name_part, "character", usage, context.limits) if colon else None
        note = note if colon else rest
        if len(note) > context.limits.max_tag_chars // 2:
            raise TagError("That note is too long; keep it under 1,000 characters.", usage)
        return Decide(decision, name, _collapse(note))

    return parse


def parse_npc(rest: str, context: ParseContext) -> CreateNpc:
    usage = USAGE["npc"]
    head, colon, inline = rest.partition(":")
    name_part, as_word, template = head.partition(" as ")
    if not colon and not as_word:
        raise TagError("Give the NPC a template with `as` or stats after a colon.", usage)
    name = _name(name_part, "NPC", usage, context.limits)
    fields = tuple(_collapse(item) for item in inline.split(",") if _collapse(item))
    return CreateNpc(name, _collapse(template) or None, fields)


_COUNT = re.compile(r"[0-9]+")


def _wounds_count(text: str, usage: str, limits: Limits) -> int:
    try:
        return read_int(text, "The number of wounds", 1, limits.max_wounds_change)
    except UserError as error:
        raise TagError(error.message, usage) from error


def _wound_parser(verb: str) -> Parser:
    def parse(rest: str, context: ParseContext) -> AdjustWounds:
        usage = USAGE[verb]
        text, change = _trailing_modifiers(" " + rest.strip(), usage, context.limits)
        words = text.split()
        # "heal Trooper 1" names Trooper 1; a bare count counts only after another name.
        whole_name = " ".join(words).casefold() in context.known_names
        if verb == "heal" and not change and len(words) > 1 and not whole_name:
            count = words[-1]
            if _COUNT.fullmatch(count):
                change, words = _wounds_count(count, usage, context.limits), words[:-1]
            elif count.isnumeric():  # "³", "①", "٣": a count, in digits int() may refuse
                raise TagError(
                    f"Write how many wounds to heal with the digits 0-9, not "
                    f"'{_shorten(count, 20)}'.",
                    usage,
                )
        name = _name(" ".join(words), "character", usage, context.limits)
        if verb == "heal":
            return AdjustWounds(name, -abs(change) if change else None)
        if change == 0:
            raise TagError("Say how many wounds: +1 to add one, -1 to take one away.", usage)
        return AdjustWounds(name, change)

    return parse


def parse_end(rest: str, context: ParseContext) -> EndEncounter:
    if rest.strip().casefold() not in ("", "encounter", "combat", "fight"):
        raise TagError("Write [[end encounter]].", USAGE["end"])
    return EndEncounter()


register_verb("apply", parse_apply, "[[apply]] followed by your sheet in a code block")
for _decision in ("approve", "reject", "revise"):
    register_verb(_decision, _decision_parser(_decision), _DECIDE_USAGE[_decision])
register_verb(
    "npc",
    parse_npc,
    "[[npc Trooper 4 as trooper]] or [[npc Bandit: str 2, agi 3, end 2, per 2, named]]",
)
register_verb("wound", _wound_parser("wound"), "[[wound Trooper 1 +1]] or [[wound Kara -1]]")
register_verb("heal", _wound_parser("heal"), "[[heal Kara]] (every wound) or [[heal Kara 1]]")
register_verb("end", parse_end, "[[end encounter]]")
