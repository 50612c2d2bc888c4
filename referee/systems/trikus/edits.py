"""The GM's verbs over the trikus state (§3.7): tokens, Morale, lines, refresh, falls, undo.

Each resolver reads the party (:mod:`.party`), asks :mod:`.resources` for the change
set (which refuses what the state cannot take, with the reason), and stores it through
:func:`.gm_answers.adjusted`. The core refuses these verbs to players before they run
(``Verb.gm_only``), saying a GM may.

``[[undo]]`` takes back the thread's last trikus change (a test, a round, a GM edit,
an opening or a declaration: each tag noted in the thread's ``steps``) with the core's
one mechanism for it, :func:`referee.resolve.corrections.void_roll`: every field that tag
wrote goes back, the undone roll stays in the ledger marked void, and the undo is a
ledger row of its own. Undo again to go further back.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.base.dice import DiceSource
from referee.base.errors import Forbidden, RuleViolation
from referee.resolve.corrections import is_void, void_roll
from referee.system import Context, Resolution, require_control
from referee.systems.roster import find_character

from . import resources
from .gm_answers import adjusted
from .handlers import Adjusted
from .party import PARTY_TABLE, THREADS, load_party, steps_newest_first, thread_state
from .tags import Bare, Count, Named, Names, Renew, SetLine, Sides


def _name(context: Context, typed: str) -> str:
    return str(find_character(context, typed).name)


def resolve_light(request: Count, context: Context, dice: DiceSource) -> Resolution:
    """The GM grants Light tokens for good play (one by default)."""
    party = load_party(context)
    name = _name(context, request.actor)
    changes = resources.grant_light(party, name, 1 if request.count is None else request.count)
    return adjusted(context, "light", changes, party)


def resolve_dark(request: Count, context: Context, dice: DiceSource) -> Resolution:
    """The GM spends a character's Dark tokens (he plays one of his Dark sides)."""
    party = load_party(context)
    name = _name(context, request.actor)
    count = 1 if request.count is None else request.count
    changes = resources.spend_dark(party, name, count, context.rules)
    return adjusted(context, "dark", changes, party)


def resolve_morale(request: Count, context: Context, dice: DiceSource) -> Resolution:
    """The GM sets a character's Morale dice."""
    party = load_party(context)
    assert request.count is not None
    changes = resources.set_morale(party, _name(context, request.actor), request.count)
    return adjusted(context, "morale", changes, party)


def resolve_line(request: SetLine, context: Context, dice: DiceSource) -> Resolution:
    """The GM sets one line free, struck or lost (with the refreshes before it returns)."""
    party = load_party(context)
    name = _name(context, request.actor)
    index = request.index - 1
    if request.dice:
        index = resources.line_of(party.character(name), request.dice, request.status)
    changes = resources.set_line(party, name, index, request.status, request.refreshes)
    return adjusted(context, "line", changes, party)


def resolve_refresh(request: Bare, context: Context, dice: DiceSource) -> Resolution:
    """The GM forces a refresh: struck lines return, lost ones come one refresh nearer."""
    party = load_party(context)
    return adjusted(context, "refresh", resources.force_refresh(party), party)


