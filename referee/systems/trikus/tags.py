"""Reading ``trikus`` tags: the text after the verb -> a request (parse stage only).

Forms (a character's name may have spaces; the campaign's names are known)::

    open test 2 Kara, Zuzia "Success: the gate opens. Failure: the alarm sounds."
    open duel Kara, Zuzia "Success: Kara keeps the holocron."
    open fight 3 Kara, Zuzia allies=Trooper,Droid difficulty=3 negotiate=9 vs Darth Vex
    declare Kara line=1 morale=1 light=1 escape=1,8 negotiate=9 defend:Zuzia
    test Kara morale=1            test Kara vs 2 line=2   (vs: the GM's difficulty)
    go        answer yes|no       difficulty 2|off        overturn      refresh
    light Kara [N]   dark Kara [N]   morale Kara N   line Kara 2-die|#2 free|struck|lost[=N]
    master Darth Vex   fall Kara   advance Kara   sacrifice [Kara, Zuzia]   renew Kara Medpac

A declaration's words are those of §3.6 (:data:`.policy.USAGE`). Anything unreadable
raises :class:`~referee.base.errors.TagError` with the verb's form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from referee.base.errors import TagError
from referee.system import ParseContext
from referee.system.arguments import known_prefix, name_argument, shorten

from .policy import USAGE as POLICY_WORDS
from .policy import Policy, parse_policy
from .state import LineStatus

OPEN_USAGE = (
    '[[open test 2 Kara, Zuzia "stakes"]], [[open fight 3 Kara, Zuzia difficulty=3]] '
    "or [[open duel Kara, Zuzia]]"
)
DECLARE_USAGE = f"[[declare Kara line=1 morale=1]] (words: {POLICY_WORDS})"
TEST_USAGE = "[[test Kara morale=1]]"  # a GM may add the pool: [[test Kara vs 2]]
ANSWER_USAGE = "[[answer yes]] or [[answer no]]"
DIFFICULTY_USAGE = "[[difficulty 2]] or [[difficulty off]]"
COUNT_USAGE = {
    "light": "[[light Kara]] or [[light Kara 2]]",
    "dark": "[[dark Kara]] or [[dark Kara 2]]",
    "morale": "[[morale Kara 3]]",
}
LINE_USAGE = (
    "[[line Kara 2-die free]], [[line Kara 1-die struck]], [[line Kara 2-die lost=2]], "
    "or by its place on the sheet: [[line Pawel #3 free]]"
)
NAMED_USAGE = {
    "fall": "[[fall Kara]]",
    "advance": "[[advance Kara]]",
    "master": "[[master Darth Vex]]",
}
SACRIFICE_USAGE = "[[sacrifice Kara, Zuzia]] (the players who fought the master)"
RENEW_USAGE = "[[renew Kara Medpac]]"
SIDES_USAGE = "[[sides Pawel light: brave, kind; dark: vain, rash]] (after an advancement)"
DARKSIDE_USAGE = "[[darkside Michal cold]] (another player writes a side of the party's Master)"

_QUOTED = re.compile(r'["“”]([^"“”]*)["“”]')
_MAX_PARTICIPANTS = 12
_MAX_STAKES = 300


@dataclass(frozen=True)
class Open:
    """``open``: the GM opens a test or a fight in the thread."""

    kind: str  # "test", "fight" or "duel" (two players against each other)
    gm_dice: int  # 0 for a duel between players
    names: tuple[str, ...]
    stakes: str = ""
    allies: tuple[str, ...] = ()  # the GM's named allies (fights)
    difficulty: int | None = None  # Combat Difficulty (fights); None: the basic rules
    opponent: str = ""  # the NPC fought (a GM-marked master triggers the sacrifice)
    gm_negotiate: int | None = None  # the GM proposes a reroll of a player's die >= this


@dataclass(frozen=True)
class Declare:
    """``declare`` (into the thread's open test) or ``test`` (alone, in one post)."""

    actor: str
    policy: Policy
    words: str  # the declaration as written, kept with the pending test
    gm_dice: int | None = None  # ``test ... vs N``: the GM's difficulty for this test


@dataclass(frozen=True)
class Bare:
    """A verb with no argument: ``go``, ``overturn``, ``refresh``."""


@dataclass(frozen=True)
class Go:
    """``go`` (the open test or round now) or ``go all`` (a fight to its end)."""

    whole: bool = False


@dataclass(frozen=True)
class Answer:
    agreed: bool


@dataclass(frozen=True)
class Difficulty:
    gm_dice: int | None  # None: ``off``


@dataclass(frozen=True)
class Count:
    """``light Kara 2``, ``dark Kara``, ``morale Kara 3``."""

    actor: str
    count: int | None


@dataclass(frozen=True)
class SetLine:
    """``line Kara 2-die free`` (by its dice) or ``line Kara #2 free`` (by its place)."""

    actor: str
    index: int  # 1-based place on the sheet; 0 when named by its dice
    status: LineStatus
    refreshes: int
    dice: int = 0  # the line's dice, when named so ("2-die")


@dataclass(frozen=True)
class Named:
    """A verb on one name: ``fall Kara``, ``advance Kara``, ``master Darth Vex``."""

    actor: str


@dataclass(frozen=True)
class Names:
    """``sacrifice Kara, Zuzia``."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Renew:
    """``renew Kara Medpac``; ``darkside Michal cold`` (``item`` holds the side)."""

    actor: str
    item: str


def _small(text: str, what: str, usage: str, high: int = 99) -> int:
    # ASCII digits only: str.isdigit() also takes "³" and "①", which int() refuses. Leading
    # zeros are read (002 is 2); the length is checked on what is left of a long number.
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit()) or len(digits) > 3 or not 0 <= int(digits) <= high:
        raise TagError(f"{what} is a whole number up to {high}, not '{shorten(text)}'.", usage)
    return int(digits)


def _names(text: str, context: ParseContext, usage: str) -> tuple[str, ...]:
    parts = [p for p in re.split(r",|\band\b", text) if p.strip()]
    if not parts:
        raise TagError("Name the characters, separated by commas.", usage)
    if len(parts) > _MAX_PARTICIPANTS:
        raise TagError(f"At most {_MAX_PARTICIPANTS} characters take part at once.", usage)
    return tuple(name_argument(p, "character", usage, context.limits) for p in parts)


def parse_open(rest: str, context: ParseContext) -> Open:
    """``test|fight <GM dice> <names, comma-separated> [options] ["stakes"]``."""
    stakes = _QUOTED.findall(rest)
    if len(stakes) > 1:
        raise TagError("Give the stakes once, in quotes.", OPEN_USAGE)
    stake = " ".join(stakes[0].split()) if stakes else ""
    if len(stake) > _MAX_STAKES:
        raise TagError(f"The stakes are at most {_MAX_STAKES} characters.", OPEN_USAGE)
    text = _QUOTED.sub(" ", rest)
    words = text.split()
    kind = words[0].casefold() if words else ""
    if kind == "duel" and len(words) >= 2:
        names = _names(" ".join(words[1:]), context, OPEN_USAGE)
        if len(names) != 2:
            raise TagError("A duel between players names two characters.", OPEN_USAGE)
        return Open(kind, 0, names, stake)
    if len(words) < 3 or kind not in ("test", "fight"):
        raise TagError(
            "Write test or fight, the GM's dice (the difficulty), then the characters; "
            "or duel and two characters.",
            OPEN_USAGE,
        )
    gm_dice = _small(words[1], "The GM's pool", OPEN_USAGE)
    body = " ".join(words[2:])
    opponent = ""
    if kind == "fight" and re.search(r"\bvs\b", body, re.I):
        body, _, after = re.split(r"\b(vs)\b", body, maxsplit=1, flags=re.I)
        opponent = name_argument(after, "opponent", OPEN_USAGE, context.limits)
    allies: tuple[str, ...] = ()
    difficulty: int | None = None
    gm_negotiate: int | None = None
    kept: list[str] = []
    given: set[str] = set()
    for word in body.split():
        key, sep, value = word.partition("=")
        folded = key.casefold()
        if folded in ("allies", "difficulty", "negotiate") and (sep or folded == "difficulty"):
            if folded in given:
                raise TagError(f"Give {folded} once.", OPEN_USAGE)
            given.add(folded)
        if kind == "fight" and folded == "allies" and sep:
            allies = tuple(
                name_argument(a, "ally", OPEN_USAGE, context.limits)
                for a in value.split(",")
                if a.strip()
            )
        elif kind == "fight" and folded == "difficulty":
            difficulty = _small(value, "Combat Difficulty", OPEN_USAGE, 20) if sep else 0
            if sep and not difficulty:  # 0 would silently mean the campaign's own
                raise TagError(
                    "Combat Difficulty is 1 to 20, not 0; write difficulty alone for the "
                    "campaign's.",
                    OPEN_USAGE,
                )
        elif folded == "negotiate" and sep:
            gm_negotiate = _small(value, "The GM's Negotiation threshold", OPEN_USAGE, 10)
        elif sep:
            raise TagError(f"'{shorten(word)}' is not an option of open {kind}.", OPEN_USAGE)
        else:
            kept.append(word)
    names = _names(" ".join(kept), context, OPEN_USAGE)
    return Open(kind, gm_dice, names, stake, allies, difficulty, opponent, gm_negotiate)


def _split(rest: str, context: ParseContext, usage: str) -> tuple[str, str]:
    """The character's name (the longest known one, else the words before the first
    declaration word) and the declaration's words."""
    words = rest.split()
    count = known_prefix(words, context)
    if not count:
        count = next(
            (i for i, w in enumerate(words) if "=" in w or ":" in w or w.casefold() in _FLAGS),
            len(words),
        )
    if not count:
        raise TagError("Name the character first.", usage)
    actor = name_argument(" ".join(words[:count]), "character", usage, context.limits)
    return actor, " ".join(words[count:])


