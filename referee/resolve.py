"""Requests to verdict contents: find the characters, call the rules, note what changed.

Each request type has one handler in :data:`HANDLERS`. A handler reads characters
from the :class:`Roster`, calls the pure functions of the campaign's dice system with
the tag's dice, writes changed characters back to the roster and returns a
:class:`Resolution`. Anything a player got wrong surfaces as a ``UserError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, TypeVar

from . import notation
from .campaign import character_entry, character_key
from .dice import DiceSource
from .errors import Forbidden, RuleViolation, UnknownName, UserError
from .forum import Post
from .limits import DEFAULT_LIMITS, Limits, read_int
from .names import NameIndex
from .sheets import SHEET_FORM, parse_sheet, sheet_block
from .store import Table
from .systems import stepped
from .systems.stepped import odds as stepped_odds
from .systems.stepped import vehicles
from .tags import (
    AdjustWounds,
    Apply,
    Attack,
    Cast,
    CreateNpc,
    Decide,
    EndEncounter,
    RollDice,
    RollInitiative,
    RollStat,
    VehicleStat,
)
from .verdicts import Change


@dataclass(frozen=True)
class Resolution:
    """What a handler produced: the template kind, the rules' result and its effects."""

    kind: str
    result: Any
    chance: Fraction | None = None
    changes: tuple[Change, ...] = ()


class Roster:
    """The campaign's characters for one run: parsed once, written back on change."""

    def __init__(self, table: Table, vehicle_table: Table | None = None) -> None:
        self._table = table
        self._records: dict[str, dict[str, Any]] = dict(table.items())
        self._parsed: dict[str, stepped.Character] = {}
        # Vehicles and ships: the store's "vehicles" table, records shaped like characters'.
        self._vehicle_table = vehicle_table
        self._vehicle_records: dict[str, dict[str, Any]] = (
            dict(vehicle_table.items()) if vehicle_table is not None else {}
        )
        self._vehicles: dict[str, vehicles.Vehicle] = {}
        self._names = frozenset(self._records) | frozenset(self._vehicle_records)
        # First words and misspellings found at a cost that does not grow with the roster.
        self._index = NameIndex(self._records)
        self._vehicle_index = NameIndex(self._vehicle_records)

    @property
    def known_names(self) -> frozenset[str]:
        """Every character's name, casefolded (for splitting names out of tags)."""
        return self._names

    def __contains__(self, name: str) -> bool:
        return character_key(name) in self._records

    def add(self, character: stepped.Character, owner: str | None, approved: bool) -> None:
        """Put a new (or re-approved) character on the roster."""
        key = character_key(character.name)
        record = character_entry(character, owner, approved)
        self._records[key] = record
        self._parsed[key] = character
        self._names = self._names | {key}
        self._index.add(key)
        self._table.put(key, record)

    def record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the character ``name`` refers to."""
        return self._records[self._key(name)]

    def find(self, name: str) -> stepped.Character:
        """The character a player means by ``name``: exact, else the only one it starts."""
        key = self._key(name)
        if key not in self._parsed:
            self._parsed[key] = stepped.character_from_record(self._records[key]["sheet"])
        return self._parsed[key]

    def _key(self, name: str) -> str:
        key = character_key(name)
        if key in self._records:
            return key
        starting = self._index.starting(key)
        if len(starting) == 1:
            return starting[0]
        if starting:
            shown = ", ".join(self._records[k]["name"] for k in starting[:5])
            raise UnknownName(f"'{name}' could mean {shown}; write the full name.")
        close = self._index.suggest(key)
        hint = (
            f" Did you mean {' or '.join(self._records[k]['name'] for k in close)}?"
            if close
            else ""
        )
        raise UnknownName(
            f"No character is named '{name}'.{hint} A GM adds characters to the campaign; "
            f"`referee characters` lists them."
        )

    def is_vehicle(self, name: str) -> bool:
        """Whether ``name`` means a vehicle or ship (exactly, or the only one it starts)."""
        key = character_key(name)
        if key in self._vehicle_records:
            return True
        if key in self._records:
            return False
        return len(self._vehicle_index.starting(key)) == 1 and not self._index.starting(key)

    def find_vehicle(self, name: str) -> vehicles.Vehicle:
        """The vehicle or ship a player means by ``name``."""
        key = self._vehicle_index.resolve(character_key(name))
        if key is None:
            raise UnknownName(f"No vehicle or ship is named '{name}'.")
        if key not in self._vehicles:
            sheet = self._vehicle_records[key]["sheet"]
            self._vehicles[key] = vehicles.vehicle_from_record(sheet)
        return self._vehicles[key]

    def vehicle_record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the vehicle ``name`` means."""
        return self._vehicle_records[character_key(self.find_vehicle(name).name)]

    def combatant(self, name: str) -> stepped.Character | vehicles.Crewed:
        """A character, or a vehicle or ship with its pilot."""
        if not self.is_vehicle(name):
            return self.find(name)
        vehicle = self.find_vehicle(name)
        return vehicles.Crewed(vehicle, self.find(vehicle.pilot) if vehicle.pilot else None)

    def update_vehicle(self, vehicle: vehicles.Vehicle) -> None:
        """Keep a changed vehicle (its wounds), its owner and approval untouched."""
        key = character_key(vehicle.name)
        sheet = vehicles.vehicle_to_record(vehicle)
        record = {**self._vehicle_records[key], "sheet": sheet}
        self._vehicle_records[key] = record
        self._vehicles[key] = vehicle
        if self._vehicle_table is not None:
            self._vehicle_table.put(key, record)

    def update(self, character: stepped.Character) -> None:
        """Keep a changed character, its owner and approval untouched."""
        key = character_key(character.name)
        record = {**self._records[key], "sheet": stepped.character_to_record(character)}
        self._records[key] = record
        self._parsed[key] = character
        self._table.put(key, record)


