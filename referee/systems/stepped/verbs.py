"""Stepped's verbs as text: each parser turns the words after a verb into a request.

The core reads the verb and hands the rest of the tag to the parser named here; a
parser raises :class:`~referee.base.errors.TagError` with the verb's right form for
anything it cannot read, and nothing else. The requests are small frozen values the
resolvers of :mod:`.handlers` take.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from referee.base.errors import TagError, UserError
from referee.base.limits import Limits, read_int
from referee.system import ParseContext
from referee.system.arguments import (
    collapse,
    known_prefix,
    name_argument,
    shorten,
    signed_number,
    trailing_modifiers,
)

# verb -> the right form a problem verdict shows (the docs' players/stepped.md table has the same).
USAGE_OF = {
    "roll": "[[roll 2d6+3]] or [[roll Kara agility+perception -1]]",
    "init": "[[init Kara, Trooper 1, Trooper 2]]",
    "shoot": "[[shoot Kara -> Trooper 1 head with blaster pistol unaware env 1 +2]]",
    "melee": "[[melee Dax -> Trooper 2 left arm subdue with stun baton -1]]",
    "cast": "[[cast Kara Telekinesis +1]]",
    "stat": "[[stat Kestrel armour]] or [[stat Kestrel sensors vs Dune Crawler +1]]",
    "npc": "[[npc Trooper 4 as trooper]] or [[npc Bandit: str 2, agi 3, end 2, per 2, named]]",
    "wound": "[[wound Trooper 1 +1]] or [[wound Kara -1]]",
    "heal": "[[heal Kara]] (every wound) or [[heal Kara 1]]",
}


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


@dataclass(frozen=True)
class VehicleStat:
    """A craft's parameter with the ordinal d10: ``[[stat X-Wing armour vs Walker 1]]``."""

    vehicle: str
    parameter: str  # as written, casefolded: weapon, speed, acceleration, armour, sensors...
    against: str | None = None  # the opponent whose kind picks the scale
    modifier: int = 0


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


STATS = ("strength", "agility", "endurance", "perception")
LOCATIONS = ("head", "torso", "arm", "leg")
_LOCATION_WORDS = {**{word: word for word in LOCATIONS}, "body": "torso", "chest": "torso"}
_SIDES = ("left", "right")
_SIGNED = re.compile(r"[+\-][0-9]+")
_SEPARATOR = re.compile(r"\s*(?:->|→|=>)\s*|\s+at\s+", re.IGNORECASE)
_ENVIRONMENT = re.compile(r"(env|cover)([+\-]?[0-9]+)?", re.IGNORECASE)
_VERSUS = re.compile(r"\s+(?:vs\.?|versus|against)\s+", re.IGNORECASE)


def _stat(word: str, usage: str) -> str:
    """The full name of a core stat from a prefix of 3+ letters; other words casefolded."""
    folded = word.casefold()
    if not any(char.isalpha() for char in folded):
        raise TagError(f"'{shorten(word)}' is not a stat. Stats: {', '.join(STATS)}.", usage)
    matches = [stat for stat in STATS if len(folded) >= 3 and stat.startswith(folded)]
    return matches[0] if len(matches) == 1 else folded


def parse_roll(rest: str, context: ParseContext) -> RollStat:
    """``roll <character> <stat>[+<stat>...] [+N|-N]`` (the core reads ``roll 2d6+3`` first).

    >>> parse_roll("Trooper 1 agi + per -1", ParseContext())
    RollStat(actor='Trooper 1', stats=('agility', 'perception'), modifier=-1)
    """
    usage, limits = USAGE_OF["roll"], context.limits
    if not rest.strip():
        raise TagError("Say what to roll: dice like 2d6+3, or a character and a stat.", usage)
    text, modifier = trailing_modifiers(rest, usage, limits)
    words = re.sub(r"\s*\+\s*", "+", text).split()
    known = known_prefix(words, context)
    split = known if 0 < known < len(words) else len(words) - 1
    if split < 1:
        raise TagError(
            f"Name a character and a stat to roll, like 'Kara agility', not just "
            f"'{shorten(collapse(text))}'.",
            usage,
        )
    actor = name_argument(" ".join(words[:split]), "character", usage, limits)
    parts = " ".join(words[split:]).split("+")
    if not all(part.strip() for part in parts):
        raise TagError(
            f"Join stats with +, like agility+perception. Stats: {', '.join(STATS)}.", usage
        )
    return RollStat(actor, tuple(_stat(collapse(part), usage) for part in parts), modifier)


def parse_init(rest: str, context: ParseContext) -> RollInitiative:
    """``init <name>, <name>, ...``; without commas, known names split the words.

    >>> parse_init("Kara,  Trooper 1", ParseContext())
    RollInitiative(names=('Kara', 'Trooper 1'))
    >>> parse_init("Kara Trooper 1", ParseContext(frozenset({"kara", "trooper 1"})))
    RollInitiative(names=('Kara', 'Trooper 1'))
    """
    usage, limits = USAGE_OF["init"], context.limits
    chunks = [collapse(chunk) for chunk in re.split(r"[,;]", rest)]
    chunks = [chunk for chunk in chunks if chunk]
    if len(chunks) == 1 and context.known_names:
        words, names = chunks[0].split(), []
        while words and (count := known_prefix(words, context)):
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
    return RollInitiative(
        tuple(name_argument(chunk, "combatant", usage, limits) for chunk in chunks)
    )


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


