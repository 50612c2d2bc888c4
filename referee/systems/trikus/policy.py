"""The declared policy (RULES.md §3.6): what a player commits to a test before its dice.

An asynchronous referee cannot ask between dice, so each player declares up front:
the line, Morale dice, Empowerment or the opt-out, and standing triggers (Light,
escape, Negotiation), team and combat choices. :func:`parse_policy` reads the words
of a declaration; :func:`commit` checks it against the character's state and turns it
into the hand of dice the duel rolls, refusing what he cannot pay with what he has.

>>> policy = parse_policy("line=2 morale=1 light=1 escape=1,8 negotiate=9 defend:Zuzia")
>>> policy.line, policy.morale, policy.light, policy.escape, policy.negotiate, policy.defend
(2, 1, 1, (1, 8), 9, 'Zuzia')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from referee.base.english import with_article
from referee.base.errors import RuleViolation, TagError
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.systems.trikus.duel import DieKind, Entrant
from referee.systems.trikus.rulings import CatastropheMaster, Consent, LossOrder, Rulings
from referee.systems.trikus.state import Character, Item, Status, Tier, Trait

USAGE = (
    "line=2|1  morale=N  empower  opt-out  light=K  escape=k,v  negotiate=v  "
    "on_success=keep|cancel:<name>  attack|defend:<name>  lose=ally|line  use=<item>  accept"
)


@dataclass(frozen=True)
class Policy:
    """One player's declaration; every field has the §3.6 default."""

    line: int | None = None  # dice of the line to strike; None: his largest free line
    morale: int = 0  # Morale dice committed
    empower: bool = False  # +2 dice; losing with it costs a Dark token and a Catastrophe
    opt_out: bool = False  # "Mam złe przeczucia": no roll, the GM decides
    light: int = 0  # K: Light tokens to spend, one whenever he must roll with no dice
    escape: tuple[int, int] | None = None  # (k, v): withdraw with <= k dice vs a value >= v
    negotiate: int | None = None  # propose a reroll of a GM die >= v that takes control
    cancel: str | None = None  # team test: give up a Success to cancel this player's Failure
    defend: str | None = None  # combat: protect this failed player instead of attacking
    lose: str | None = None  # combat under R-18 "owner": "ally" or "line" goes first
    use: tuple[str, ...] = ()  # items used in this test or round
    accept: bool = False  # agree to the GM's standing proposal of a Negotiation


_WORD = re.compile(r"^([a-z_-]+)(?:[=:](.*))?$")
_FLAGS = {"empower": "empower", "opt-out": "opt_out", "optout": "opt_out", "accept": "accept"}


_QUOTED_USE = re.compile(r'\buse\s*=\s*["“”]([^"“”]*)["“”]', re.I)
_SPACE = "\ue000"  # a quoted item name's spaces while the words are split (not whitespace)