@dataclass
class Context:
    """What a handler may read and change while resolving one post."""

    roster: Roster
    encounters: Table
    rules: stepped.Rules
    post: Post
    limits: Limits = DEFAULT_LIMITS
    extra: dict[str, Any] = field(default_factory=dict)
    gms: frozenset[str] = frozenset()  # casefolded usernames: moderators and config's gms
    applications: Table | None = None
    npc_templates: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def by_gm(self) -> bool:
        """Whether the post's author is one of the campaign's GMs."""
        return self.post.author.casefold() in self.gms


def require_gm(context: Context, doing: str) -> None:
    """Refuse unless the author is a GM."""
    if not context.by_gm:
        raise Forbidden(
            f"Only a GM may {doing}. u/{context.post.author} is not one of this campaign's GMs "
            "(the subreddit's moderators and the GMs listed in config.toml)."
        )


def _pending_application(context: Context, name: str) -> dict[str, Any] | None:
    """The application ``name`` means (exactly, or the only one it starts), if any."""
    if context.applications is None:
        return None
    key = character_key(name)
    found = context.applications.get(key)
    if found is None:
        starting = [k for k in context.applications if k.startswith(key + " ")]
        found = context.applications.get(starting[0]) if len(starting) == 1 else None
    return found


def require_control(context: Context, name: str, doing: str) -> stepped.Character:
    """The character ``name`` refers to, if the author may act for it; else Forbidden."""
    try:
        character = context.roster.find(name)
    except UnknownName:
        pending = _pending_application(context, name)
        if pending:
            raise Forbidden(
                f"{pending['name']} is not approved yet and may not {doing}. A GM approves an "
                "application by replying [[approve]] to it."
            ) from None
        raise
    record = context.roster.record(character.name)
    if not record.get("approved"):
        raise Forbidden(
            f"{character.name} is not approved yet and may not {doing}. A GM approves an "
            "application by replying [[approve]] to it."
        )
    if context.by_gm:
        return character
    owner = record.get("owner")
    if not owner:
        raise Forbidden(f"{character.name} is a GM's character; only a GM may {doing} for it.")
    if str(owner).casefold() != context.post.author.casefold():
        raise Forbidden(
            f"{character.name} belongs to u/{owner}; only they or a GM may {doing} for it."
        )
    return character


