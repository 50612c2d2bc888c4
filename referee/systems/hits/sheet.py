"""A ``hits`` character: the four attributes, Level, XP and the counters play changes.

Player characters and NPCs share one :class:`Character`; only a PC (``player``) gains and
spends Influence (§5: "Jogadores vão receber"). Everything is JSON-ready through
:func:`character_to_dict` / :func:`character_from_dict`, which carry a format version.

>>> kara = new_character("Kara", primary=Attribute.BODY, secondary=Attribute.MIND)
>>> (kara.body, kara.talent, kara.spirit, kara.mind, kara.level, kara.health)
(4, 2, 2, 3, 1, 10)
>>> character_from_dict(character_to_dict(kara)) == kara
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from referee.base.english import with_article
from referee.base.errors import RuleViolation
from referee.base.limits import DEFAULT_LIMITS

from .records import FORMAT_VERSION, Reader, listing
from .rulings import DEFAULT_RULINGS, Rulings

MAX_LEVEL = 6
KNOCKOUT_AT = 3  # Stress (unstructured) or Wounds (combat) that knock a character out
MAX_RANK = 99  # a trait's Rank
MAX_COUNTER = 10_000  # the largest counter a sheet may hold; a typo, not a game, goes past it
CREATION_VALUES = (4, 3, 2, 2)  # primary, secondary, then the rest


class Attribute(str, Enum):
    """The four attributes, named as in RULES.md (Corpo, Talento, Espírito, Mente)."""

    BODY = "body"
    TALENT = "talent"
    SPIRIT = "spirit"
    MIND = "mind"


class Wager(str, Enum):
    """What a character may put at stake when raising the stakes."""

    SKILL = "skill"
    ABILITY = "ability"
    BENEFIT = "benefit"
    LIFE = "life"  # lost, it is death


class Standing(str, Enum):
    """Where a character stands in the current scene."""

    ACTIVE = "active"
    KNOCKOUT_PENDING = "knockout_pending"  # at the threshold: knocked out or raise the stakes
    KNOCKED_OUT = "knocked_out"  # out of the current scene
    DEAD = "dead"  # a wagered life was lost


@dataclass(frozen=True)
class Stake:
    """One wager made by raising the stakes: its kind and, but for a life, which one."""

    wager: Wager
    what: str = ""  # the Skill, Ability or Benefit named; empty for a life

    def __post_init__(self) -> None:
        object.__setattr__(self, "wager", Wager(self.wager))


class TraitKind(str, Enum):
    """The named parts of a sheet beside the attributes; each has a Rank."""

    SKILL = "skill"  # Perícia: a source of dice, raised with Character Ranks
    ABILITY = "ability"  # Habilidade: a source of dice, raised with Character Ranks
    BENEFIT = "benefit"  # Benefício of a Perspective: a source of dice
    TECHNIQUE = "technique"  # Técnica: raised with Tiers (Patamares)
    BOND = "bond"  # Laço: its Rank changes only in an Intermission


# The traits a player may name as a source of dice (RULES.md §5: a duel's pool sums "every
# Attribute, Skill, Ability and Benefit he names"; a roll adds the same sources).
DICE_TRAITS = (TraitKind.SKILL, TraitKind.ABILITY, TraitKind.BENEFIT)

Traits = tuple[tuple[str, int], ...]  # (name, Rank) in the order the sheet lists them


@dataclass(frozen=True)
class SavedGains:
    """Level-up gains kept for Awakening ("Despertar")."""

    tiers: int = 0  # Technique Tiers ("Patamares")
    ranks: int = 0  # Character Ranks for Skills or the Ability
    benefits: int = 0  # Benefits of any Perspective


@dataclass(frozen=True)
class Character:
    """One character's sheet and state."""

    name: str
    body: int
    talent: int
    spirit: int
    mind: int
    level: int = 1
    xp: int = 0
    health: int = 0  # current Health; its maximum is :attr:`max_health`
    stress: int = 0
    wounds: int = 0
    influence: int = 0
    player: bool = True  # a player character; NPCs neither gain nor spend Influence
    standing: Standing = Standing.ACTIVE
    stakes: tuple[Stake, ...] = ()  # raised this scene and not yet lost
    lost_wagers: tuple[Stake, ...] = ()  # lost for ever at a second knockout
    legend: bool = False
    saved: SavedGains = field(default_factory=SavedGains)
    unchosen_levels: int = 0  # Levels gained whose gains the player has not chosen yet
    advantage: int = 0  # standing Advantage the GM set; every roll of the character adds it
    disadvantage: int = 0  # standing Disadvantage the GM set
    skills: Traits = ()
    abilities: Traits = ()
    benefits: Traits = ()
    techniques: Traits = ()
    bonds: Traits = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "standing", Standing(self.standing))

    def traits(self, kind: TraitKind) -> Traits:
        """The named traits of one kind, as (name, Rank) pairs."""
        return tuple(getattr(self, TRAIT_FIELDS[TraitKind(kind)]))

    @property
    def max_health(self) -> int:
        """Health by the formula: 2 × (Body + Level)."""
        return 2 * (self.body + self.level)

    def attribute(self, attribute: Attribute) -> int:
        """The value of one attribute."""
        return int(getattr(self, Attribute(attribute).value))

    @property
    def attributes(self) -> dict[Attribute, int]:
        return {a: self.attribute(a) for a in Attribute}


