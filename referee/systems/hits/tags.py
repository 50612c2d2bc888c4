"""Reading ``hits`` tags: the text after the verb -> a request (parse stage only).

Forms (a character's name may have spaces; the campaign's names are known)::

    roll Kara body + Swordsmanship adv 1 dis 2     quick Kara body + Swordsmanship
    opposed Kara body vs Ogre body [tie=all]       group Kara mind & Dax mind
    allin Kara (or: all in Kara)                   leave Kara "draws the ogre off"
    duel Kara -> Ogre with body, Swordsmanship [adjust -1] [later]
    duel 1 with mind, Persuasion    duel 1 roll [timer 6]    duel 1 withdraw|accept|resist
    stakes Kara skill Swordsmanship    stakes Kara life    knockout Kara
    levelup Kara body, mind, highest body, skill Swordsmanship, benefit Fearless
    awaken Kara technique Fire Lance, skill Swordsmanship
    scene combat|unstructured|end    chapter start|end    intermission [Kara, Dax]
    tension 2    set Kara stress 2    set Kara skill Swordsmanship 3    harm Kara stress 2
    timer new Alarm 6 "the guards come"    timer Alarm +2    timer Alarm 3
    timer Alarm size 8    timer Alarm remove    legend Kara

Anything unreadable raises :class:`~referee.base.errors.TagError` with the verb's form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from referee.base.errors import TagError, UserError
from referee.base.limits import read_int
from referee.system import ParseContext
from referee.system.arguments import collapse, leading_name, name_argument, shorten

from .scene import Mode
from .sheet import Attribute, TraitKind, Wager

ROLL_USAGE = "[[roll Kara body + Swordsmanship adv 1]]"
QUICK_USAGE = "[[quick Kara body + Swordsmanship]] (the GM asks for one with [[quick Kara]])"
OPPOSED_USAGE = "[[opposed Kara body vs Ogre body]] (a GM may add tie=all)"
GROUP_USAGE = "[[group Kara mind & Dax mind]]"
ALL_IN_USAGE = "[[all in Kara]]"
LEAVE_USAGE = '[[leave Kara "draws the ogre off"]]'
DUEL_USAGE = (
    "[[duel Kara -> Ogre with body, Swordsmanship]], then [[duel 1 roll]], "
    "[[duel 1 with mind]] (the target's pool), [[duel 1 withdraw]], [[duel 1 accept]] or "
    "[[duel 1 resist]]"
)
STAKES_USAGE = "[[stakes Kara skill Swordsmanship]] or [[stakes Kara life]]"
KNOCKOUT_USAGE = "[[knockout Kara]]"
LEVELUP_USAGE = "[[levelup Kara body, mind, highest body, skill Swordsmanship, benefit Fearless]]"
AWAKEN_USAGE = "[[awaken Kara technique Fire Lance, skill Swordsmanship]]"
SCENE_USAGE = "[[scene combat]], [[scene unstructured]] or [[scene end]]"
CHAPTER_USAGE = "[[chapter start]] or [[chapter end]]"
INTERMISSION_USAGE = "[[intermission]] or [[intermission Kara, Dax]]"
TENSION_USAGE = "[[tension 2]]"
SET_USAGE = "[[set Kara stress 2]] or [[set Kara skill Swordsmanship 3]]"
HARM_USAGE = "[[harm Kara stress 2]] or [[harm Kara wounds 1]]"
TIMER_USAGE = (
    '[[timer new Alarm 6 "the guards come"]], [[timer Alarm +2]], [[timer Alarm 3]], '
    "[[timer Alarm size 8]] or [[timer Alarm remove]]"
)
LEGEND_USAGE = "[[legend Kara]]"

MAX_SOURCES = 20  # sources one roll names
_MODIFIER = re.compile(r"(?:^|\s)(adv|advantage|dis|disadvantage)\s*=?\s*(\S+)", re.I)
_SOURCE_SPLIT = re.compile(r"\s*[+,]\s*")
_QUOTED = re.compile(r'["“”]([^"“”]*)["“”]')
_WHOLE = re.compile(r"[+-]?[0-9]+")
GAIN_KINDS = (TraitKind.SKILL, TraitKind.ABILITY, TraitKind.BENEFIT, TraitKind.TECHNIQUE)


@dataclass(frozen=True)
class Pool:
    """One character's roll: the sources named (attributes, traits or, for a GM, dice)."""

    actor: str
    sources: tuple[str, ...]
    advantage: int = 0
    disadvantage: int = 0