_FLAGS = frozenset(("empower", "opt-out", "optout", "accept", "attack", "vs"))


def parse_declare(rest: str, context: ParseContext) -> Declare:
    """``<character> [declaration words]``."""
    actor, words = _split(rest, context, DECLARE_USAGE)
    return Declare(actor, parse_policy(words, context.limits), words)


def parse_test(rest: str, context: ParseContext) -> Declare:
    """``<character> [vs N] [declaration words]``."""
    actor, words = _split(rest, context, TEST_USAGE)
    gm_dice = None
    match = re.match(r"^vs\s+(\S+)\s*", words, re.I)
    if match:
        gm_dice = _small(match.group(1), "The GM's pool", TEST_USAGE)
        words = words[match.end() :]
    return Declare(actor, parse_policy(words, context.limits), words, gm_dice)


def bare_parser(usage: str) -> Callable[[str, ParseContext], Bare]:
    def parse(rest: str, context: ParseContext) -> Bare:
        if rest.strip():
            raise TagError(f"This verb takes nothing after it, not '{shorten(rest)}'.", usage)
        return Bare()

    return parse


GO_USAGE = "[[go]], or [[go all]] to play a fight to its end"


def parse_go(rest: str, context: ParseContext) -> Go:
    word = rest.strip().casefold()
    if word in ("", "all"):
        return Go(word == "all")
    raise TagError(f"Write go, or go all, not '{shorten(rest)}'.", GO_USAGE)


