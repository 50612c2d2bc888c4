"""Stepped's resolvers: a request and the tag's dice in, a :class:`Resolution` out.

Each resolver finds the characters (the core's roster) and crafts (the
:class:`Fleet` over the ``vehicles`` table), checks who may act, calls the pure rules
of this package with the dice, writes changed characters back through the context
(the tag's change set) and returns what the verdict template shows.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar
from typing import cast as cast_type

from referee.base.dice import DiceSource
from referee.base.errors import ConfigError, Forbidden, NoSuchCharacter, RuleViolation, UnknownName
from referee.base.names import NameIndex
from referee.store.entries import character_key
from referee.system import Context, Resolution, refuse_look_alike, require_control

from . import odds as stepped_odds
from .application import parse_sheet
from .checks import npc_problems
from .combat import AttackKind, Location, apply_wounds, attack, heal
from .magic import cast
from .rolls import Modifier, TraitRoll, initiative, roll_trait, wound_penalty
from .rulings import Rules
from .sheet import character_from_record
from .traits import UNARMED, Character, Stat, State, Weapon, WeaponKind, parse_stat, state_of
from .vehicles.combat import attack as craft_attack
from .vehicles.crafts import Crewed, Vehicle, parse_param, vehicle_from_record, vehicle_to_record
from .vehicles.rolls import initiative as craft_initiative
from .vehicles.rolls import stat_roll, vehicle_state
from .vehicles.scale import VehicleRules
from .verbs import AdjustWounds, Attack, Cast, CreateNpc, RollInitiative, RollStat, VehicleStat

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

NPC_TEMPLATES_NAME = "npc_templates.toml"


class Fleet:
    """The campaign's vehicles and ships (the store's ``vehicles`` table) for one run."""

    def __init__(self, context: Context) -> None:
        self._table = context.table("vehicles")
        self._roster = context.roster
        self._parsed: dict[str, Vehicle] = {}
        # Crafts come from vehicles.toml, not from posts: the index is made once per run.
        self._index = NameIndex(self._table.keys())
        context.changes.on_rollback(self._parsed.clear)

    def is_vehicle(self, name: str) -> bool:
        """Whether ``name`` means a vehicle or ship (exactly, or the only one it starts)."""
        key = character_key(name)
        if key in self._table:
            return True
        if key in self._roster:
            return False
        return len(self._index.starting(key)) == 1 and not self._roster.starting(key)

    def key(self, name: str) -> str:
        """The store key of the craft ``name`` means; UnknownName (with close crafts) if none."""
        key = character_key(name)
        found = self._index.resolve(key)
        if found is not None and found in self._table:
            return found
        starting = [k for k in self._index.starting(key) if self._roster.may_name(k)]
        if len(starting) > 1:
            listed = ", ".join(str(self._record(k)["name"]) for k in starting[:5])
            raise UnknownName(f"{name} is ambiguous: {listed} — write the full name.")
        close = self._roster.close_names(key, named_only=True)
        hint = (
            f" Did you mean {' or '.join(close)}?"
            if close
            else " Check the spelling; the roster page lists the campaign's vehicles and ships."
        )
        raise UnknownName(f"No vehicle or ship is named '{name}'.{hint}")

    def not_found(self, name: str) -> UnknownName:
        """The error for ``name`` where a character or a craft may stand, and neither has it.

        It names what the closest names are: vehicles and ships, characters, or both.
        """
        key = character_key(name)
        close = self._roster.close_names(key)
        crafts = set(self._roster.close_names(key, named_only=True))
        if not crafts:
            return UnknownName(f"No character is named '{name}'.{self._roster.suggestion(key)}")
        what = "vehicle or ship" if crafts.issuperset(close) else "character, vehicle or ship"
        return UnknownName(f"No {what} is named '{name}'. Did you mean {' or '.join(close)}?")

    def find_vehicle(self, name: str) -> Vehicle:
        """The vehicle or ship a player means by ``name``."""
        key = self.key(name)
        if key not in self._parsed:
            self._parsed[key] = vehicle_from_record(self._record(key)["sheet"])
        return self._parsed[key]

    def _record(self, key: str) -> dict[str, Any]:
        record = self._table.get(key)
        assert record is not None
        return record

    def vehicle_record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the vehicle ``name`` means."""
        return self._record(self.key(name))

    def combatant(self, name: str) -> Character | Crewed:
        """A character, or a vehicle or ship with its pilot."""
        if not self.is_vehicle(name):
            return self._roster.find(name)
        vehicle = self.find_vehicle(name)
        return Crewed(vehicle, self._roster.find(vehicle.pilot) if vehicle.pilot else None)

    def update_vehicle(self, vehicle: Vehicle) -> None:
        """Keep a changed vehicle (its wounds), its owner and approval untouched."""
        key = character_key(vehicle.name)
        self._table.put(key, {**self._record(key), "sheet": vehicle_to_record(vehicle)})
        self._parsed[key] = vehicle