def parse_policy(text: str, limits: Limits = DEFAULT_LIMITS) -> Policy:
    """A Policy from whitespace-separated words; TagError naming the bad word and the form.

    >>> parse_policy("morale=x")
    Traceback (most recent call last):
    ...
    referee.base.errors.TagError: morale needs a whole number, not 'x'.
    """
    if len(text) > limits.max_tag_chars:
        raise TagError(f"A declaration is at most {limits.max_tag_chars} characters.", USAGE)
    fields: dict[str, object] = {}
    use: list[str] = []
    # An item whose name has spaces is quoted: use="Lucky charm" (one word from here on).
    text = _QUOTED_USE.sub(lambda m: "use=" + m.group(1).strip().replace(" ", _SPACE), text)
    after_use = False
    seen: set[str] = set()
    for word in text.split():
        match = _WORD.match(word.lower())
        hint = ' (an item with spaces in its name is quoted: use="Lucky charm")'
        not_a_word = f"'{word[:40]}' is not a declaration word{hint if after_use else ''}."
        if match is None:
            raise TagError(not_a_word, USAGE)
        key, value = match.group(1), match.group(2)
        after_use = key == "use"
        option = "attack or defend" if key in ("attack", "defend") else key
        if key != "use" and option in seen:  # never the last one silently winning
            raise TagError(f"Give {option} once.", USAGE)
        seen.add(option)
        raw = word[len(key) + 1 :]  # the value as typed (names keep their case)
        if key in _FLAGS and value is None:
            fields[_FLAGS[key]] = True
        elif key == "attack" and value is None:
            fields["defend"] = None
        elif key == "defend" and raw:
            fields["defend"] = raw
        elif key == "on_success" and value == "keep":
            fields["cancel"] = None
        elif key == "on_success" and (value or "").startswith("cancel:") and len(raw) > 7:
            fields["cancel"] = raw[7:]
        elif key in ("line", "morale", "light", "negotiate"):
            fields[key] = _whole(key, value, limits)
        elif key == "escape":
            parts = (value or "").strip("()").split(",")
            if len(parts) != 2:
                raise TagError("escape needs two numbers: escape=k,v.", USAGE)
            fields["escape"] = (
                _whole("escape", parts[0], limits),
                _whole("escape", parts[1], limits),
            )
        elif key == "lose" and value in ("ally", "line"):
            fields["lose"] = value
        elif key == "use" and raw:
            if len(raw) > limits.max_name_chars:
                raise TagError(f"An item name is at most {limits.max_name_chars} characters.")
            use.append(raw.replace(_SPACE, " "))
        else:
            raise TagError(not_a_word, USAGE)
    return Policy(**fields, use=tuple(use))  # type: ignore[arg-type]


def _whole(key: str, value: str | None, limits: Limits) -> int:
    if value is None or not (value.isascii() and value.isdigit()):
        raise TagError(f"{key} needs a whole number, not {value!r}.", USAGE)
    digits = value.lstrip("0") or "0"  # leading zeros are read: 002 is 2
    number = int(digits) if len(digits) <= 4 else limits.max_dice + 1
    if number > limits.max_dice:
        raise TagError(f"{key} is at most {limits.max_dice}.", USAGE)
    return number


@dataclass(frozen=True)
class Commitment:
    """A checked declaration: the line struck and the dice it adds to the duel."""

    name: str
    policy: Policy
    line: int | None  # index of the line struck, None in a later round or while exhausted
    line_dice: int
    extra: tuple[DieKind, ...]  # one-round dice: Morale, Empowerment, helpful (R-55 "round")
    items: tuple[Item, ...]  # items used

    def entrant(self, pool: tuple[DieKind, ...], gm_negotiate: int | None = None) -> Entrant:
        """The duel's view of him: ``pool`` (line, ally and helpful dice) then the extras.

        ``gm_negotiate`` is the GM's standing Negotiation threshold, which binds him
        only if he accepts.
        """
        p = self.policy
        gm = gm_negotiate if p.accept else None
        return Entrant(self.name, pool + self.extra, p.light, p.escape, p.negotiate, gm)


def _dice(count: int, kind: str) -> str:
    return f"{count} {kind} {'die' if count == 1 else 'dice'}"


def has(character: Character) -> str:
    """What a character can pay, for refusals."""
    free = [character.lines[i].dice for i in character.free_lines]
    lines = ", ".join(f"{d}-die" for d in free) if free else "none (exhausted)"
    return (
        f"{character.name} has free lines: {lines}; {_dice(character.morale, 'Morale')}; "
        f"{character.light} Light token{'' if character.light == 1 else 's'}"
    )