Handler = Callable[[Any, Context, DiceSource], Resolution]


def trait_chance(roll: stepped.TraitRoll, rules: stepped.Rules) -> Fraction:
    """The exact chance of a roll this high or higher, with the same dice and modifiers."""
    return stepped_odds.chance_at_least(
        tuple(d.sides for d in roll.dice),
        roll.wild is not None,
        sum(m.value for m in roll.modifiers),
        rules.rulings,
        roll.total,
    )


def change_of(before: stepped.Character, after: stepped.Character, rules: stepped.Rules) -> Change:
    """How a character's wounds and state moved."""
    return Change(
        name=after.name,
        wounds_before=before.wounds,
        wounds_after=after.wounds,
        state_before=stepped.state_of(before).value,
        state_after=stepped.state_of(after).value,
        penalty_after=-stepped.wound_penalty(after, rules),
    )


def _ready(character: stepped.Character, doing: str) -> None:
    state = stepped.state_of(character)
    if state in (stepped.State.DEAD, stepped.State.INCAPACITATED):
        raise RuleViolation(f"{character.name} is {state.value} and cannot {doing}.")


def resolve_dice(request: RollDice, context: Context, dice: DiceSource) -> Resolution:
    rolled = notation.roll_expression(request.expression, dice)
    return Resolution("dice", rolled, notation.chance_at_least(request.expression, rolled.total))


def resolve_stat(request: RollStat, context: Context, dice: DiceSource) -> Resolution:
    character = require_control(context, request.actor, "roll")
    _ready(character, "roll")
    stats = [stepped.parse_stat(word) for word in request.stats]
    extra = [stepped.Modifier("situational", request.modifier)] if request.modifier else []
    roll = stepped.roll_trait(character, stats, context.rules, dice, extra)
    return Resolution("stat", roll, trait_chance(roll, context.rules))


def resolve_initiative(request: RollInitiative, context: Context, dice: DiceSource) -> Resolution:
    if any(context.roster.is_vehicle(name) for name in request.names):
        return resolve_vehicle_initiative(request, context, dice)
    characters = [require_control(context, name, "roll initiative") for name in request.names]
    result = stepped.initiative(_each_once(characters), context.rules, dice)
    _keep_order(context, result.groups)
    return Resolution("initiative", result)


Named = TypeVar("Named", bound="stepped.Character | vehicles.Crewed")


def _each_once(combatants: list[Named]) -> list[Named]:
    """The combatants of an initiative, refusing one named twice."""
    seen: set[str] = set()
    for combatant in combatants:
        if combatant.name in seen:
            raise RuleViolation(f"{combatant.name} is listed twice; name each combatant once.")
        seen.add(combatant.name)
    return combatants


def _keep_order(context: Context, groups: Iterable[Iterable[str]]) -> None:
    """Store the thread's initiative order: the encounter state."""
    context.encounters.put(
        context.post.thread,
        {
            "thread": context.post.thread,
            "order": [list(group) for group in groups],
            "set_by": context.post.fullname,
        },
    )


def _weapon(character: stepped.Character, name: str | None) -> stepped.Weapon | None:
    if name is None:
        return None
    wanted = " ".join(name.split()).casefold()
    if wanted in ("unarmed", "fists", "bare hands", "hands"):
        return stepped.UNARMED
    for weapon in character.weapons:
        if weapon.name.casefold() == wanted:
            return weapon
    starting = [w for w in character.weapons if w.name.casefold().startswith(wanted)]
    if len(starting) == 1:
        return starting[0]
    owned = ", ".join(w.name for w in character.weapons) or "none"
    raise UnknownName(f"{character.name} has no weapon called '{name}'. Their weapons: {owned}.")