def parse_answer(rest: str, context: ParseContext) -> Answer:
    word = rest.strip().casefold()
    if word in ("yes", "agree", "y"):
        return Answer(True)
    if word in ("no", "refuse", "n"):
        return Answer(False)
    raise TagError("Answer the Negotiation with yes or no.", ANSWER_USAGE)


def parse_difficulty(rest: str, context: ParseContext) -> Difficulty:
    word = rest.strip().casefold()
    if word in ("off", "none", "0"):
        return Difficulty(None)
    return Difficulty(_small(word, "The difficulty (the GM's dice)", DIFFICULTY_USAGE))


def count_parser(verb: str, required: bool = False) -> Callable[[str, ParseContext], Count]:
    usage = COUNT_USAGE[verb]

    def parse(rest: str, context: ParseContext) -> Count:
        words = rest.split()
        count = None
        if len(words) > 1 and words[-1].isdigit():
            count = _small(words[-1], "The count", usage)
            words = words[:-1]
        if required and count is None:
            raise TagError("Name the character, then a whole number.", usage)
        return Count(name_argument(" ".join(words), "character", usage, context.limits), count)

    return parse


def parse_line(rest: str, context: ParseContext) -> SetLine:
    """``<character> <line number> free|struck|lost[=refreshes]``."""
    words = rest.split()
    if len(words) < 3:
        raise TagError("Name the character, the line's number, then its status.", LINE_USAGE)
    status_word, _, refreshes = words[-1].casefold().partition("=")
    try:
        status = LineStatus(status_word)
    except ValueError:
        raise TagError("A line is free, struck or lost=N.", LINE_USAGE) from None
    which = words[-2].casefold()
    sized = re.fullmatch(r"(\d)-di(?:e|ce)", which)
    index = dice = 0
    if sized:
        dice = int(sized.group(1))
    else:
        index = _small(which.lstrip("#"), "The line (2-die, or #2 for its place)", LINE_USAGE, 3)
        if not index:
            raise TagError("Lines are counted from #1.", LINE_USAGE)
    count = _small(refreshes, "The refreshes", LINE_USAGE, 10) if refreshes else 0
    if refreshes and not count:  # 0 would silently mean the default 2
        raise TagError(
            "A lost line waits 1 to 10 refreshes, not 0; lost alone is 2. A line back in "
            "play is free.",
            LINE_USAGE,
        )
    if status is LineStatus.LOST and not count:
        count = 2
    actor = name_argument(" ".join(words[:-2]), "character", LINE_USAGE, context.limits)
    return SetLine(actor, index, status, count, dice)