@dataclass(frozen=True)
class Opposed:
    """``opposed A ... vs B ...``: two or more sides; ``tie_all`` is the GM's award."""

    sides: tuple[Pool, ...]
    tie_all: bool = False


@dataclass(frozen=True)
class Group:
    """``group A ... & B ...``."""

    members: tuple[Pool, ...]


@dataclass(frozen=True)
class Named:
    """A verb on one character: ``all in Kara``, ``knockout Kara``, ``legend Kara``."""

    actor: str
    note: str = ""  # what the character does (Leave)


@dataclass(frozen=True)
class DuelDeclare:
    """``duel Kara -> Ogre with body, Swordsmanship``."""

    actor: str
    target: str
    sources: tuple[str, ...]
    adjust: int = 0  # the GM's adjustment of an NPC's Level + 7
    later: bool = False  # resolve when told (``duel N roll``), not at once


@dataclass(frozen=True)
class DuelStep:
    """``duel 1 roll``, ``duel 1 with mind``, ``duel 1 withdraw|accept|resist``."""

    duel: int
    action: str  # "roll", "defend", "withdraw", "accept" or "resist"
    sources: tuple[str, ...] = ()
    timer: int | None = None  # the GM's resist timer if an NPC loses (4, 6 or 8)


@dataclass(frozen=True)
class Stakes:
    """``stakes Kara skill Swordsmanship``."""

    actor: str
    wager: Wager
    what: str = ""


@dataclass(frozen=True)
class LevelUp:
    """``levelup Kara body, mind, highest body, skill X``: one Level's gains."""

    actor: str
    raised: tuple[Attribute, Attribute]
    highest: Attribute | None
    gains: tuple[tuple[TraitKind, str], ...]  # taken now, by name; the rest are saved


@dataclass(frozen=True)
class Awaken:
    """``awaken Kara technique Fire Lance``: saved gains taken by name."""

    actor: str
    gains: tuple[tuple[TraitKind, str], ...]


@dataclass(frozen=True)
class SceneStep:
    """``scene combat`` (a new scene in that mode), ``scene end``."""

    mode: Mode | None  # None: end the running scene


@dataclass(frozen=True)
class ChapterStep:
    """``chapter start`` or ``chapter end``."""

    start: bool


@dataclass(frozen=True)
class Intermission:
    """``intermission`` (everyone) or ``intermission Kara, Dax``."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Tension:
    """``tension 2``."""

    value: int


@dataclass(frozen=True)
class SetValue:
    """``set Kara stress 2``: a counter, trait, standing or saved gain, as typed."""

    actor: str
    key: str
    value: str


@dataclass(frozen=True)
class Harm:
    """``harm Kara stress 2 wounds 1``."""

    actor: str
    stress: int
    wounds: int


@dataclass(frozen=True)
class TimerStep:
    """A GM's timer verb: new, advance, set (filled), size or remove."""

    action: str
    name: str
    number: int = 0
    event: str = ""


def _number(text: str, what: str, usage: str, low: int, high: int) -> int:
    try:
        return read_int(text, what, low, high)
    except UserError as error:  # said again with the verb's form
        raise TagError(error.message, usage) from None


def _words(rest: str, usage: str, what: str) -> list[str]:
    words = rest.split()
    if not words:
        raise TagError(f"Name {what}.", usage)
    return words