def resolve_attack(request: Attack, context: Context, dice: DiceSource) -> Resolution:
    if context.roster.is_vehicle(request.attacker) or context.roster.is_vehicle(request.target):
        return resolve_vehicle_attack(request, context, dice)
    attacker = require_control(context, request.attacker, "attack")
    target = context.roster.find(request.target)
    kind = stepped.AttackKind.RANGED if request.verb == "shoot" else stepped.AttackKind.MELEE
    result = stepped.attack(
        kind,
        attacker,
        target,
        context.rules,
        dice,
        weapon=_weapon(attacker, request.weapon),
        location=stepped.Location(request.location.split()[-1]),  # "left arm" is an arm
        aware=not request.unaware,
        subdue=request.subdue,
        modifier=request.modifier,
        environment=request.environment,
    )
    changes: tuple[Change, ...] = ()
    if result.target_after != result.target_before:
        context.roster.update(result.target_after)
        changes = (change_of(result.target_before, result.target_after, context.rules),)
    return Resolution("attack", result, result.hit_chance, changes)


def resolve_cast(request: Cast, context: Context, dice: DiceSource) -> Resolution:
    caster = require_control(context, request.actor, "cast")
    _ready(caster, "cast")
    result = stepped.cast(caster, request.technique, context.rules, dice, modifier=request.modifier)
    return Resolution("cast", result, result.chance)


# ----------------------------------------------------------- applications and GM tools


@dataclass(frozen=True)
class ApplicationResult:
    """A submitted sheet: the character as read, what is wrong with it, where it stands."""

    character: stepped.Character
    owner: str
    version: int  # 1 for the first submission, 2 for the next...
    problems: tuple[str, ...]
    status: str  # "awaiting approval" or "needs changes"


@dataclass(frozen=True)
class DecisionResult:
    """A GM's decision on an application."""

    decision: str  # approve, reject or revise
    name: str
    owner: str
    note: str
    amendments: tuple[str, ...]  # as applied, in words
    character: stepped.Character | None  # the approved character, with amendments


@dataclass(frozen=True)
class NpcResult:
    """A character a GM put into play."""

    character: stepped.Character
    template: str | None


@dataclass(frozen=True)
class EncounterResult:
    """The end of a thread's encounter."""

    had_order: bool


STATUS_PENDING, STATUS_NEEDS_CHANGES = "awaiting approval", "needs changes"


def _applications(context: Context) -> Table:
    if context.applications is None:
        raise RuleViolation("This campaign does not take applications here.")
    return context.applications


def resolve_apply(request: Apply, context: Context, dice: DiceSource) -> Resolution:
    text = sheet_block(context.post.body)
    if text is None:
        raise UserError("Put your character sheet in a code block under [[apply]]. " + SHEET_FORM)
    record = parse_sheet(text, limits=context.limits)
    record.setdefault("kind", "pc")
    character = stepped.character_from_record(record)
    key = character_key(character.name)
    author = context.post.author
    if character.name in context.roster:
        owner = context.roster.record(character.name).get("owner")
        if not owner or str(owner).casefold() != author.casefold():
            raise Forbidden(f"{character.name} is already in play; choose another name.")
    applications = _applications(context)
    application = applications.get(key) or {"name": character.name, "owner": author, "versions": []}
    if str(application["owner"]).casefold() != author.casefold():
        raise Forbidden(
            f"u/{application['owner']} has already applied with {character.name}; "
            "choose another name."
        )
    problems = tuple(stepped.validate_character(character, context.rules))
    status = STATUS_NEEDS_CHANGES if problems else STATUS_PENDING
    application["versions"].append(
        {
            "post": context.post.fullname,
            "sheet": stepped.character_to_record(character),
            "problems": list(problems),
            "submitted": context.post.created,
        }
    )
    application.update(status=status, post=context.post.fullname, note="")
    applications.put(key, application)
    version = len(application["versions"])
    return Resolution(
        "application", ApplicationResult(character, author, version, problems, status)
    )