def resolve_master(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The GM marks an NPC a master: a player losing all his dice to him costs the Master."""
    party = load_party(context)
    name = request.actor
    if name.casefold() in {n.casefold() for n in party.master_npcs}:
        raise RuleViolation(f"{name} is already marked a master.")
    marked = replace(party, master_npcs=party.master_npcs | {name})
    fight = party.fight
    note = f"{name} is marked a master NPC"
    if fight is not None and not fight.master_npc:
        marked = replace(marked, fight=replace(fight, master_npc=True))
        note += "; the fight in this thread is against a master"
    return adjusted(context, "master", (), party, note, marked)


def resolve_fall(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The GM applies a fall to the Dark Side; every lower tier advances."""
    party = load_party(context)
    return adjusted(context, "fall", resources.fall(party, _name(context, request.actor)), party)


def resolve_advance(request: Named, context: Context, dice: DiceSource) -> Resolution:
    """The GM advances a character one tier (his sides are written anew)."""
    party = load_party(context)
    changes = resources.advance(party, _name(context, request.actor))
    return adjusted(context, "advance", changes, party)


def resolve_sacrifice(request: Names, context: Context, dice: DiceSource) -> Resolution:
    """The GM applies the Master's sacrifice; the names are who fought the master."""
    party = load_party(context)
    fought = tuple(_name(context, n) for n in request.names)
    return adjusted(context, "sacrifice", resources.apply_sacrifice(party, fought), party)


def resolve_renew(request: Renew, context: Context, dice: DiceSource) -> Resolution:
    """The GM renews a spent renewable item."""
    party = load_party(context)
    changes = resources.renew_item(party, _name(context, request.actor), request.item)
    return adjusted(context, "renew", changes, party)


def _fields(changes: list[list[Any]]) -> list[tuple[list[Any], Any, Any]]:
    """The changes field by field: a record created or deleted whole counts per top field."""
    spread: list[tuple[list[Any], Any, Any]] = []
    for path, old, new, *_ in changes:
        if path:
            spread.append((path, old, new))
            continue
        before, after = old or {}, new or {}
        for key in {**before, **after}:
            if before.get(key) or after.get(key):  # an empty default is no change
                spread.append(([key], before.get(key), after.get(key)))
    return spread


def _played(record: Any) -> str:
    """A thread record's ``open`` or ``last`` in words: what was played in this thread."""
    kind = record.get("kind") if isinstance(record, dict) else None
    return f"the {'fight round' if kind == 'round' else kind or 'test'} played in this thread"


def describe_thread(changes: list[list[Any]]) -> tuple[str, ...]:
    """What undoing a tag's changes to this thread's trikus record took back, in words.

    A play rewrites the open test's fields too; ``last`` (or the open record closing)
    names it once. ``steps`` and ``version`` are undo's own bookkeeping, not named.
    """
    said: list[str] = []
    for path, old, new in _fields(changes):
        field = path[0]
        if field == "difficulty":
            said.append("the difficulty set in this thread")
        elif field == "open" and path[1:2] == ["declarations"] and len(path) == 3 and old is None:
            said.append(f"{path[2]}'s declaration")
        elif field == "open" and len(path) == 1:
            opened = old is None and isinstance(new, dict)
            said.append(f"the {new['kind']} opened in this thread" if opened else _played(old))
        elif field == "last":
            said.append(_played(new or old))
        elif field == "waiting":
            said.append("the Negotiation waiting for an answer")
    return tuple(dict.fromkeys(said))


def describe_party(changes: list[list[Any]]) -> tuple[str, ...]:
    """What undoing a tag's changes to the campaign's trikus record took back, in words."""
    words = {"refreshes": "the party's refresh count", "master_npcs": "the master NPCs"}
    said: list[str] = []
    for path, old, _ in _fields(changes):
        if path[0] in words:
            said.append(words[path[0]])
        elif path[0] == "fights" and old:  # a fight's opening is named by the thread's record
            said.append("the fight's pools")
    return tuple(dict.fromkeys(said))


UNDO_LABELS = {PARTY_TABLE: describe_party, THREADS: describe_thread}


def resolve_undo(request: Bare, context: Context, dice: DiceSource) -> Resolution:
    """The GM takes back the thread's last trikus change, every value it wrote."""
    last = next(
        (s for s in steps_newest_first(thread_state(context)) if not is_void(context, s)), None
    )
    if last is None:  # said, not refused: the GM's table is as he wants it
        note = (
            "Nothing to undo in this thread: undo takes back the referee's trikus changes "
            "made here (tests, rounds, GM edits), newest first"
        )
        return Resolution("adjusted", Adjusted("undo", (), (), note))
    result = void_roll(context, last, "taken back by the GM's undo", UNDO_LABELS)
    return Resolution("records_void", result)


def resolve_darkside(request: Renew, context: Context, dice: DiceSource) -> Resolution:
    """Another player writes one of the Master's Dark sides (``party_writes_master_dark``)."""
    party = load_party(context)
    name = _name(context, request.actor)
    owner = context.post.author if not context.by_gm else ""
    if owner and not any(
        c.player.casefold() == owner.casefold() and c.status.value == "active"
        for c in party.characters
    ):
        raise Forbidden(
            f"Only a player of the party (or a GM) writes {name}'s Dark sides; "
            f"u/{owner} plays no active character here."
        )
    side = " ".join(request.item.split())
    changes = resources.write_dark_side(party, name, side, owner, context.rules)
    return adjusted(context, "darkside", changes, party)


def resolve_sides(request: Sides, context: Context, dice: DiceSource) -> Resolution:
    """After an advancement the player (or a GM) writes the character's sides anew."""
    character = require_control(context, request.actor, "write the sides of")
    party = load_party(context)
    changes = resources.write_sides(
        party, character.name, request.light, request.dark, context.rules
    )
    return adjusted(context, "sides", changes, party)