TRAIT_FIELDS = {
    TraitKind.SKILL: "skills",
    TraitKind.ABILITY: "abilities",
    TraitKind.BENEFIT: "benefits",
    TraitKind.TECHNIQUE: "techniques",
    TraitKind.BOND: "bonds",
}


def with_rank(character: Character, kind: TraitKind, name: str, by: int) -> Character:
    """The character with ``by`` more Rank in the trait ``name`` (a new one starts at 0).

    >>> kara = new_character("Kara", Attribute.BODY, Attribute.MIND)
    >>> with_rank(with_rank(kara, "skill", "Swords", 1), "skill", "swords", 1).skills
    (('Swords', 2),)
    """
    field_name = TRAIT_FIELDS[TraitKind(kind)]
    traits = list(getattr(character, field_name))
    for index, (known, rank) in enumerate(traits):
        if known.casefold() == name.casefold():
            traits[index] = (known, rank + by)
            break
    else:
        traits.append((name, by))
    edit: dict[str, Any] = {field_name: tuple(traits)}
    return replace(character, **edit)


def without_trait(character: Character, kind: TraitKind, name: str) -> Character:
    """The character without the trait ``name`` (a wager lost, a Rank set to 0).

    >>> kara = new_character("Kara", Attribute.BODY, Attribute.MIND)
    >>> without_trait(with_rank(kara, "skill", "Swords", 2), TraitKind.SKILL, "swords").skills
    ()
    """
    field_name = TRAIT_FIELDS[TraitKind(kind)]
    kept = tuple(t for t in getattr(character, field_name) if t[0].casefold() != name.casefold())
    edit: dict[str, Any] = {field_name: kept}
    return replace(character, **edit)


def new_character(
    name: str,
    primary: Attribute,
    secondary: Attribute,
    *,
    player: bool = True,
    level: int | None = None,
    rulings: Rulings = DEFAULT_RULINGS,
) -> Character:
    """A fresh character: primary 4, secondary 3, the rest 2, full Health.

    Raises RuleViolation when primary and secondary are the same attribute.
    """
    primary, secondary = Attribute(primary), Attribute(secondary)
    if primary == secondary:
        raise RuleViolation(
            f"{primary.value} cannot be both primary and secondary; pick two attributes."
        )
    values = {a: 2 for a in Attribute}
    values[primary] = 4
    values[secondary] = 3
    return create_character(name, values, player=player, level=level, rulings=rulings)


def create_character(
    name: str,
    attributes: Mapping[Attribute, int],
    *,
    player: bool = True,
    level: int | None = None,
    rulings: Rulings = DEFAULT_RULINGS,
) -> Character:
    """A character from an application's attributes, at full Health; every problem at once.

    >>> create_character("", {Attribute.BODY: 4, Attribute.MIND: 4})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    referee.base.errors.RuleViolation: The application has 3 problems:
    - talent is missing
    - spirit is missing
    - the character needs a name
    """
    problems = creation_problems(attributes)
    values: dict[str, Any] = {a.value: attributes.get(a, 0) for a in Attribute}
    start = rulings.start_level if level is None else level
    character = Character(name=name, level=start, player=player, **values)
    character = replace(character, health=character.max_health)
    problems += character_problems(character)
    if problems:
        raise RuleViolation(listing("The application", problems))
    return character


def creation_problems(attributes: Mapping[Attribute, int]) -> list[str]:
    """Every way a new character's attributes break "primary 4, secondary 3, the rest 2".

    >>> creation_problems({Attribute.BODY: 4, Attribute.TALENT: 4,
    ...                    Attribute.SPIRIT: 2, Attribute.MIND: 2})
    ['the attributes must be one 4 (primary), one 3 (secondary) and two 2s, not 4, 4, 2, 2']
    """
    problems = [f"{a.value} is missing" for a in Attribute if a not in attributes]
    values = sorted((attributes.get(a, 0) for a in Attribute), reverse=True)
    if not problems and tuple(values) != CREATION_VALUES:
        shown = ", ".join(str(attributes[a]) for a in Attribute)
        problems.append(
            f"the attributes must be one 4 (primary), one 3 (secondary) and two 2s, not {shown}"
        )
    return problems