@dataclass(frozen=True)
class Change:
    """A character's (or craft's) wounds and state before and after a verdict."""

    name: str
    wounds_before: int
    wounds_after: int
    state_before: str
    state_after: str
    penalty_after: int = 0  # the pain-shock penalty the character now rolls with

    def ledger(self) -> dict[str, Any]:
        """What the ledger row keeps: the name, the wounds and the state after."""
        return {"name": self.name, "wounds": self.wounds_after, "state": self.state_after}

    def ledger_facts(self) -> dict[str, Any]:
        """A verdict whose result is the change itself (a heal) keeps the change's facts."""
        return self.ledger()


Resolver = TypeVar("Resolver", bound=Callable[[Any, Context, DiceSource], Resolution])


def names_crafts_too(resolver: Resolver) -> Resolver:
    """A resolver whose tag may name crafts: a name nobody has gets :meth:`Fleet.not_found`.

    The core's roster knows characters only, so its "No character is named" would
    mislead a player who misspelt a vehicle.
    """

    @functools.wraps(resolver)
    def resolve(request: Any, context: Context, dice: DiceSource) -> Resolution:
        try:
            return resolver(request, context, dice)
        except NoSuchCharacter as error:
            raise fleet(context).not_found(error.name) from None

    return cast_type(Resolver, resolve)


def fleet(context: Context) -> Fleet:
    """The run's :class:`Fleet` (made once, kept in the context's cache)."""
    made = context.cache.get("stepped.fleet")
    if made is None:
        made = context.cache["stepped.fleet"] = Fleet(context)
    return made


def npc_templates(context: Context) -> Mapping[str, Mapping[str, Any]]:
    """The GM's NPC templates: the campaign's npc_templates.toml, else the stock one."""
    cached = context.cache.get("stepped.npc_templates")
    if cached is not None:
        return cached
    templates: dict[str, dict[str, Any]] = {}
    files = context.files
    folders = (files.data_dir, files.tables["races"].parent) if files else ()
    for folder in folders:
        path = folder / NPC_TEMPLATES_NAME
        if path.is_file():
            try:
                document = tomllib.loads(path.read_text(encoding="utf-8"))
            except tomllib.TOMLDecodeError as error:
                raise ConfigError(f"{path} is not valid TOML: {error}.") from error
            templates = {name.casefold(): dict(fields) for name, fields in document.items()}
            break
    context.cache["stepped.npc_templates"] = templates
    return templates


def end_encounter(context: Context) -> bool:
    """Forget an initiative order kept before the core's tracker; whether there was one."""
    return context.table("encounters").delete(context.post.thread)


def trait_chance(roll: TraitRoll, rules: Rules) -> Fraction:
    """The exact chance of a roll this high or higher, with the same dice and modifiers."""
    return stepped_odds.chance_at_least(
        tuple(d.sides for d in roll.dice),
        roll.wild is not None,
        sum(m.value for m in roll.modifiers),
        rules.rulings,
        roll.total,
    )


def change_of(before: Character, after: Character, rules: Rules) -> Change:
    """How a character's wounds and state moved."""
    return Change(
        name=after.name,
        wounds_before=before.wounds,
        wounds_after=after.wounds,
        state_before=state_of(before).value,
        state_after=state_of(after).value,
        penalty_after=-wound_penalty(after, rules),
    )


def _ready(character: Character, doing: str) -> None:
    state = state_of(character)
    if state in (State.DEAD, State.INCAPACITATED):
        raise RuleViolation(f"{character.name} is {state.value} and cannot {doing}.")