def _application_for(context: Context, name: str | None) -> tuple[str, dict[str, Any]]:
    applications = _applications(context)
    if name is not None:
        key = character_key(name)
        found = applications.get(key)
        if found is None:
            raise UnknownName(f"No application is named '{name}'.")
        return key, found
    parent = context.post.parent
    for key, application in applications.items():
        if any(version["post"] == parent for version in application["versions"]):
            return key, application
    raise UserError("Reply to the application you decide on, or name it: [[approve Orla Vex]].")


def _amend(character: stepped.Character, amendment: str) -> tuple[stepped.Character, str]:
    """Apply one GM amendment; return the new character and the amendment in words."""
    words = amendment.split()
    head = words[0].casefold()
    if amendment.casefold() == "named":
        return replace(character, named=True), "named"
    if amendment.casefold() in ("not named", "unnamed"):
        return replace(character, named=False), "not named"
    if head in ("tough", "survives", "capacity") and len(words) == 2:
        survived = read_int(words[1], "Wounds survived", 0, DEFAULT_LIMITS.max_sheet_number)
        return replace(character, wounds_survived=survived), f"survives {survived} wounds"
    if head in ("forbid", "move"):
        target = " ".join(words[1:])
        tier = 0  # the die tier a moved technique goes to
        if head == "move":
            target, _, tier_word = target.rpartition(" to ")
            digits = tier_word.casefold().lstrip("d")
            tier = int(digits) if re.fullmatch("[0-9]{1,2}", digits) else 0
            if tier not in stepped.LADDER:
                raise UserError(
                    f"Move a technique to a die tier, like `move {target or 'X'} to d8`."
                )
        magic = []
        found = False
        for parameter in character.magic:
            techniques = []
            for technique in parameter.techniques:
                if technique.name.casefold() != target.casefold():
                    techniques.append(technique)
                    continue
                found = True
                if head == "move":  # forbidding drops the technique
                    techniques.append(replace(technique, tier=tier))
            magic.append(replace(parameter, techniques=tuple(techniques)))
        if not found:
            raise UnknownName(f"{character.name} has no technique called '{target}'.")
        words_out = f"moved {target} to d{tier}" if head == "move" else f"forbade {target}"
        return replace(character, magic=tuple(magic)), words_out
    raise UserError(
        f"'{amendment}' is not an amendment. Use: named, not named, tough N, "
        "move TECHNIQUE to dX, forbid TECHNIQUE, force."
    )


def resolve_decide(request: Decide, context: Context, dice: DiceSource) -> Resolution:
    require_gm(context, f"{request.decision} applications")
    key, application = _application_for(context, request.name)
    applications = _applications(context)
    latest = application["versions"][-1]
    owner = str(application["owner"])
    if request.decision != "approve":
        status = "rejected" if request.decision == "reject" else "revision requested"
        applications.put(key, {**application, "status": status, "note": request.note})
        return Resolution(
            "decision",
            DecisionResult(request.decision, application["name"], owner, request.note, (), None),
        )
    character = stepped.character_from_record(latest["sheet"])
    applied = []
    force = False
    for amendment in request.amendments:
        if amendment.casefold() == "force":
            force = True
            applied.append("approved despite the rules")
            continue
        character, words = _amend(character, amendment)
        applied.append(words)
    problems = stepped.validate_character(character, context.rules)
    if problems and not force:
        raise RuleViolation(
            f"{character.name}'s sheet still breaks the rules: {' '.join(problems)} Ask for "
            "changes with [[revise ...]], amend it, or approve it anyway with "
            "[[approve with force]]."
        )
    context.roster.add(character, owner, approved=True)
    applications.put(key, {**application, "status": "approved", "note": ""})
    return Resolution(
        "decision",
        DecisionResult("approve", character.name, owner, "", tuple(applied), character),
    )


