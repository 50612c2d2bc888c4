"""Reading ``pool`` tags: the text after the verb -> a request (parse stage only).

Forms (a character's name may have spaces; the campaign's names are known)::

    roll Kara dexterity+stealth diff 7        roll 6 diff 7         roll Kara willpower
    roll Kara wits +2 diff +1 willpower       roll Kara dex+security on the vault
    act Kara 3: dexterity+brawl, dexterity+dodge, dexterity+dodge
    act Kara dexterity: brawl, dodge reflexive
    resist Kara dexterity+stealth vs Guard perception+alertness diff 7
    resist Kara dexterity+stealth vs Dax     (Dax's player then: resist Dax wits+alertness vs Kara)
    difficulty 7      difficulty 8 no willpower      difficulty off
    success Kara on the vault                session
    task the vault target 10 turns 5 team Kara, Dax
    contest arm wrestling: Kara vs Dax target 5        close the vault
    teamwork the vault: Kara, Dax
    set Kara dexterity 4, willpower 7, points +1       counter Kara health -1

One side of a roll reads ``[<character>] <pool> [options]``: the pool is traits joined
by ``+`` (an Attribute and an Ability, or one trait alone) or a number of dice, then
``+N``/``-N`` dice; the options are ``diff N`` (or ``diff +N``/``diff -N`` from the
standing difficulty), ``willpower`` (spend a point) and ``reflexive``.

Anything unreadable raises :class:`~referee.base.errors.TagError` with the verb's form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from referee.base.errors import TagError
from referee.system import ParseContext
from referee.system.arguments import collapse, known_prefix, name_argument, shorten

from .rolls import PoolSpec, RollRequest

ROLL_USAGE = "[[roll Kara dexterity+stealth diff 7]], [[roll 6 diff 7]] or [[roll Kara willpower]]"
ACT_USAGE = "[[act Kara 3: dexterity+brawl, dexterity+dodge, dexterity+dodge]]"
RESIST_USAGE = "[[resist Kara dexterity+stealth vs Guard perception+alertness]]"
DIFFICULTY_USAGE = (
    "[[difficulty 7]], [[difficulty 8 no willpower]], [[difficulty off]], or for one "
    "character's next roll [[difficulty 8 no willpower for Kara]]"
)
SUCCESS_USAGE = "[[success Kara]] or [[success Kara on the vault]]"
SESSION_USAGE = "[[session]]"
TASK_USAGE = "[[task the vault target 10 turns 5]] or [[task the vault target 10 team Kara, Dax]]"
CONTEST_USAGE = "[[contest arm wrestling: Kara vs Dax target 5]]"
CLOSE_USAGE = "[[close the vault]]"
TEAMWORK_USAGE = "[[teamwork the vault]] or [[teamwork the vault: Kara, Dax]]"
SET_USAGE = (
    "[[set Kara dexterity 4]], [[set Kara humanity 6, willpower 7]] or [[set Kara points +1]]"
)
COUNTER_USAGE = (
    "[[counter Kara health 7]], [[counter Kara health -1]] or [[counter Kara notes clear]]"
)

_NUMBER = re.compile(r"[0-9]{1,7}")
_SIGNED = re.compile(r"[+-][0-9]{1,7}")
_ON = re.compile(r"\s+on\s+", re.I)
_VS = re.compile(r"\s+(?:vs\.?|versus|against)\s+", re.I)
_DIFF_WORDS = ("diff", "difficulty", "dif")
_WILLPOWER_WORDS = ("willpower", "wp")
_MAX_ACTIONS = 10  # actions one declaration may hold


@dataclass(frozen=True)
class Side:
    """One side of a roll as typed: who rolls (``""``: nobody named) and the engine's request."""

    roller: str
    request: RollRequest


@dataclass(frozen=True)
class Roll:
    """``roll``: one action, on an extended task when ``task`` is set."""

    side: Side
    task: str | None = None


@dataclass(frozen=True)
class Act:
    """``act``: several actions of one character in one turn (R-34)."""

    roller: str
    requests: tuple[RollRequest, ...]
    attribute: str = ""  # given before the colon: joins every action that names an Ability alone


@dataclass(frozen=True)
class Resist:
    """``resist``: two sides; the second's request is None when its owner declares it later."""

    first: Side
    opponent: str
    second: RollRequest | None


@dataclass(frozen=True)
class SetDifficulty:
    """``difficulty``: the thread's standing difficulty (None: back to 6)."""

    difficulty: int | None
    willpower_allowed: bool = True
    roller: str = ""  # ``for Kara``: the GM's word on Kara's next roll only