def grown_problems(attributes: Mapping[Attribute, int], levels: int) -> list[str]:
    """Every way attributes exceed the creation array plus ``levels`` level-ups (each +1 to
    two different attributes, and +1 to the highest instead of two Tiers: 3 at most).

    >>> grown_problems({Attribute.BODY: 6, Attribute.TALENT: 6,
    ...                 Attribute.SPIRIT: 6, Attribute.MIND: 6}, 2)
    ['the attributes add 13 to the creation array (4, 3, 2, 2); 2 Levels add at most 6']
    >>> grown_problems({Attribute.BODY: 5, Attribute.TALENT: 4,
    ...                 Attribute.SPIRIT: 2, Attribute.MIND: 3}, 2)
    []
    """
    problems = [f"{a.value} is missing" for a in Attribute if a not in attributes]
    if problems:
        return problems
    values = sorted((attributes[a] for a in Attribute), reverse=True)
    added = sum(values) - sum(CREATION_VALUES)
    if added > 3 * levels:
        problems.append(
            f"the attributes add {added} to the creation array (4, 3, 2, 2); {levels} "
            f"Level{'s' if levels != 1 else ''} add at most {3 * levels}"
        )
    below = [v for v, floor in zip(values, CREATION_VALUES, strict=True) if v < floor]
    if below:
        problems.append("the attributes are below the creation array (4, 3, 2, 2)")
    return problems


def character_problems(character: Character) -> list[str]:
    """Every way a character's sheet is impossible, written for the GM; empty if none."""
    c = character
    problems: list[str] = []
    if not c.name.strip():
        problems.append("the character needs a name")
    elif len(c.name) > DEFAULT_LIMITS.max_name_chars:
        problems.append(f"a name has at most {DEFAULT_LIMITS.max_name_chars} characters")
    for a in Attribute:
        if not 0 <= c.attribute(a) <= MAX_COUNTER:
            problems.append(f"{a.value} must be from 0 to {MAX_COUNTER}, not {c.attribute(a)}")
    if not 1 <= c.level <= MAX_LEVEL:
        problems.append(f"Level must be from 1 to {MAX_LEVEL}, not {c.level}")
    for counter in ("xp", "health", "stress", "wounds", "influence", "unchosen_levels"):
        value = getattr(c, counter)
        if not 0 <= value <= MAX_COUNTER:
            problems.append(f"{counter} must be from 0 to {MAX_COUNTER}, not {value}")
    for kind in ("tiers", "ranks", "benefits"):
        value = getattr(c.saved, kind)
        if not 0 <= value <= MAX_COUNTER:
            problems.append(f"saved {kind} must be from 0 to {MAX_COUNTER}, not {value}")
    if not c.player and c.influence:
        problems.append("only player characters hold Influence")
    for counter in ("advantage", "disadvantage"):
        value = getattr(c, counter)
        if not 0 <= value <= DEFAULT_LIMITS.max_modifier:
            problems.append(
                f"{counter} must be from 0 to {DEFAULT_LIMITS.max_modifier}, not {value}"
            )
    for kind in TraitKind:
        seen: set[str] = set()
        for name, rank in c.traits(kind):
            if not name.strip() or len(name) > DEFAULT_LIMITS.max_name_chars:
                problems.append(
                    f"{with_article(kind.value)}'s name has 1 to "
                    f"{DEFAULT_LIMITS.max_name_chars} characters"
                )
            elif name.casefold() in seen:
                problems.append(f"the {kind.value} {name} is listed twice")
            seen.add(name.casefold())
            if not 0 <= rank <= MAX_RANK:
                problems.append(f"the {kind.value} {name} has Rank 0 to {MAX_RANK}, not {rank}")
    for stake in (*c.stakes, *c.lost_wagers):
        if stake.wager != Wager.LIFE and not stake.what.strip():
            problems.append(f"a wagered {stake.wager.value} needs its name")
    return problems


def check_character(character: Character) -> Character:
    """The character itself, or RuleViolation listing every problem at once."""
    problems = character_problems(character)
    if problems:
        raise RuleViolation(listing(f"{character.name or 'The character'}'s sheet", problems))
    return character


def _stake_to_dict(stake: Stake) -> dict[str, str]:
    return {"wager": stake.wager.value, "what": stake.what}


