"""The per-campaign state of ``hits`` as one value, and its versioned JSON form.

:class:`CampaignState` holds the clock (scene, chapter with its Influence spends, timers)
and the duels in progress. Character sheets are kept apart (:mod:`.sheet`), one record
each. :func:`state_from_dict` lists every problem of a stored state at once.

>>> state = CampaignState()
>>> state_from_dict(state_to_dict(state)) == state
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.base.errors import RuleViolation

from .duels import Duel, DuelBook, DuelStatus
from .records import FORMAT_VERSION, Reader, listing
from .scene import CampaignClock, Chapter, Mode, Scene, Spend, SpendRecord, Timer, TimerKind


@dataclass(frozen=True)
class CampaignState:
    """Everything of a ``hits`` campaign that is not a character sheet."""

    clock: CampaignClock = field(default_factory=CampaignClock)
    duels: DuelBook = field(default_factory=DuelBook)


def state_to_dict(state: CampaignState) -> dict[str, Any]:
    """The state as plain JSON, with the format version."""
    clock = state.clock
    return {
        "version": FORMAT_VERSION,
        "scene": {
            "number": clock.scene.number,
            "mode": clock.scene.mode.value,
            "tension": clock.scene.tension,
            "open": clock.scene.open,
        },
        "chapter": {
            "number": clock.chapter.number,
            "open": clock.chapter.open,
            "spends": [
                {
                    "character": s.character,
                    "way": s.way.value,
                    "cost": s.cost,
                    "refunded": s.refunded,
                }
                for s in clock.chapter.spends
            ],
        },
        "timers": [
            {
                "name": t.name,
                "segments": t.segments,
                "filled": t.filled,
                "event": t.event,
                "kind": t.kind.value,
                "knocks_out": t.knocks_out,
            }
            for t in clock.timers
        ],
        "duels": {
            "next_id": state.duels.next_id,
            "in_progress": [
                {
                    "id": d.id,
                    "initiator": d.initiator,
                    "target": d.target,
                    "mode": d.mode.value,
                    "cost": d.cost,
                    "initiator_dice": d.initiator_dice,
                    "target_dice": d.target_dice,
                    "status": d.status.value,
                    "resisted": d.resisted,
                    "loser": d.loser,
                    "awaiting_target": d.awaiting_target,
                    "deferred": d.deferred,
                }
                for d in state.duels.duels
            ],
        },
    }


def _items(reader: Reader, key: str, what: str) -> list[Reader]:
    return [Reader(raw, f"{what}[{i}]") for i, raw in enumerate(reader.get(key, list, []))]


def state_from_dict(data: object) -> CampaignState:
    """A state from :func:`state_to_dict`'s JSON; RuleViolation listing every problem."""
    r = Reader(data, "the campaign state")
    r.check_version()
    readers = [r]
    s = Reader(r.get("scene", dict, {}), "scene")
    c = Reader(r.get("chapter", dict, {}), "chapter")
    d = Reader(r.get("duels", dict, {}), "duels")
    readers += [s, c, d]
    scene = Scene(
        s.get("number", int, 0),
        s.member("mode", Mode, Mode.UNSTRUCTURED),
        s.get("tension", int, 1),
        s.get("open", bool, False),
    )
    spends = []
    for x in _items(c, "spends", "spends"):
        readers.append(x)
        spends.append(
            SpendRecord(
                x.get("character", str, ""),
                x.member("way", Spend, Spend.ALL_IN),
                x.get("cost", int, 0),
                x.get("refunded", bool, False),
            )
        )
    chapter = Chapter(c.get("number", int, 0), c.get("open", bool, False), tuple(spends))
    timers = []
    for x in _items(r, "timers", "timers"):
        readers.append(x)
        timers.append(
            Timer(
                x.get("name", str, ""),
                x.get("segments", int, 2),
                x.get("filled", int, 0),
                x.get("event", str, ""),
                x.member("kind", TimerKind, TimerKind.STORY),
                x.get("knocks_out", str, ""),
            )
        )
    duels = []
    for x in _items(d, "in_progress", "duels"):
        readers.append(x)
        duels.append(
            Duel(
                x.get("id", int, 0),
                x.get("initiator", str, ""),
                x.get("target", str, ""),
                x.member("mode", Mode, Mode.UNSTRUCTURED),
                x.get("cost", int, 0),
                x.get("initiator_dice", int, 0),
                x.get("target_dice", int, 0),
                x.member("status", DuelStatus, DuelStatus.PENDING),
                x.get("resisted", bool, False),
                x.get("loser", str, ""),
                bool(x.data.get("awaiting_target", False)),  # absent in the first records
                bool(x.data.get("deferred", False)),
            )
        )
    problems = [p for reader in readers for p in reader.problems]
    problems += _state_problems(scene, timers)
    if problems:
        raise RuleViolation(listing("The stored campaign state", problems))
    return CampaignState(
        CampaignClock(scene, chapter, tuple(timers)),
        DuelBook(tuple(duels), d.get("next_id", int, 1)),
    )


def _state_problems(scene: Scene, timers: list[Timer]) -> list[str]:
    problems = []
    if scene.tension < 1:
        problems.append(f"the scene's Tension is at least 1, not {scene.tension}")
    for t in timers:
        if t.segments < 2 or t.segments % 2 or not 0 <= t.filled < t.segments:
            problems.append(
                f"timer {t.name!r}: {t.filled} of {t.segments} segments is impossible"
                " (an even number of segments, filled below it)"
            )
    return problems