@dataclass(frozen=True)
class AutoSuccess:
    """``success``: an automatic success, no roll; on a task it adds one success."""

    roller: str
    task: str | None = None


@dataclass(frozen=True)
class StartSession:
    """``session``: a new session begins (every free botch returns, R-33)."""


@dataclass(frozen=True)
class OpenTask:
    """``task``: the GM opens an extended task."""

    name: str
    target: int
    turns: int | None = None
    teamwork: bool = False
    team: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpenContest:
    """``contest``: the GM opens a resisted + extended contest between two characters."""

    name: str
    sides: tuple[str, str]
    target: int


@dataclass(frozen=True)
class Close:
    """``close``: the GM closes a task or contest by name."""

    name: str


@dataclass(frozen=True)
class AllowTeamwork:
    """``teamwork``: the GM lets several characters roll on one task (R-37)."""

    task: str
    team: tuple[str, ...] = ()


@dataclass(frozen=True)
class Edit:
    """``set``: ratings (traits, willpower, humanity) and Willpower points, as typed.

    Each value is ``(number, relative)``: ``+1`` is relative, ``4`` absolute.
    """

    roller: str
    values: tuple[tuple[str, int, bool], ...]


@dataclass(frozen=True)
class SetCounter:
    """``counter``: one of the GM's free-form counters (None: remove it)."""

    roller: str
    counter: str
    value: int | str | None
    relative: bool = False


# ------------------------------------------------------------------------ one side


def _int(text: str, usage: str, low: int, high: int, what: str) -> int:
    body = text.lstrip("+-")
    if not _NUMBER.fullmatch(body.lstrip("0") or "0") or not body.isascii() or not body.isdigit():
        raise TagError(f"'{shorten(text)}' is not a number; {what} is {low} to {high}.", usage)
    value = int(text[: len(text) - len(body)] + (body.lstrip("0") or "0"))  # 007 is 7
    if not low <= value <= high:
        raise TagError(f"{what.capitalize()} is {low} to {high}, not {value}.", usage)
    return value


def _options(words: list[str], usage: str, request: RollRequest) -> RollRequest:
    """The options after a pool: ``diff N``, ``willpower``, ``reflexive``."""
    index = 0
    seen: set[str] = set()
    while index < len(words):
        word = words[index].casefold()
        key = "diff" if word in _DIFF_WORDS else "willpower" if word in _WILLPOWER_WORDS else word
        if key in seen:
            raise TagError(f"Give {key} once.", usage)
        seen.add(key)
        if key == "diff":
            if index + 1 == len(words):
                raise TagError("Give the difficulty after diff: diff 7 (or diff +1).", usage)
            value = words[index + 1]
            if _SIGNED.fullmatch(value):
                number = _int(value, usage, -10, 10, "a difficulty modifier")
                request = replace(request, difficulty_modifier=number)
            else:
                request = replace(request, difficulty=_int(value, usage, 2, 10, "a difficulty"))
            index += 2
            continue
        if key == "willpower":
            request = replace(request, willpower=True)
        elif key == "reflexive":
            request = replace(request, reflexive=True)
        else:
            raise TagError(
                f"'{shorten(words[index])}' is not an option of a roll; the options are "
                "diff N, willpower and reflexive.",
                usage,
            )
        index += 1
    return request


def _pool(token: str, usage: str) -> PoolSpec:
    """``dexterity+stealth+2``, ``6-1`` or ``willpower`` -> the pool as typed."""
    parts = re.findall(r"[+-]?[^+-]+", token)
    if not parts or "".join(parts) != token:
        raise TagError("Write the pool as traits joined by + (dexterity+stealth), or dice.", usage)
    traits: list[str] = []
    dice: int | None = None
    modifier = 0
    for number, part in enumerate(parts):
        body = part.lstrip("+-")
        if _NUMBER.fullmatch(body):
            if number == 0 and part == body:
                dice = int(body)
            else:
                modifier += int(part)
        elif part.startswith("-"):
            raise TagError(f"Take dice away with a number (-2), not '{shorten(part)}'.", usage)
        elif not body.strip():
            raise TagError("Write the pool as traits joined by + (dexterity+stealth).", usage)
        else:
            traits.append(body)
    if dice is not None and traits:
        raise TagError("Roll traits or a number of dice, not both.", usage)
    if abs(modifier) > 100 or (dice is not None and dice > 10_000):
        raise TagError("That is more dice than any pool holds.", usage)
    return PoolSpec(tuple(traits), dice, modifier)