def _sources(text: str, usage: str, context: ParseContext) -> tuple[str, ...]:
    names = tuple(collapse(part) for part in _SOURCE_SPLIT.split(text) if collapse(part))
    if not names:
        raise TagError(
            "Name what is rolled: an attribute (body, talent, spirit, mind), a skill, an "
            "ability or a benefit of the sheet.",
            usage,
        )
    if len(names) > MAX_SOURCES:
        raise TagError(f"A roll names at most {MAX_SOURCES} sources.", usage)
    for name in names:
        name_argument(name, "source", usage, context.limits)
    return names


def parse_pool(rest: str, context: ParseContext, usage: str = ROLL_USAGE) -> Pool:
    """``<character> <source> [+ <source>...] [adv N] [dis N]``."""
    advantage = disadvantage = 0
    seen: set[str] = set()
    for match in _MODIFIER.finditer(rest):
        which = "adv" if match.group(1).casefold().startswith("adv") else "dis"
        if which in seen:
            raise TagError(f"Give {which} once.", usage)
        seen.add(which)
        value = _number(match.group(2), which, usage, 0, context.limits.max_modifier)
        if which == "adv":
            advantage = value
        else:
            disadvantage = value
    text = _MODIFIER.sub(" ", rest)
    words = _words(text.replace("+", " + ").replace(",", " , "), usage, "the character")
    actor, tail = leading_name(words, context, usage)
    return Pool(actor, _sources(" ".join(tail), usage, context), advantage, disadvantage)


def parse_roll(rest: str, context: ParseContext) -> Pool:
    """``roll Kara body + Swordsmanship adv 1``."""
    return parse_pool(rest, context, ROLL_USAGE)


def parse_quick(rest: str, context: ParseContext) -> Pool:
    """``quick Kara body + Swordsmanship``; a known name alone (``quick Kara``) is the GM
    asking for a quick roll (no sources)."""
    words = _MODIFIER.sub(" ", rest).split()
    if words and not _MODIFIER.search(rest):
        actor, tail = leading_name(words, context, QUICK_USAGE)
        if not tail:
            return Pool(actor, ())
    return parse_pool(rest, context, QUICK_USAGE)


def parse_opposed(rest: str, context: ParseContext) -> Opposed:
    """``A ... vs B ... [vs C ...] [tie=all]``."""
    tie = re.search(r"(?:^|\s)tie\s*=\s*all\b", rest, re.I)
    _once(rest, r"(?:^|\s)tie\s*=", "tie=all", OPPOSED_USAGE)
    text = re.sub(r"(?:^|\s)tie\s*=\s*all\b", " ", rest, flags=re.I)
    sides = [side for side in re.split(r"\s+vs\.?\s+", " " + text + " ", flags=re.I)]
    if len(sides) < 2:
        raise TagError("Write the sides with vs between them.", OPPOSED_USAGE)
    return Opposed(tuple(parse_pool(side, context, OPPOSED_USAGE) for side in sides), bool(tie))


def parse_group(rest: str, context: ParseContext) -> Group:
    """``A ... & B ...``: everyone doing the same thing."""
    members = [m for m in re.split(r"\s*[&;]\s*", rest) if m.strip()]
    if not members:
        raise TagError("Name each member's roll, with & between them.", GROUP_USAGE)
    return Group(tuple(parse_pool(member, context, GROUP_USAGE) for member in members))


def named_parser(usage: str, note: bool = False):
    """A parser of ``<character>`` (and, for Leave, a quoted note of what he does)."""

    def parse(rest: str, context: ParseContext) -> Named:
        quoted = _QUOTED.findall(rest)
        text = _QUOTED.sub(" ", rest)
        if quoted and not note:
            raise TagError("This verb takes a character's name only.", usage)
        text = re.sub(r"^\s*in\s+", " ", text, flags=re.I) if usage == ALL_IN_USAGE else text
        words = _words(text, usage, "the character")
        actor, tail = leading_name(words, context, usage, guess=len(words))
        if tail:
            raise TagError(f"'{shorten(' '.join(tail))}' is not part of this verb.", usage)
        said = collapse(" ".join(quoted))
        if len(said) > context.limits.max_tag_chars // 4:
            raise TagError("Keep the note short.", usage)
        return Named(actor, said)

    return parse