def commit(
    policy: Policy,
    character: Character,
    rulings: Rulings,
    others: tuple[str, ...] = (),
    fight: bool = False,
    strikes: bool = True,
) -> Commitment:
    """Check a declaration against the character; RuleViolation listing every problem.

    ``others`` are the other participants' names; ``fight`` allows attack/defend;
    ``strikes`` is False in a fight's later rounds, whose pool carries over.
    """
    problems: list[str] = []
    name = character.name
    if character.status is not Status.ACTIVE:
        raise RuleViolation(f"{name} is {character.status.value} and cannot test.")
    if policy.opt_out:
        if policy != Policy(opt_out=True):
            raise RuleViolation(f"{name} opts out: an opt-out declares nothing else.")
        return Commitment(name, policy, None, 0, (), ())
    line: int | None = None
    line_dice = 0
    if strikes:
        free = character.free_lines
        if policy.line is not None:
            if policy.line not in character.tier.lines:
                sizes = " or ".join(str(d) for d in sorted(set(character.tier.lines)))
                problems.append(f"{with_article(character.tier.value)}'s lines have {sizes} dice")
            else:
                matching = [i for i in free if character.lines[i].dice == policy.line]
                if not matching:
                    problems.append(f"{name} has no free {policy.line}-die line")
                else:
                    line = matching[0]
        elif free:
            line = max(free, key=lambda i: (character.lines[i].dice, -i))
        if line is not None:
            line_dice = character.lines[line].dice
    elif policy.line is not None:
        problems.append("a fight's pool carries over between rounds: no new line is struck")
    if policy.morale > character.morale:
        problems.append(f"{name} has {_dice(character.morale, 'Morale')}, not {policy.morale}")
    if policy.light > character.light:
        problems.append(f"light={policy.light} but {name} has {character.light} Light tokens")
    if policy.escape is not None and not (policy.escape[0] >= 1 and 1 <= policy.escape[1] <= 10):
        problems.append("escape=k,v needs k of at least 1 and v from 1 to 10")
    if policy.negotiate is not None:
        if not 1 <= policy.negotiate <= 10:
            problems.append("negotiate=v needs v from 1 to 10")
        if rulings.negotiations_per_test == 0 or rulings.negotiation_consent is Consent.NEVER:
            problems.append("this campaign's GM never agrees to a Negotiation")
    lowered = {o.lower(): o for o in others}
    if policy.cancel is not None:
        if fight:
            problems.append("in a fight, protect a player with defend:<name>, not cancel")
        elif policy.cancel.lower() not in lowered:
            problems.append(f"{policy.cancel} is not in this test")
    if policy.defend is not None:
        if not fight:
            problems.append("attack and defend are for fights")
        elif policy.defend.lower() not in lowered:
            problems.append(f"{policy.defend} is not in this fight")
    if policy.lose is not None and rulings.loss_order is not LossOrder.OWNER:
        problems.append("this campaign loses allies' dice first (loss_order); lose= is not used")
    items: list[Item] = []
    for wanted in policy.use:
        item = character.item(wanted)
        if item is None:
            owned = ", ".join(i.name for i in character.equipment) or "none"
            problems.append(f"{name} has no item {wanted} (items: {owned})")
        elif item.spent:
            problems.append(f"{item.name} is spent until the GM renews it")
        else:
            items.append(item)
    extra = (DieKind.MORALE,) * policy.morale + (DieKind.EMPOWER,) * (2 * policy.empower)
    if fight and _helpful_per_round(rulings):
        extra += (DieKind.HELPFUL,) * sum(i.count(Trait.HELPFUL) for i in items)
    if (
        strikes
        and line is None
        and not (policy.morale or policy.empower or policy.light)
        and not problems
    ):
        problems.append(
            f"{name} is exhausted: test with Morale, Light (light=1) or Empowerment, or opt out"
        )
    if (
        character.tier is Tier.MASTER
        and character.has_lost_line
        and rulings.catastrophe_master is CatastropheMaster.NONE
        and strikes
    ):
        problems.append(f"{name} lost his line to a Catastrophe and cannot test until it returns")
    if problems:
        raise RuleViolation(
            f"{name} cannot declare that: " + "; ".join(problems) + f". ({has(character)}.)"
        )
    return Commitment(name, policy, line, line_dice, extra, tuple(items))


def _helpful_per_round(rulings: Rulings) -> bool:
    return rulings.helpful_die.value == "round"