def _attack_parser(verb: str) -> Callable[[str, ParseContext], Attack]:
    def parse(rest: str, context: ParseContext) -> Attack:
        usage, limits = USAGE_OF[verb], context.limits
        separator = _SEPARATOR.search(rest)
        if separator is None:
            raise TagError(
                f"Put -> between the attacker and the target: {verb} <attacker> -> <target>.",
                usage,
            )
        attacker = name_argument(rest[: separator.start()], "attacker", usage, limits)
        words = re.sub(r"(?<!\S)([+\-])\s+(?=[0-9])", r"\1", rest[separator.end() :]).split()
        end = known_prefix(words, context)
        if not end:
            while end < len(words) and not _is_option(words, end):
                end += 1
        target = name_argument(" ".join(words[:end]), "target", usage, limits)
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
                if word in flags:
                    raise TagError(f"Give {word} once.", usage)
                flags.add(word)
            elif word == "with":
                start = i + 1
                while i + 1 < len(words) and not _is_option(words, i + 1):
                    i += 1
                if weapon is not None:
                    raise TagError("Name one weapon, after a single 'with'.", usage)
                weapon = name_argument(" ".join(words[start : i + 1]), "weapon", usage, limits)
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
                environment += signed_number(amount, usage, limits)
            elif _SIGNED.fullmatch(word):
                modifier += signed_number(word, usage, limits)
            else:
                raise TagError(
                    f"'{shorten(words[i])}' is not an attack option. After the target write "
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
    >>> parse_cast("Kara Venn Mind Trick", ParseContext())
    Cast(actor='Kara', technique='Venn Mind Trick', modifier=0)
    """
    usage, limits = USAGE_OF["cast"], context.limits
    text, modifier = trailing_modifiers(rest, usage, limits)
    words = text.split()
    known = known_prefix(words, context)
    split = known if 0 < known < len(words) else 1
    if len(words) < 2:
        raise TagError("Name the caster and then the technique.", usage)
    actor = name_argument(" ".join(words[:split]), "caster", usage, limits)
    return Cast(actor, name_argument(" ".join(words[split:]), "technique", usage, limits), modifier)


def parse_vehicle_stat(rest: str, context: ParseContext) -> VehicleStat:
    """``stat <vehicle> <parameter> [vs <opponent>] [+N|-N]``.

    >>> parse_vehicle_stat("X-Wing weapon power vs AT-AT 1 -1", ParseContext())
    VehicleStat(vehicle='X-Wing', parameter='weapon power', against='AT-AT 1', modifier=-1)
    """
    usage, limits = USAGE_OF["stat"], context.limits
    text, modifier = trailing_modifiers(" " + rest.strip(), usage, limits)
    versus = _VERSUS.search(text)
    own = text[: versus.start()] if versus else text
    other = text[versus.end() :] if versus else ""
    words = own.split()
    take = 2 if len(words) > 2 and " ".join(words[-2:]).casefold() == "weapon power" else 1
    if len(words) <= take:
        raise TagError("Name the vehicle and then the parameter, like 'Kestrel armour'.", usage)
    name = name_argument(" ".join(words[:-take]), "vehicle", usage, limits)
    against = name_argument(other, "opponent", usage, limits) if versus else None
    return VehicleStat(name, " ".join(words[-take:]).casefold(), against, modifier)


def parse_npc(rest: str, context: ParseContext) -> CreateNpc:
    usage = USAGE_OF["npc"]
    head, colon, inline = rest.partition(":")
    name_part, as_word, template = head.partition(" as ")
    if not colon and not as_word:
        raise TagError("Give the NPC a template with `as` or stats after a colon.", usage)
    name = name_argument(name_part, "NPC", usage, context.limits)
    fields = tuple(collapse(item) for item in inline.split(",") if collapse(item))
    return CreateNpc(name, collapse(template) or None, fields)


_COUNT = re.compile(r"[0-9]+")


def _wounds_count(text: str, usage: str, limits: Limits) -> int:
    try:
        return read_int(text, "The number of wounds", 1, limits.max_wounds_change)
    except UserError as error:
        raise TagError(error.message, usage) from error


def _wound_parser(verb: str) -> Callable[[str, ParseContext], AdjustWounds]:
    def parse(rest: str, context: ParseContext) -> AdjustWounds:
        usage = USAGE_OF[verb]
        text, change = trailing_modifiers(" " + rest.strip(), usage, context.limits)
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
                    f"'{shorten(count, 20)}'.",
                    usage,
                )
        name = name_argument(" ".join(words), "character", usage, context.limits)
        if verb == "heal":
            return AdjustWounds(name, -abs(change) if change else None)
        if change == 0:
            raise TagError("Say how many wounds: +1 to add one, -1 to take one away.", usage)
        return AdjustWounds(name, change)

    return parse