def _words(text: str) -> list[str]:
    """The words of a side, ``dexterity + stealth`` joined to ``dexterity+stealth``.

    >>> _words("Kara dexterity + stealth +1 diff +1")
    ['Kara', 'dexterity+stealth+1', 'diff', '+1']
    """
    words: list[str] = []
    for word in collapse(text).split():
        joins = word[0] in "+-" and words[-1].casefold() not in _DIFF_WORDS if words else False
        if words and (joins or words[-1][-1] in "+-"):
            words[-1] += word
        else:
            words.append(word)
    return words


def _side(text: str, context: ParseContext, usage: str, named: bool = False) -> Side:
    """``[<character>] <pool> [options]``; ``named``: a character must be named."""
    words = _words(text)
    if not words:
        raise TagError(
            "Say who rolls and what: a character and traits, or a number of dice.", usage
        )
    if words[-1].casefold() in _DIFF_WORDS:
        raise TagError("Give the difficulty after diff: diff 7 (or diff +1).", usage)
    count = known_prefix(words, context)
    if count == 0 and _NUMBER.fullmatch(re.split(r"[+-]", words[0])[0] or "x") and not named:
        count = 0  # a bare pool: nobody named
    elif count == 0:
        count = _unknown_name_length(words)
    if count >= len(words):
        raise TagError("Say what to roll after the name: traits joined by +, or dice.", usage)
    roller = (
        name_argument(" ".join(words[:count]), "character", usage, context.limits) if count else ""
    )
    request = RollRequest(_pool(words[count], usage), roller=roller)
    return Side(roller, _options(words[count + 1 :], usage, request))


def _unknown_name_length(words: list[str]) -> int:
    """For a name the campaign does not know: the words before the pool.

    Options are taken off the end first; ``willpower`` stays the pool when nothing else
    is left to roll (``roll Kara willpower``).
    """
    end = len(words)
    while end > 2:
        word = words[end - 1].casefold()
        if word in (*_WILLPOWER_WORDS, "reflexive"):
            end -= 1
        elif end > 3 and words[end - 2].casefold() in _DIFF_WORDS:
            end -= 2
        else:
            break
    return max(end - 1, 1)


def _split_on(text: str, usage: str) -> tuple[str, str | None]:
    """``... on <task>`` -> (the rest, the task's name)."""
    parts = _ON.split(text, maxsplit=1)
    if len(parts) == 1:
        return text, None
    name = collapse(parts[1])
    if not name:
        raise TagError("Name the task after on.", usage)
    return parts[0], name


# ----------------------------------------------------------------------- the verbs


def claims(rest: str) -> bool:
    """Whether ``roll <rest>`` is a bare pool (``6 diff 7``), not dice notation (``2d6``).

    >>> claims("6 diff 7"), claims("6"), claims("2d6+3"), claims("Kara wits")
    (True, True, False, False)
    """
    return re.match(r"\s*[0-9]+\s*([+-]\s*[0-9]+\s*)*(\s[a-zA-Z].*)?$", rest) is not None


def parse_roll(rest: str, context: ParseContext) -> Roll:
    """``[<character>] <pool> [options] [on <task>]``."""
    text, task = _split_on(rest, ROLL_USAGE)
    return Roll(_side(text, context, ROLL_USAGE), task)


def parse_act(rest: str, context: ParseContext) -> Act:
    """``<character> [N | <attribute>]: <action>, <action>...``."""
    head, colon, body = rest.partition(":")
    if not colon:
        raise TagError("Put a colon after the character, then the actions.", ACT_USAGE)
    words = _words(head)
    if not words:
        raise TagError("Name the character who acts.", ACT_USAGE)
    count = known_prefix(words, context) or (
        len(words) - 1 if len(words) > 1 and _is_count_or_trait(words[-1]) else len(words)
    )
    roller = name_argument(" ".join(words[:count]), "character", ACT_USAGE, context.limits)
    qualifier = words[count:]
    if len(qualifier) > 1:
        raise TagError("Before the colon: the character, then a number or an Attribute.", ACT_USAGE)
    actions = [collapse(a) for a in body.split(",")]
    if not all(actions):
        raise TagError("List the actions after the colon, separated by commas.", ACT_USAGE)
    if len(actions) > _MAX_ACTIONS:
        raise TagError(f"At most {_MAX_ACTIONS} actions in one declaration.", ACT_USAGE)
    requests = []
    for action in actions:
        words = _words(action)
        request = RollRequest(_pool(words[0], ACT_USAGE), roller=roller)
        requests.append(_options(words[1:], ACT_USAGE, request))
    shared = ""
    if qualifier and _NUMBER.fullmatch(qualifier[0]):
        # The seed: a reflexive act "não conta como uma ação": the count leaves it out.
        counted = sum(not r.reflexive for r in requests)
        if int(qualifier[0]) != counted:
            reflexive = len(requests) - counted
            aside = f" (and {reflexive} reflexive, which do not count)" if reflexive else ""
            raise TagError(
                f"You declared {int(qualifier[0])} actions but listed {counted}{aside}.",
                ACT_USAGE,
            )
    elif qualifier:
        shared = qualifier[0]
    return Act(roller, tuple(requests), shared)