def named_parser(verb: str) -> Callable[[str, ParseContext], Named]:
    usage = NAMED_USAGE[verb]

    def parse(rest: str, context: ParseContext) -> Named:
        return Named(name_argument(rest, "character", usage, context.limits))

    return parse


def parse_sacrifice(rest: str, context: ParseContext) -> Names:
    if not rest.strip():
        return Names(())
    return Names(_names(rest, context, SACRIFICE_USAGE))


def _name_then(usage: str, what: str) -> Callable[[str, ParseContext], Renew]:
    """A parser of ``<character> <words>``: the longest known name, then the rest."""

    def parse(rest: str, context: ParseContext) -> Renew:
        words = rest.split()
        count = known_prefix(words, context) or 1
        if len(words) <= count:
            raise TagError(f"Name the character, then the {what}.", usage)
        actor = name_argument(" ".join(words[:count]), "character", usage, context.limits)
        return Renew(actor, name_argument(" ".join(words[count:]), what, usage, context.limits))

    return parse


parse_renew = _name_then(RENEW_USAGE, "item")
parse_darkside = _name_then(DARKSIDE_USAGE, "Dark side")


@dataclass(frozen=True)
class Sides:
    """``sides Pawel light: brave, kind; dark: vain, rash`` (``dark: hidden``: none named)."""

    actor: str
    light: tuple[str, ...]
    dark: tuple[str, ...]


_SIDE_LIST = re.compile(r"\b(light|dark)\s*:\s*([^;]*)", re.I)


def parse_sides(rest: str, context: ParseContext) -> Sides:
    """``<character> light: a, b; dark: c, d``."""
    first = _SIDE_LIST.search(rest)
    if first is None:
        raise TagError("Name the character, then `light:` and `dark:` with the sides.", SIDES_USAGE)
    actor = name_argument(rest[: first.start()], "character", SIDES_USAGE, context.limits)
    lists: dict[str, tuple[str, ...]] = {"light": (), "dark": ()}
    for kind, text in _SIDE_LIST.findall(rest[first.start() :]):
        names = tuple(" ".join(p.split()) for p in text.split(",") if p.strip())
        if kind.casefold() == "dark" and [n.casefold() for n in names] == ["hidden"]:
            names = ()
        for name in names:
            name_argument(name, "side", SIDES_USAGE, context.limits)
        lists[kind.casefold()] = names
    return Sides(actor, lists["light"], lists["dark"])