def _once(text: str, pattern: str, option: str, usage: str) -> None:
    """Refuse ``option`` written twice (``pattern`` finds each), rather than one winning."""
    if len(re.findall(pattern, text, re.I)) > 1:
        raise TagError(f"Give {option} once.", usage)


def _take_option(pattern: str, text: str) -> tuple[str, re.Match[str] | None]:
    match = re.search(pattern, text, re.I)
    return (text[: match.start()] + " " + text[match.end() :], match) if match else (text, None)


def parse_duel(rest: str, context: ParseContext) -> DuelDeclare | DuelStep:
    """``Kara -> Ogre with body, Swordsmanship [adjust N] [later]`` or ``N <step>``."""
    step = re.fullmatch(r"\s*#?([0-9]{1,6})\s*(.*?)\s*", rest, re.S)
    if step is not None:
        return _duel_step(int(step.group(1)), step.group(2), context)
    left, arrow, right = rest.partition("->")
    if not arrow:
        raise TagError("Write the duellists as Kara -> Ogre.", DUEL_USAGE)
    _once(right, r"(?:^|\s)later\b", "later", DUEL_USAGE)
    _once(right, r"(?:^|\s)adjust\b", "adjust", DUEL_USAGE)
    right, later = _take_option(r"(?:^|\s)later\s*$", right)
    right, adjust = _take_option(r"(?:^|\s)adjust\s*([+-]?[0-9]+)", right)
    parts = re.split(r"\s+with\s+", f" {right} ", maxsplit=1, flags=re.I)
    if len(parts) < 2:
        raise TagError(
            "Name what the initiator duels with: with body, Swordsmanship...", DUEL_USAGE
        )
    target_part, source_part = parts
    actor = name_argument(left, "initiator", DUEL_USAGE, context.limits)
    target = name_argument(target_part, "target", DUEL_USAGE, context.limits)
    bonus = (
        _number(adjust.group(1), "adjust", DUEL_USAGE, -context.limits.max_modifier, 99)
        if adjust
        else 0
    )
    return DuelDeclare(
        actor, target, _sources(source_part, DUEL_USAGE, context), bonus, later is not None
    )


def _duel_step(number: int, text: str, context: ParseContext) -> DuelStep:
    _once(text, r"(?:^|\s)timer\b", "timer", DUEL_USAGE)
    text, timer = _take_option(r"(?:^|\s)timer\s*=?\s*([0-9]+)", text)
    segments = _number(timer.group(1), "timer", DUEL_USAGE, 0, 99) if timer else None
    words = text.split()
    if not words:
        raise TagError(
            "Say what happens to the duel: roll, withdraw, accept or resist.", DUEL_USAGE
        )
    action = words[0].casefold()
    if action == "with":
        return DuelStep(number, "defend", _sources(" ".join(words[1:]), DUEL_USAGE, context))
    if action not in ("roll", "withdraw", "accept", "resist") or len(words) > 1:
        raise TagError(
            f"'{shorten(text)}' is not a duel step: roll, with <sources>, withdraw, accept or "
            "resist.",
            DUEL_USAGE,
        )
    return DuelStep(number, action, (), segments)


def parse_stakes(rest: str, context: ParseContext) -> Stakes:
    """``<character> life`` or ``<character> skill|ability|benefit <name>``."""
    words = _words(rest, STAKES_USAGE, "the character")
    for index in range(len(words) - 1, 0, -1):
        word = words[index].casefold()
        if word in {w.value for w in Wager}:
            actor = name_argument(
                " ".join(words[:index]), "character", STAKES_USAGE, context.limits
            )
            what = collapse(" ".join(words[index + 1 :]))
            if word == Wager.LIFE.value and what:
                raise TagError("A life is wagered alone: [[stakes Kara life]].", STAKES_USAGE)
            if what:
                name_argument(what, word, STAKES_USAGE, context.limits)
            return Stakes(actor, Wager(word), what)
    raise TagError("Say what is wagered: a skill, an ability, a benefit or life.", STAKES_USAGE)