def _npc_record(request: CreateNpc, context: Context) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "npc", "stats": {}, "weapons": []}
    if request.template is not None:
        template = context.npc_templates.get(request.template.casefold())
        if template is None:
            known = ", ".join(sorted(context.npc_templates)) or "none yet"
            raise UnknownName(
                f"There is no NPC template '{request.template}'. Templates: {known}. "
                "A GM adds them to npc_templates.toml."
            )
        record.update({k: v for k, v in template.items() if k != "name"})
    if request.fields:
        inline = parse_sheet(
            "\n".join(_as_sheet_line(item) for item in request.fields),
            owner_kind="npc",
            limits=context.limits,
        )
        record["stats"] = {**record.get("stats", {}), **inline.pop("stats")}
        for listed in ("weapons", "magic"):
            if inline.get(listed):
                record[listed] = inline[listed]
            inline.pop(listed, None)
        record.update({k: v for k, v in inline.items() if k != "kind"})
    record["name"] = request.name
    return record


def _as_sheet_line(item: str) -> str:
    # "str 2", "tough 2", "named" and "weapon blaster, ranged, 2d6" as sheet lines.
    key, _, value = item.partition(" ")
    if key.casefold() == "named" and not value:
        value = "yes"
    return f"{key}: {value}"


def resolve_npc(request: CreateNpc, context: Context, dice: DiceSource) -> Resolution:
    require_gm(context, "create NPCs")
    if request.name in context.roster:
        raise RuleViolation(f"{request.name} already exists; choose another name.")
    character = stepped.character_from_record(_npc_record(request, context))
    low, high = 1, len(stepped.LADDER)  # points index the ladder of dice
    absurd = [f"{s.value} {p}" for s, p in character.stats.items() if not low <= p <= high]
    if absurd:
        raise RuleViolation(
            f"{character.name} cannot enter play with {', '.join(absurd)} points; a stat "
            f"has {low} to {high} points (d4 to d20)."
        )
    context.roster.add(character, None, approved=True)
    return Resolution("npc", NpcResult(character, request.template))


def resolve_wounds(request: AdjustWounds, context: Context, dice: DiceSource) -> Resolution:
    require_gm(context, "change wounds")
    before = context.roster.find(request.name)
    if request.change is None:
        after = stepped.heal(before)
    elif request.change > 0:
        after = stepped.apply_wounds(before, request.change, context.rules)
    else:
        after = stepped.heal(before, -request.change)
    context.roster.update(after)
    change = change_of(before, after, context.rules)
    return Resolution("wounds", change, changes=(change,))


def resolve_end(request: EndEncounter, context: Context, dice: DiceSource) -> Resolution:
    require_gm(context, "end an encounter")
    had_order = context.encounters.delete(context.post.thread)
    return Resolution("encounter", EncounterResult(had_order))


# ----------------------------------------------------------- vehicles and ships


def _vehicle_rules(context: Context) -> vehicles.VehicleRules:
    if not isinstance(context.rules, vehicles.VehicleRules):
        raise RuleViolation("This campaign has no scale table, so vehicles cannot roll.")
    return context.rules


def _state_word(
    c: stepped.Character | vehicles.Crewed,
    rules: vehicles.VehicleRules,
) -> str:
    if isinstance(c, stepped.Character):
        return stepped.state_of(c).value
    return vehicles.vehicle_state(c.vehicle, rules).value


def _wounds(c: stepped.Character | vehicles.Crewed) -> int:
    return c.wounds if isinstance(c, stepped.Character) else c.vehicle.wounds


def require_combatant(
    context: Context, name: str, doing: str
) -> stepped.Character | vehicles.Crewed:
    """A character or a craft the author may act for: its owner, its pilot's player, or a GM."""
    if not context.roster.is_vehicle(name):
        return require_control(context, name, doing)
    crewed = context.roster.combatant(name)
    assert isinstance(crewed, vehicles.Crewed)
    record = context.roster.vehicle_record(name)
    if not record.get("approved"):
        raise Forbidden(f"{crewed.name} is not approved yet and may not {doing}.")
    if context.by_gm:
        return crewed
    players = {str(record.get("owner") or "").casefold()}
    if crewed.pilot is not None:
        players.add(str(context.roster.record(crewed.pilot.name).get("owner") or "").casefold())
    if context.post.author.casefold() not in players - {""}:
        if record.get("owner"):
            whose = f"belongs to u/{record['owner']}"
        elif crewed.pilot is not None:
            pilot_owner = context.roster.record(crewed.pilot.name).get("owner")
            whose = f"is flown by {crewed.pilot.name}" + (
                f", played by u/{pilot_owner}" if pilot_owner else ", a GM's character"
            )
        else:
            whose = "is a GM's craft"
        raise Forbidden(
            f"{crewed.name} {whose}; only its owner, its pilot's player or a GM may {doing} for it."
        )
    return crewed


