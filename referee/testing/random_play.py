"""Random play for the conformance kit: a system's state stays within its rules, whatever
order its verbs, the GM's corrections, the end of encounters and restarts come in.

:func:`play_at_random` plays a seeded random sequence of posts through the real
pipeline (:class:`~referee.pipeline.flow.Referee`: HMAC dice, the ledger, the posts'
records that ``[[void]]`` reads) in the system's example campaign: every verb's example
and every GM-only option's, by the GM or the player, with the characters named swapped
for others of the campaign; ``[[end encounter]]``; ``[[void]]`` of an earlier post's roll;
``[[revive]]`` of an NPC; and a restart (the store closed and opened again). After every
step it asks the system's :meth:`~referee.system.System.invariants` of the stored state;
the first breach, or a post the referee could not handle, ends the play and is reported
with the steps that led to it, so it can be replayed.

>>> import tempfile
>>> from pathlib import Path
>>> from referee.system import load_system
>>> play_at_random(load_system("edge"), Path(tempfile.mkdtemp()), steps=5, seed=1)
[]
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.base.posts import Post
from referee.pipeline.campaign import Campaign, Secret, load_config
from referee.pipeline.flow import Referee
from referee.system import System
from referee.testing.campaign import example_campaign

THREADS = ("t3_kit_a", "t3_kit_b")  # two threads: per-thread state meets campaign state
SECRET = b"test-secret"  # make_campaign's, so a restart opens the same campaign


@dataclass(frozen=True)
class Step:
    """One step of the play: a post (author, thread, tag), or a restart (tag "")."""

    author: str
    thread: str
    tag: str

    def __str__(self) -> str:
        return "(restart)" if not self.tag else f"u/{self.author} in {self.thread}: [[{self.tag}]]"


def _reopen(campaign: Campaign, folder: Path) -> Campaign:
    campaign.close()
    return Campaign(load_config(folder / "config.toml"), Secret(SECRET, "test"))


def state_tables(campaign: Campaign) -> dict[str, dict[str, Any]]:
    """The records :meth:`System.invariants` reads: characters and the system's tables."""
    names = ("characters", *campaign.system.tables)
    return {name: dict(campaign.store.table(name).items()) for name in names}


def _tags(system: System) -> list[tuple[str, bool]]:
    """Every verb's example and every GM-only option's: (tag, whether only a GM may)."""
    tags: list[tuple[str, bool]] = []
    for verb in system.verbs:
        tags.append((verb.example, bool(verb.gm_only)))
        tags += [(option.example, True) for option in verb.gm_options]
        tags += [(setup, True) for option in verb.gm_options for setup in option.setup]
    return tags


def _swapped(tag: str, names: list[str], rng: random.Random) -> str:
    """``tag`` with one character it names (whole, or by his first word) swapped for
    another character of the campaign, named whole."""
    present = []
    for name in names:
        for spelling in dict.fromkeys((name, name.split()[0])):
            found = re.search(rf"(?<!\w){re.escape(spelling)}(?!\w)", tag)
            if found:
                present.append((name, found))
                break
    if not present or len(names) < 2:
        return tag
    old, found = rng.choice(present)
    new = rng.choice([name for name in names if name != old])
    return tag[: found.start()] + new + tag[found.end() :]


def play_at_random(
    system: System,
    folder: Path,
    *,
    steps: int = 200,
    seed: int | str = 2024,
    check: Callable[[Mapping[str, Mapping[str, Any]], Any], list[str]] | None = None,
) -> list[str]:
    """Play ``steps`` random steps in the system's example campaign under ``folder``;
    every invariant broken (by the first step that broke any) and every post the referee
    could not handle, each with the steps that led to it. ``check`` replaces the
    system's own invariants (a test of the kit)."""
    example = system.example_campaign()
    sheets = example.records.get("characters", ())
    names = [str(s["name"]) for s in sheets]
    npcs = [str(s["name"]) for s in sheets if s.get("kind", "pc") != "pc"]
    tags = _tags(system)
    check = check or system.invariants
    rng = random.Random(f"{system.name}:{seed}")
    campaign = example_campaign(system, folder)
    referee = Referee(campaign)
    played: list[Step] = []
    posted: list[str] = []
    try:
        for number in range(steps):
            step = _next_step(rng, tags, names, npcs, posted, example)
            played.append(step)
            if not step.tag:
                campaign = _reopen(campaign, folder)
                referee = Referee(campaign)
            else:
                post = Post(
                    f"t1_kit{number}", step.thread, step.author, f"[[{step.tag}]]", float(number)
                )
                outcome = referee.referee(post)
                if outcome.problems < outcome.tags:  # a roll was recorded: one to void
                    posted.append(f"kit{number}")
                if outcome.failed:
                    return [_report("the referee could not handle a post", played)]
            problems = check(state_tables(campaign), campaign.rules)
            if problems:
                return [_report(problem, played) for problem in problems]
        return []
    finally:
        campaign.close()


def _next_step(
    rng: random.Random,
    tags: list[tuple[str, bool]],
    names: list[str],
    npcs: list[str],
    posted: list[str],
    example: Any,
) -> Step:
    thread = rng.choice(THREADS)
    kind = rng.random()
    if kind < 0.05:
        return Step("", "", "")
    if kind < 0.12:
        return Step(example.gm, thread, "end encounter")
    if kind < 0.24 and posted:
        return Step(example.gm, rng.choice(THREADS), f"void {rng.choice(posted)}-1 kit")
    if kind < 0.28 and npcs:
        return Step(example.gm, thread, f"revive {rng.choice(npcs)}")
    tag, gm_only = rng.choice(tags)
    if rng.random() < 0.5:
        tag = _swapped(tag, names, rng)
    author = example.gm if gm_only or rng.random() < 0.4 else example.player
    return Step(author, thread, tag)


def _report(problem: str, played: list[Step]) -> str:
    shown = "; ".join(str(step) for step in played[-8:])
    return f"{problem}, after step {len(played)} (the last steps: {shown})"