def _attribute(word: str, usage: str) -> Attribute:
    try:
        return Attribute(word.strip().lstrip("+").casefold())
    except ValueError:
        raise TagError(
            f"'{shorten(word)}' is not an attribute: body, talent, spirit or mind.", usage
        ) from None


def _gain(item: str, usage: str, context: ParseContext) -> tuple[TraitKind, str]:
    head, _, name = item.partition(" ")
    kinds = {k.value: k for k in GAIN_KINDS} | {"tier": TraitKind.TECHNIQUE, "rank": None}
    kind = kinds.get(head.casefold(), TraitKind.BOND)
    if kind is None:
        raise TagError("Say what a Rank goes to: skill <name> or ability <name>.", usage)
    if kind is TraitKind.BOND:
        raise TagError(
            f"'{shorten(item)}' is not a gain: skill, ability, benefit or technique and a name.",
            usage,
        )
    return kind, name_argument(name, head.casefold(), usage, context.limits)


def parse_levelup(rest: str, context: ParseContext) -> LevelUp:
    """``<character> <attr>, <attr>[, highest <attr>][, skill|ability|benefit|technique X]``."""
    words = _words(rest.replace(",", " , "), LEVELUP_USAGE, "the character")
    actor, tail = leading_name(words, context, LEVELUP_USAGE)
    items = [collapse(i) for i in " ".join(tail).split(",") if collapse(i)]
    raised: list[Attribute] = []
    highest: Attribute | None = None
    gains: list[tuple[TraitKind, str]] = []
    for item in items:
        head = item.split()[0].casefold().lstrip("+")
        if head in {a.value for a in Attribute} and len(raised) < 2:
            raised += [_attribute(w, LEVELUP_USAGE) for w in item.split()]
        elif head == "highest":
            if highest is not None:
                raise TagError("Name the highest attribute once.", LEVELUP_USAGE)
            highest = _attribute(item.partition(" ")[2], LEVELUP_USAGE)
        else:
            gains.append(_gain(item, LEVELUP_USAGE, context))
    if len(raised) != 2:
        raise TagError("Name the two attributes this Level raises.", LEVELUP_USAGE)
    if raised[0] == raised[1]:
        raise TagError("A Level raises two different attributes by 1 each.", LEVELUP_USAGE)
    return LevelUp(actor, (raised[0], raised[1]), highest, tuple(gains))


def parse_awaken(rest: str, context: ParseContext) -> Awaken:
    """``<character> skill X, technique Y, benefit Z``."""
    words = _words(rest.replace(",", " , "), AWAKEN_USAGE, "the character")
    actor, tail = leading_name(words, context, AWAKEN_USAGE)
    items = [collapse(i) for i in " ".join(tail).split(",") if collapse(i)]
    if not items:
        raise TagError(
            "Name the saved gains to take: skill, ability, benefit or technique and a name.",
            AWAKEN_USAGE,
        )
    return Awaken(actor, tuple(_gain(item, AWAKEN_USAGE, context) for item in items))


def parse_scene(rest: str, context: ParseContext) -> SceneStep:
    """``combat``, ``unstructured`` or ``end``."""
    word = collapse(rest).casefold().removeprefix("start ")
    if word == "end":
        return SceneStep(None)
    try:
        return SceneStep(Mode(word))
    except ValueError:
        raise TagError("A scene is combat or unstructured, or it ends.", SCENE_USAGE) from None


def parse_chapter(rest: str, context: ParseContext) -> ChapterStep:
    """``start`` or ``end``."""
    word = collapse(rest).casefold()
    if word not in ("start", "end"):
        raise TagError("A chapter starts or ends.", CHAPTER_USAGE)
    return ChapterStep(word == "start")


