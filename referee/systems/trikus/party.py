"""The trikus party in the store: read it whole for a tag, write back only what changed.

The rules engine works on one :class:`~.state.Party` value; the store keeps it in three
places, all written through the tag's context so a failed tag leaves nothing behind:

* each approved character's record in ``characters`` (his sheet and state, §3.7);
* per campaign, table ``trikus_party`` under the fixed key ``party``: the refresh
  count, the GM-marked master NPCs and the fights in progress (each thread's carried
  pools, both sides, allies);
* per thread, table ``trikus_threads`` keyed by thread (:class:`ThreadState`): the
  standing difficulty, the test or fight round the GM opened with each player's
  declaration so far, a result waiting on the GM's Negotiation answer, the last
  test (for the GM's overturn after a Boom), and ``steps``: the roll ids of the tags
  that changed trikus state here, newest last (what the GM's ``[[undo]]`` takes back).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from referee.system import Context

from .application import TrikusSheet
from .state import STATE_VERSION, Fight, Party

PARTY_TABLE = "trikus_party"
PARTY_KEY = "party"  # one record per campaign
THREADS = "trikus_threads"
SHEET = TrikusSheet()


def load_party(context: Context) -> Party:
    """Every approved character (owners filled in), the campaign record and this thread's fight."""
    characters = []
    for _, record in sorted(context.table("characters").items()):
        if not record.get("approved"):
            continue
        character = SHEET.from_record(record["sheet"])
        characters.append(replace(character, player=str(record.get("owner") or "")))
    campaign = _campaign(context)
    fight = campaign["fights"].get(context.post.thread)
    return Party(
        tuple(characters),
        int(campaign["refreshes"]),
        None if fight is None else Fight.from_dict(fight),
        frozenset(campaign["master_npcs"]),
    )


def _campaign(context: Context) -> dict[str, Any]:
    record = context.table(PARTY_TABLE).get(PARTY_KEY)
    if record is None:
        return {"version": STATE_VERSION, "refreshes": 0, "master_npcs": [], "fights": {}}
    return dict(record)


def save_party(context: Context, before: Party, after: Party) -> None:
    """Write every character that changed, and the campaign record if it changed."""
    old = {c.name: c for c in before.characters}
    for character in after.characters:
        if old.get(character.name) != character:
            context.roster.update(replace(character, player=""))
    campaign = _campaign(context)
    fights = dict(campaign["fights"])
    if after.fight is None:
        fights.pop(context.post.thread, None)
    else:
        fights[context.post.thread] = after.fight.to_dict()
    updated = {
        **campaign,
        "refreshes": after.refreshes,
        "master_npcs": sorted(after.master_npcs),
        "fights": fights,
    }
    if updated != campaign:
        context.table(PARTY_TABLE).put(PARTY_KEY, updated)


def thread_state(context: Context) -> dict[str, Any]:
    """This thread's record: ``difficulty``, ``open``, ``waiting`` and ``last`` (each optional)."""
    return dict(context.table(THREADS).get(context.post.thread) or {"version": STATE_VERSION})


STEPS_KEPT = 100  # how far back the GM's [[undo]] reaches in one thread


def put_thread_state(context: Context, record: dict[str, Any], step: bool = True) -> None:
    """Store this thread's record; ``step``: note this tag's roll as a change ``[[undo]]``
    may take back (a tag outside a post, with no roll id, is not noted).

    ``steps`` maps each noting roll id to its place in the thread's order: a key per
    roll, so the core's field-level undo of one roll (``[[void]]``) takes out its own
    key and leaves the others' alone.
    """
    steps = dict(record.get("steps") or {})
    if step and context.roll_id and context.roll_id not in steps:
        steps[context.roll_id] = max(steps.values(), default=0) + 1
        for old in sorted(steps, key=steps.__getitem__)[:-STEPS_KEPT]:
            del steps[old]
        record = {**record, "steps": steps}
    context.table(THREADS).put(context.post.thread, record)


def note_step(context: Context) -> None:
    """Note this tag's roll in the thread's steps (a GM verb that wrote no thread state)."""
    put_thread_state(context, thread_state(context))


def steps_newest_first(record: dict[str, Any]) -> list[str]:
    """The roll ids noted in a thread's record, the newest first."""
    steps = record.get("steps") or {}
    return sorted(steps, key=steps.__getitem__, reverse=True)