def character_to_dict(character: Character) -> dict[str, Any]:
    """The character as plain JSON, with the format version."""
    c = character
    return {
        "version": FORMAT_VERSION,
        "name": c.name,
        "attributes": {a.value: c.attribute(a) for a in Attribute},
        "level": c.level,
        "xp": c.xp,
        "health": c.health,
        "stress": c.stress,
        "wounds": c.wounds,
        "influence": c.influence,
        "player": c.player,
        "standing": c.standing.value,
        "stakes": [_stake_to_dict(s) for s in c.stakes],
        "lost_wagers": [_stake_to_dict(s) for s in c.lost_wagers],
        "legend": c.legend,
        "saved": {"tiers": c.saved.tiers, "ranks": c.saved.ranks, "benefits": c.saved.benefits},
        "unchosen_levels": c.unchosen_levels,
        "advantage": c.advantage,
        "disadvantage": c.disadvantage,
        **{TRAIT_FIELDS[kind]: [[n, r] for n, r in c.traits(kind)] for kind in TraitKind},
    }


def _traits(reader: Reader, key: str) -> Traits:
    """A stored list of [name, Rank] pairs; absent (an older record) is none."""
    if key not in reader.data:
        return ()
    out: list[tuple[str, int]] = []
    for index, raw in enumerate(reader.get(key, list, [])):
        if (
            isinstance(raw, (list, tuple))
            and len(raw) == 2
            and isinstance(raw[0], str)
            and isinstance(raw[1], int)
            and not isinstance(raw[1], bool)
        ):
            out.append((raw[0], raw[1]))
        else:
            reader.problems.append(f"{key}[{index}] is not a [name, Rank] pair")
    return tuple(out)


def _optional_int(reader: Reader, key: str) -> int:
    """A counter added after the first records; absent is 0."""
    return int(reader.get(key, int, 0)) if key in reader.data else 0


def _stakes(reader: Reader, key: str) -> tuple[Stake, ...]:
    out: list[Stake] = []
    for index, raw in enumerate(reader.get(key, list, [])):
        inner = Reader(raw, f"{key}[{index}]")
        wager = inner.member("wager", Wager, Wager.LIFE)
        out.append(Stake(wager, inner.get("what", str, "")))
        reader.problems.extend(inner.problems)
    return tuple(out)


def character_from_dict(data: object) -> Character:
    """A character from :func:`character_to_dict`'s JSON; RuleViolation lists every problem."""
    r = Reader(data, "the sheet")
    r.check_version()
    attrs = Reader(r.get("attributes", Mapping, {}), "attributes")
    values: dict[str, Any] = {a.value: attrs.get(a.value, int, 0) for a in Attribute}
    traits: dict[str, Any] = {f: _traits(r, f) for f in TRAIT_FIELDS.values()}
    saved = Reader(r.get("saved", Mapping, {}), "saved")
    character = Character(
        name=r.get("name", str, ""),
        level=r.get("level", int, 1),
        xp=r.get("xp", int, 0),
        health=r.get("health", int, 0),
        stress=r.get("stress", int, 0),
        wounds=r.get("wounds", int, 0),
        influence=r.get("influence", int, 0),
        player=r.get("player", bool, True),
        standing=r.member("standing", Standing, Standing.ACTIVE),
        stakes=_stakes(r, "stakes"),
        lost_wagers=_stakes(r, "lost_wagers"),
        legend=r.get("legend", bool, False),
        saved=SavedGains(
            saved.get("tiers", int, 0), saved.get("ranks", int, 0), saved.get("benefits", int, 0)
        ),
        unchosen_levels=r.get("unchosen_levels", int, 0),
        advantage=_optional_int(r, "advantage"),
        disadvantage=_optional_int(r, "disadvantage"),
        **traits,
        **values,
    )
    problems = r.problems + attrs.problems + saved.problems
    if not problems:
        problems = character_problems(character)
    if problems:
        raise RuleViolation(listing("The stored sheet", problems))
    return character


EDITABLE = (
    "level",
    "xp",
    "health",
    "stress",
    "wounds",
    "influence",
    "body",
    "talent",
    "spirit",
    "mind",
    "unchosen_levels",
    "advantage",
    "disadvantage",
)


def edit_counter(character: Character, counter: str, value: int) -> Character:
    """The GM sets one counter; RuleViolation names the counters or the sheet's problem.

    >>> kara = new_character("Kara", Attribute.BODY, Attribute.MIND)
    >>> edit_counter(kara, "Stress", 2).stress
    2
    """
    name = counter.strip().casefold()
    if name not in EDITABLE:
        raise RuleViolation(
            f"{counter!r} is not a counter; the counters are {', '.join(EDITABLE)}."
        )
    edit: dict[str, Any] = {name: value}
    return check_character(replace(character, **edit))