def resolve_stat(request: RollStat, context: Context, dice: DiceSource) -> Resolution:
    character = require_control(context, request.actor, "roll")
    _ready(character, "roll")
    stats = [parse_stat(word) for word in request.stats]
    extra = [Modifier("situational", request.modifier)] if request.modifier else []
    roll = roll_trait(character, stats, context.rules, dice, extra)
    return Resolution("stat", roll, trait_chance(roll, context.rules))


@names_crafts_too
def resolve_initiative(request: RollInitiative, context: Context, dice: DiceSource) -> Resolution:
    if any(fleet(context).is_vehicle(name) for name in request.names):
        return resolve_vehicle_initiative(request, context, dice)
    characters = [require_control(context, name, "roll initiative") for name in request.names]
    result = initiative(_each_once(characters), context.rules, dice)
    return Resolution("initiative", result, initiative=_totals(result.rolls))


Named = TypeVar("Named", bound="Character | Crewed")


def _each_once(combatants: list[Named]) -> list[Named]:
    """The combatants of an initiative, refusing one named twice."""
    seen: set[str] = set()
    for combatant in combatants:
        if combatant.name in seen:
            raise RuleViolation(f"{combatant.name} is listed twice; name each combatant once.")
        seen.add(combatant.name)
    return combatants


def _totals(rolls: Iterable[Any]) -> tuple[tuple[str, int], ...]:
    """Each roller's total, highest first: the core's tracker makes them the thread's order."""
    return tuple((roll.roller, roll.total) for roll in rolls)


def _weapon(character: Character, name: str | None) -> Weapon | None:
    if name is None:
        return None
    wanted = " ".join(name.split()).casefold()
    if wanted in ("unarmed", "fists", "bare hands", "hands"):
        return UNARMED
    for weapon in character.weapons:
        if weapon.name.casefold() == wanted:
            return weapon
    starting = [w for w in character.weapons if w.name.casefold().startswith(wanted)]
    if len(starting) == 1:
        return starting[0]
    owned = ", ".join(w.name for w in character.weapons) or "none"
    raise UnknownName(f"{character.name} has no weapon called '{name}'. Their weapons: {owned}.")


_LOCATIONS = {location.value: location for location in Location}


def _location(word: str) -> Location:
    """``Location(word)``, without the Enum call's cost for the usual words."""
    return _LOCATIONS.get(word) or Location(word)