def _is_count_or_trait(word: str) -> bool:
    return bool(_NUMBER.fullmatch(word)) or word.isalpha()


def parse_resist(rest: str, context: ParseContext) -> Resist:
    """``<character> <pool> [options] vs <opponent> [<pool> [options]]``."""
    parts = _VS.split(rest, maxsplit=1)
    if len(parts) != 2:
        raise TagError("Put vs between the two sides.", RESIST_USAGE)
    first = _side(parts[0], context, RESIST_USAGE, named=True)
    words = _words(parts[1])
    if not words:
        raise TagError("Name the opponent after vs.", RESIST_USAGE)
    known = known_prefix(words, context)
    if known == len(words) or (known == 0 and not _has_pool(words)):
        opponent = name_argument(" ".join(words), "opponent", RESIST_USAGE, context.limits)
        return Resist(first, opponent, None)
    second = _side(parts[1], context, RESIST_USAGE, named=True)
    return Resist(first, second.roller, second.request)


def _has_pool(words: list[str]) -> bool:
    """Whether an unknown opponent's words end in a pool (a number, traits joined by +)."""
    return len(words) > 1 and any("+" in w or _NUMBER.fullmatch(w) for w in words[1:])


def parse_difficulty(rest: str, context: ParseContext) -> SetDifficulty:
    """``<2-10> [no willpower]`` or ``off`` for the thread; ``... for <character>`` for
    that character's next roll, where the number may be left out (``no willpower for Kara``).
    """
    match = re.search(r"(?:^|\s)for\s+(.*)$", rest, re.I | re.S)
    head, named = (rest[: match.start()], match.group(1)) if match else (rest, "")
    words = head.casefold().split()
    allowed = True
    if words[-2:] == ["no", "willpower"]:
        allowed, words = False, words[:-2]
    roller = ""
    if named.strip():
        roller = name_argument(named, "character", DIFFICULTY_USAGE, context.limits)
        if not words and not allowed:
            return SetDifficulty(None, allowed, roller)
    if words in (["off"], ["clear"], ["none"]) and not roller:
        return SetDifficulty(None, allowed)
    if len(words) != 1:
        raise TagError("Give one difficulty from 2 to 10, or off.", DIFFICULTY_USAGE)
    difficulty = _int(words[0], DIFFICULTY_USAGE, 2, 10, "a difficulty")
    return SetDifficulty(difficulty, allowed, roller)


def parse_success(rest: str, context: ParseContext) -> AutoSuccess:
    """``<character> [on <task>]``."""
    text, task = _split_on(rest, SUCCESS_USAGE)
    return AutoSuccess(name_argument(text, "character", SUCCESS_USAGE, context.limits), task)


def parse_session(rest: str, context: ParseContext) -> StartSession:
    """``session`` alone (``session start`` reads the same)."""
    if rest.strip().casefold() not in ("", "start", "starts", "begins", "new"):
        raise TagError("Write [[session]] alone.", SESSION_USAGE)
    return StartSession()


def _names(text: str, usage: str, context: ParseContext) -> tuple[str, ...]:
    names = tuple(collapse(n) for n in re.split(r",|\band\b", text) if collapse(n))
    if len(names) > context.limits.max_names_per_tag:
        raise TagError(f"At most {context.limits.max_names_per_tag} names.", usage)
    folded = [name.casefold() for name in names]
    twice = next((n for n, key in zip(names, folded, strict=True) if folded.count(key) > 1), None)
    if twice is not None:
        raise TagError(f"Name {shorten(twice)} once.", usage)
    return tuple(name_argument(n, "team member", usage, context.limits) for n in names)