def resolve_vehicle_stat(request: VehicleStat, context: Context, dice: DiceSource) -> Resolution:
    rules = _vehicle_rules(context)
    crewed = require_combatant(context, request.vehicle, "roll")
    if not isinstance(crewed, vehicles.Crewed):
        raise RuleViolation(
            f"{crewed.name} is a character; roll a character's stats with "
            f"[[roll {crewed.name} agility]]."
        )
    against = context.roster.combatant(request.against) if request.against else None
    parameter = vehicles.parse_param(request.parameter, crewed.vehicle.craft)
    result = vehicles.stat_roll(
        crewed, parameter, rules, dice, against=against, modifier=request.modifier
    )
    return Resolution("vehicle_stat", result, result.chance)


def resolve_vehicle_initiative(
    request: RollInitiative, context: Context, dice: DiceSource
) -> Resolution:
    combatants = [require_combatant(context, name, "roll initiative") for name in request.names]
    result = vehicles.initiative(_each_once(combatants), _vehicle_rules(context), dice)
    _keep_order(context, result.groups)
    return Resolution("vehicle_initiative", result)


def resolve_vehicle_attack(request: Attack, context: Context, dice: DiceSource) -> Resolution:
    rules = _vehicle_rules(context)
    attacker = require_combatant(context, request.attacker, "attack")
    target = context.roster.combatant(request.target)
    kind = stepped.AttackKind.RANGED if request.verb == "shoot" else stepped.AttackKind.MELEE
    if isinstance(attacker, stepped.Character):
        weapon = _weapon(attacker, request.weapon)
    else:  # a craft has only its Weapon power; a named weapon is refused by the rules
        named = request.weapon
        weapon = stepped.Weapon(named, stepped.WeaponKind.RANGED) if named else None
    result = vehicles.attack(
        kind,
        attacker,
        target,
        rules,
        dice,
        weapon=weapon,
        location=stepped.Location(request.location.split()[-1]),
        aware=not request.unaware,
        subdue=request.subdue,
        modifier=request.modifier,
        environment=request.environment,
    )
    changes: tuple[Change, ...] = ()
    before, after = result.target_before, result.target_after
    if after != before:
        if isinstance(after, vehicles.Crewed):
            context.roster.update_vehicle(after.vehicle)
        else:
            context.roster.update(after)
        changes = (
            Change(
                after.name,
                _wounds(before),
                _wounds(after),
                _state_word(before, rules),
                _state_word(after, rules),
                -stepped.wound_penalty(after, rules) if isinstance(after, stepped.Character) else 0,
            ),
        )
    return Resolution("vehicle_attack", result, result.hit_chance, changes)


HANDLERS: dict[type, Handler] = {
    RollDice: resolve_dice,
    RollStat: resolve_stat,
    RollInitiative: resolve_initiative,
    Attack: resolve_attack,
    Cast: resolve_cast,
    VehicleStat: resolve_vehicle_stat,
    Apply: resolve_apply,
    Decide: resolve_decide,
    CreateNpc: resolve_npc,
    AdjustWounds: resolve_wounds,
    EndEncounter: resolve_end,
}


def handler_for(request: object, handlers: Iterable[tuple[type, Handler]] = ()) -> Handler:
    """The handler for a request's type (campaign-specific handlers first)."""
    for request_type, handler in handlers:
        if isinstance(request, request_type):
            return handler
    return HANDLERS[type(request)]