@names_crafts_too
def resolve_attack(request: Attack, context: Context, dice: DiceSource) -> Resolution:
    if fleet(context).is_vehicle(request.attacker) or fleet(context).is_vehicle(request.target):
        return resolve_vehicle_attack(request, context, dice)
    attacker = require_control(context, request.attacker, "attack")
    target = context.roster.find(request.target)
    kind = AttackKind.RANGED if request.verb == "shoot" else AttackKind.MELEE
    result = attack(
        kind,
        attacker,
        target,
        context.rules,
        dice,
        weapon=_weapon(attacker, request.weapon),
        location=_location(request.location.split()[-1]),  # "left arm" is an arm
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
    result = cast(caster, request.technique, context.rules, dice, modifier=request.modifier)
    return Resolution("cast", result, result.chance)


@dataclass(frozen=True)
class NpcResult:
    """A character a GM put into play."""

    character: Character
    template: str | None


def _npc_record(request: CreateNpc, context: Context) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": "npc", "stats": {}, "weapons": []}
    if request.template is not None:
        template = npc_templates(context).get(request.template.casefold())
        if template is None:
            known = ", ".join(sorted(npc_templates(context))) or "none yet"
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
    if request.name in context.roster:
        raise RuleViolation(f"{request.name} already exists; choose another name.")
    refuse_look_alike(context, request.name)
    character = character_from_record(_npc_record(request, context))
    # Checked like a sheet before it takes the name: an NPC that could not act never enters.
    problems = npc_problems(character, context.rules)
    if problems:
        missing = len(character.stats) < len(Stat)
        hint = (
            " Write every stat, like [[npc Bandit: str 2, agi 3, end 2, per 2]], or use a "
            "template: [[npc Bandit as thug]]."
            if missing
            else ""
        )
        raise RuleViolation(f"{character.name} cannot enter play: {' '.join(problems)}{hint}")
    context.roster.add(character, None, approved=True)
    return Resolution("npc", NpcResult(character, request.template))


def resolve_wounds(request: AdjustWounds, context: Context, dice: DiceSource) -> Resolution:
    before = context.roster.find(request.name)
    if request.change is None:
        after = heal(before)
    elif request.change > 0:
        after = apply_wounds(before, request.change, context.rules)
    else:
        after = heal(before, -request.change)
    context.roster.update(after)
    change = change_of(before, after, context.rules)
    return Resolution("wounds", change, changes=(change,))


def _vehicle_rules(context: Context) -> VehicleRules:
    if not isinstance(context.rules, VehicleRules):
        raise RuleViolation("This campaign has no scale table, so vehicles cannot roll.")
    return context.rules


def _state_word(
    c: Character | Crewed,
    rules: VehicleRules,
) -> str:
    if isinstance(c, Character):
        return state_of(c).value
    return vehicle_state(c.vehicle, rules).value


def _wounds(c: Character | Crewed) -> int:
    return c.wounds if isinstance(c, Character) else c.vehicle.wounds


def require_combatant(context: Context, name: str, doing: str) -> Character | Crewed:
    """A character or a craft the author may act for: its owner, its pilot's player, or a GM."""
    if not fleet(context).is_vehicle(name):
        return require_control(context, name, doing)
    crewed = fleet(context).combatant(name)
    assert isinstance(crewed, Crewed)
    record = fleet(context).vehicle_record(name)
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


@names_crafts_too
def resolve_vehicle_stat(request: VehicleStat, context: Context, dice: DiceSource) -> Resolution:
    rules = _vehicle_rules(context)
    try:
        crewed = require_combatant(context, request.vehicle, "roll")
    except NoSuchCharacter as error:
        if error.name != request.vehicle:
            raise
        fleet(context).key(request.vehicle)  # no craft either: says so, with close crafts
        raise
    if not isinstance(crewed, Crewed):
        raise RuleViolation(
            f"{crewed.name} is a character; roll a character's stats with "
            f"[[roll {crewed.name} agility]]."
        )
    against = fleet(context).combatant(request.against) if request.against else None
    parameter = parse_param(request.parameter, crewed.vehicle.craft)
    result = stat_roll(crewed, parameter, rules, dice, against=against, modifier=request.modifier)
    return Resolution("vehicle_stat", result, result.chance)


def resolve_vehicle_initiative(
    request: RollInitiative, context: Context, dice: DiceSource
) -> Resolution:
    combatants = [require_combatant(context, name, "roll initiative") for name in request.names]
    result = craft_initiative(_each_once(combatants), _vehicle_rules(context), dice)
    return Resolution("vehicle_initiative", result, initiative=_totals(result.rolls))


def resolve_vehicle_attack(request: Attack, context: Context, dice: DiceSource) -> Resolution:
    rules = _vehicle_rules(context)
    attacker = require_combatant(context, request.attacker, "attack")
    target = fleet(context).combatant(request.target)
    kind = AttackKind.RANGED if request.verb == "shoot" else AttackKind.MELEE
    if isinstance(attacker, Character):
        weapon = _weapon(attacker, request.weapon)
    else:  # a craft has only its Weapon power; a named weapon is refused by the rules
        named = request.weapon
        weapon = Weapon(named, WeaponKind.RANGED) if named else None
    result = craft_attack(
        kind,
        attacker,
        target,
        rules,
        dice,
        weapon=weapon,
        location=Location(request.location.split()[-1]),
        aware=not request.unaware,
        subdue=request.subdue,
        modifier=request.modifier,
        environment=request.environment,
    )
    changes: tuple[Change, ...] = ()
    before, after = result.target_before, result.target_after
    if after != before:
        if isinstance(after, Crewed):
            fleet(context).update_vehicle(after.vehicle)
        else:
            context.roster.update(after)
        changes = (
            Change(
                after.name,
                _wounds(before),
                _wounds(after),
                _state_word(before, rules),
                _state_word(after, rules),
                -wound_penalty(after, rules) if isinstance(after, Character) else 0,
            ),
        )
    return Resolution("vehicle_attack", result, result.hit_chance, changes)