def parse_task(rest: str, context: ParseContext) -> OpenTask:
    """``<name> target N [turns N] [team [A, B] | teamwork]``."""
    match = re.fullmatch(
        r"(?P<name>.+?)\s+target\s+(?P<target>\S+)(?:\s+turns\s+(?P<turns>\S+))?"
        r"(?:\s+(?P<team>team|teamwork)\b(?P<members>.*))?",
        collapse(rest),
        re.I | re.S,
    )
    for word in ("target", "turns"):
        if len(re.findall(rf"\b{word}\s+[+-]?[0-9]", collapse(rest), re.I)) > 1:
            raise TagError(f"Give {word} once.", TASK_USAGE)
    if match is None:
        raise TagError("Name the task, then target N.", TASK_USAGE)
    name = name_argument(match["name"], "task", TASK_USAGE, context.limits)
    target = _int(match["target"], TASK_USAGE, 1, 1000, "a target")
    turns = _int(match["turns"], TASK_USAGE, 1, 1000, "a turn limit") if match["turns"] else None
    members = _names((match["members"] or "").lstrip(": "), TASK_USAGE, context)
    return OpenTask(name, target, turns, bool(match["team"]), members)


def parse_contest(rest: str, context: ParseContext) -> OpenContest:
    """``[<name>:] <A> vs <B> target N``."""
    match = re.fullmatch(
        r"(?:(?P<name>[^:]+):)?\s*(?P<sides>.+?)\s+target\s+(?P<target>\S+)",
        collapse(rest),
        re.I | re.S,
    )
    if match is None:
        raise TagError("Name the two sides with vs between them, then target N.", CONTEST_USAGE)
    if len(re.findall(r"\btarget\s+[+-]?[0-9]", collapse(rest), re.I)) > 1:
        raise TagError("Give target once.", CONTEST_USAGE)
    sides = _VS.split(" " + match["sides"] + " ", maxsplit=1)
    if len(sides) != 2:
        raise TagError("Put vs between the two sides.", CONTEST_USAGE)
    first, second = (name_argument(s, "side", CONTEST_USAGE, context.limits) for s in sides)
    name = collapse(match["name"] or f"{first} vs {second}")
    name = name_argument(name, "contest", CONTEST_USAGE, context.limits)
    return OpenContest(
        name, (first, second), _int(match["target"], CONTEST_USAGE, 1, 1000, "a target")
    )


def parse_close(rest: str, context: ParseContext) -> Close:
    """``<task or contest>``."""
    return Close(name_argument(rest, "task or contest", CLOSE_USAGE, context.limits))


def parse_teamwork(rest: str, context: ParseContext) -> AllowTeamwork:
    """``<task>[: A, B]``."""
    task, _, members = rest.partition(":")
    name = name_argument(task, "task", TEAMWORK_USAGE, context.limits)
    return AllowTeamwork(name, _names(members, TEAMWORK_USAGE, context))


def _split_actor(text: str, context: ParseContext, usage: str) -> tuple[str, list[str]]:
    """The character's name (the longest known one, else the first word) and the rest."""
    words = collapse(text).split()
    if len(words) < 2:
        raise TagError("Name the character, then what to change.", usage)
    count = known_prefix(words, context) or 1
    return name_argument(" ".join(words[:count]), "character", usage, context.limits), words[count:]


def parse_set(rest: str, context: ParseContext) -> Edit:
    """``<character> <trait> <value>[, <trait> <value>...]``; ``points`` are Willpower points."""
    roller, words = _split_actor(rest, context, SET_USAGE)
    values = []
    for item in " ".join(words).split(","):
        parts = item.split()
        if len(parts) < 2 or not re.fullmatch(r"[+-]?[0-9]{1,4}", parts[-1]):
            raise TagError("Write what to set, then a number: dexterity 4, points +1.", SET_USAGE)
        key = " ".join(parts[:-1]).casefold()
        values.append((key, int(parts[-1]), parts[-1][0] in "+-"))
    return Edit(roller, tuple(values))


def parse_counter(rest: str, context: ParseContext) -> SetCounter:
    """``<character> <counter> <number, +N, -N, a note, or clear>``."""
    roller, words = _split_actor(rest, context, COUNTER_USAGE)
    if len(words) < 2:
        raise TagError(
            "Name the counter, then its value (a number, +N/-N, a note or clear).", COUNTER_USAGE
        )
    counter, value = words[0].casefold(), " ".join(words[1:])
    if value.casefold() in ("clear", "none", "off"):
        return SetCounter(roller, counter, None)
    if re.fullmatch(r"[+-]?[0-9]{1,7}", value):
        return SetCounter(roller, counter, int(value), value[0] in "+-")
    return SetCounter(roller, counter, value.strip('"“”'))