def parse_intermission(rest: str, context: ParseContext) -> Intermission:
    """Everyone, or the characters named (commas between them)."""
    names = tuple(
        name_argument(part, "character", INTERMISSION_USAGE, context.limits)
        for part in rest.split(",")
        if collapse(part)
    )
    if len(names) > context.limits.max_names_per_tag:
        raise TagError(
            f"Name at most {context.limits.max_names_per_tag} characters.", INTERMISSION_USAGE
        )
    folded = [name.casefold() for name in names]
    twice = next(
        (name for name, key in zip(names, folded, strict=True) if folded.count(key) > 1), ""
    )
    if twice:
        raise TagError(f"Name {shorten(twice)} once.", INTERMISSION_USAGE)
    return Intermission(names)


def parse_tension(rest: str, context: ParseContext) -> Tension:
    """``<Tension>``."""
    return Tension(
        _number(collapse(rest), "Tension", TENSION_USAGE, 1, context.limits.max_modifier)
    )


def parse_set(rest: str, context: ParseContext) -> SetValue:
    """``<character> <what> <value>``."""
    words = rest.split()
    if len(words) < 3:
        raise TagError("Name the character, what to set, then its value.", SET_USAGE)
    actor, key_words = leading_name(words[:-1], context, SET_USAGE)
    if not key_words:
        raise TagError("Say what to set: a counter such as stress, or a trait.", SET_USAGE)
    key = collapse(" ".join(key_words))
    if len(key) > context.limits.max_name_chars * 2:
        raise TagError("That is too long to be a counter or a trait.", SET_USAGE)
    return SetValue(actor, key, words[-1])


def parse_harm(rest: str, context: ParseContext) -> Harm:
    """``<character> stress N [wounds N]``."""
    amounts = {"stress": 0, "wounds": 0}
    text = rest
    for key in amounts:
        text, found = _take_option(rf"(?:^|\s){key[:5]}\w*\s+(\S+)", text)
        if found:
            amounts[key] = _number(
                found.group(1), key, HARM_USAGE, 0, context.limits.max_wounds_change
            )
    if not any(amounts.values()):
        raise TagError("Say how much Stress or how many Wounds: stress 2.", HARM_USAGE)
    actor = name_argument(text, "character", HARM_USAGE, context.limits)
    return Harm(actor, amounts["stress"], amounts["wounds"])


def parse_timer(rest: str, context: ParseContext) -> TimerStep:
    """``new <name> <segments> ["event"]``, ``<name> +N``, ``<name> N``, ``size``, ``remove``."""
    quoted = _QUOTED.findall(rest)
    words = _QUOTED.sub(" ", rest).split()
    limits = context.limits
    if words and words[0].casefold() == "new":
        numbers = [i for i, w in enumerate(words) if _WHOLE.fullmatch(w)]
        if not numbers or numbers[0] == 1:
            raise TagError("Give the new timer a name, then its segments.", TIMER_USAGE)
        at = numbers[0]
        name = name_argument(" ".join(words[1:at]), "timer", TIMER_USAGE, limits)
        event = collapse(" ".join([*quoted, *words[at + 1 :]]))
        if len(event) > limits.max_tag_chars // 4:
            raise TagError("Keep the timer's event short.", TIMER_USAGE)
        return TimerStep("new", name, _number(words[at], "segments", TIMER_USAGE, 0, 999), event)
    if quoted:
        raise TagError("Quotes go around a new timer's event only.", TIMER_USAGE)
    if len(words) < 2:
        raise TagError("Name the timer, then what to do with it.", TIMER_USAGE)
    last = words[-1].casefold()
    if last == "remove":
        return TimerStep(
            "remove", name_argument(" ".join(words[:-1]), "timer", TIMER_USAGE, limits)
        )
    if len(words) >= 3 and words[-2].casefold() == "size":
        name = name_argument(" ".join(words[:-2]), "timer", TIMER_USAGE, limits)
        return TimerStep("size", name, _number(words[-1], "size", TIMER_USAGE, 0, 999))
    name = name_argument(" ".join(words[:-1]), "timer", TIMER_USAGE, limits)
    if last.startswith("+"):
        return TimerStep("advance", name, _number(last, "segments", TIMER_USAGE, 1, 999))
    return TimerStep("set", name, _number(last, "filled segments", TIMER_USAGE, 0, 999))
