"""Benchmark: referee a generated 20,000-tag thread end to end, and compare notation with d20.

Run:  .venv/bin/python bench/batch_throughput.py
(needs the bench extra: pip install -e '.[bench]')

1. Builds, on disk, a campaign holding 2,000 characters and a ledger of 50,000 rows.
2. In a fresh child process (so its peak memory is the run's own): loads the saved
   thread JSON, opens the campaign, referees every post and flushes the store once.
   Reports tags per second end to end and the child's peak resident memory.
3. Times parse-and-resolve of ``[[roll 2d6+3]]`` against ``d20.roll("2d6+3")`` in one
   process, and reports the ratio (machines are noisy; the ratio is what carries).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

from referee import notation
from referee.base.dice import Draw, HmacDice, SeededDice
from referee.base.posts import Post, posts_from_thread
from referee.pipeline.batch import run_batch
from referee.pipeline.campaign import Campaign, Secret, load_config
from referee.pipeline.flow import Referee
from referee.pipeline.session import Session
from referee.read.tags import parse_tag
from referee.resolve.dispatch import resolve_dice, verbs_for
from referee.store.ledger import make_row
from referee.system import ParseContext
from referee.testing import make_campaign, sheet

SECRET = b"bench-secret"


def build_campaign(folder: Path, characters: int, ledger_rows: int) -> None:
    mage = {
        "magic": [
            {"name": "Force", "points": 2, "techniques": [{"name": "Telekinesis", "tier": "d4"}]}
        ]
    }
    sheets = [
        sheet(f"Hero {i}", owner=f"player{i}", **(mage if i % 10 == 0 else {}))
        for i in range(characters)
    ]
    with make_campaign(folder, sheets, secret=SECRET) as campaign:
        for i in range(ledger_rows):
            row = make_row(
                post=f"t1_old{i:x}",
                thread="t3_old",
                author="someone",
                tag_index=0,
                tag="roll 2d6",
                system="stepped",
                kind="dice",
                draws=[Draw(6, 1 + i % 6), Draw(6, 1 + i // 6 % 6)],
                outcome={"total": 2 + i % 11},
                recorded="2026-01-01T00:00:00+00:00",
            )
            campaign.store.ledger.append(row)
            if i % 20_000 == 19_999:
                campaign.store.flush(sync=False)


FIGHTERS = 8  # characters in one fight
ROUNDS = 2  # rounds of a fight


def _comment(number: int, author: str, body: str) -> dict:
    return {
        "kind": "t1",
        "data": {
            "name": f"t1_b{number:x}",
            "id": f"b{number:x}",
            "author": author,
            "body": body,
            "created_utc": 1.7e9 + number,
            "edited": False,
            "parent_id": "t3_bench",
            "link_id": "t3_bench",
            "replies": "",
        },
    }


def _fight_bodies(
    chooser: random.Random, fighters: list[int], per_post: int
) -> list[tuple[str, str]]:
    """One fight as (author, body) posts, the way a table plays it.

    Each fighter's player rolls initiative once, in his first post, and acts with
    ``per_post`` tags a post against the others of the fight; after each post the GM
    moves the turn on with ``[[next]]``; the fight ends with ``[[end encounter]]``.
    """
    posts = []
    for round_ in range(ROUNDS):
        for actor in fighters:
            hero = f"Hero {actor}"

            def other(actor: int = actor) -> str:
                return f"Hero {chooser.choice([f for f in fighters if f != actor])}"

            forms = [
                "[[roll 2d6+3]]",
                f"[[roll {hero} agility+perception]]",
                f"[[shoot {hero} -> {other()} leg]]",
                f"[[melee {hero} -> {other()} arm]]",
                f"[[cast {hero} Telekinesis]]"
                if actor % 10 == 0
                else f"[[shoot {hero} -> {other()} leg]]",
            ]
            tags = [f"[[init {hero}]]"] if round_ == 0 else []
            tags += [chooser.choice(forms) for _ in range(per_post - len(tags))]
            posts.append((f"player{actor}", "The fight goes on. " + " ".join(tags)))
            posts.append(("gm", "[[next]]"))
    posts.append(("gm", "The dust settles. [[end encounter]]"))
    return posts


def build_thread(path: Path, tags: int, characters: int, per_post: int = 4) -> None:
    """Fights one after another, each post by the player of the character acting in it.

    About ``tags`` tags: fights of FIGHTERS characters over ROUNDS rounds (see
    :func:`_fight_bodies`), so initiative is rolled once a fight, as the tracker asks.
    """
    chooser = random.Random(2026)
    comments: list[dict] = []
    written = 0
    heroes: list[int] = []
    while written < tags:
        if len(heroes) < FIGHTERS:  # each character fights once until everyone has
            heroes = chooser.sample(range(characters), characters)
        fighters = [heroes.pop() for _ in range(FIGHTERS)]
        for author, body in _fight_bodies(chooser, fighters, per_post):
            if written >= tags:
                break
            comments.append(_comment(len(comments), author, body))
            written += body.count("[[")
    submission = {
        "kind": "t3",
        "data": {
            "name": "t3_bench",
            "id": "bench",
            "author": "gm",
            "selftext": "Bench thread",
            "created_utc": 1.7e9,
        },
    }
    document = [
        {"kind": "Listing", "data": {"children": [submission]}},
        {"kind": "Listing", "data": {"children": comments}},
    ]
    path.write_text(json.dumps(document))


def run_child(folder: Path, thread_path: Path) -> dict:
    start = time.perf_counter()
    cpu_start = time.process_time()
    thread = posts_from_thread(json.loads(thread_path.read_text()))
    campaign = Campaign(load_config(folder / "config.toml"), Secret(SECRET, "bench"))
    opened = time.perf_counter()
    with campaign:
        result = run_batch(Referee(campaign), thread)
    done = time.perf_counter()
    cpu = time.process_time() - cpu_start
    peak_kb = _peak_kb()
    return {
        "tags": result.tags,
        "problems": result.problems,
        "rolls": result.new_rolls,
        "seconds": done - start,
        "open_seconds": opened - start,
        "tags_per_second": result.tags / (done - start),
        # On a shared machine wall time counts other programs' turns; CPU time does not.
        "tags_per_cpu_second": result.tags / cpu,
        "peak_mb": peak_kb / 1024,
    }


def _peak_kb() -> int:
    """This process's peak resident memory in KB.

    /proc's VmHWM belongs to this program alone; getrusage's maxrss is kept across
    exec, so a child of a big parent would report the parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def notation_race(number: int) -> dict:
    import d20  # the dice library behind Avrae; a bench-only dependency

    with tempfile.TemporaryDirectory() as tmp, make_campaign(Path(tmp)) as campaign:
        context = Session(campaign).context(Post("t1_x", "t3_x", "bench", "", 0.0))
        parse_context = ParseContext()
        verbs = verbs_for(campaign.system)
        seeded = SeededDice(1)

        def ours_seeded() -> None:
            resolve_dice(parse_tag("roll 2d6+3", verbs, parse_context), context, seeded)

        def ours_hmac() -> None:
            resolve_dice(
                parse_tag("roll 2d6+3", verbs, parse_context), context, HmacDice(SECRET, "t1_x", 0)
            )

        def ours_bare() -> None:  # what d20.roll does: parse and roll, no odds, no verdict
            notation.roll_expression(notation.parse_expression("2d6+3"), seeded)

        def theirs() -> None:
            d20.roll("2d6+3")

        timings = {}
        functions = (
            ("referee", ours_seeded),
            ("referee_hmac", ours_hmac),
            ("referee_bare", ours_bare),
            ("d20", theirs),
        )
        for name, function in functions:
            timer = timeit.Timer(function, timer=time.process_time)  # CPU time: see notation_race
            timings[name] = min(timer.repeat(number=number, repeat=5)) / number * 1e6
        campaign.store.discard()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tags", type=int, default=20_000)
    parser.add_argument("--characters", type=int, default=2_000)
    parser.add_argument("--ledger", type=int, default=50_000)
    parser.add_argument("--child", nargs=2, metavar=("FOLDER", "THREAD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(Path(args.child[0]), Path(args.child[1]))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        build_campaign(folder, args.characters, args.ledger)
        build_thread(folder / "thread.json", args.tags, args.characters)
        output = subprocess.run(
            [sys.executable, __file__, "--child", str(folder), str(folder / "thread.json")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        run = json.loads(output.strip().splitlines()[-1])
    race = notation_race(20_000)
    print(
        f"| end to end: {run['tags']:,} tags, {args.ledger:,} ledger rows, "
        f"{args.characters:,} characters | {run['seconds']:.2f} s | "
        f"**{run['tags_per_second']:,.0f} tags/s** (bar: 5,000) |"
    )
    print(
        f"| the same in the process's CPU time (other programs' turns left out) | "
        f"{run['tags'] / run['tags_per_cpu_second']:.2f} s | "
        f"**{run['tags_per_cpu_second']:,.0f} tags per CPU second** |"
    )
    print(f"| of which loading the thread and opening the store | {run['open_seconds']:.2f} s | |")
    print(f"| peak memory of that process (RSS) | **{run['peak_mb']:.0f} MB** (bar: 300) | |")
    print(f"| rolls added / tags refused by the rules | {run['rolls']:,} / {run['problems']:,} | |")
    print(
        "| `[[roll 2d6+3]]` parse + resolve + exact odds, seeded dice | "
        f"{race['referee']:.1f} µs | "
        f"{race['referee'] / race['d20']:.2f}× d20 |"
    )
    print(
        f"| the same with the ledger's HMAC dice | {race['referee_hmac']:.1f} µs | "
        f"{race['referee_hmac'] / race['d20']:.2f}× d20 |"
    )
    print(
        f"| parse and roll only, as d20 does (no odds, no verdict) | "
        f"{race['referee_bare']:.1f} µs | {race['referee_bare'] / race['d20']:.2f}× d20 |"
    )
    print(f'| `d20.roll("2d6+3")` (Avrae\'s library) | {race["d20"]:.1f} µs | 1.00× |')


if __name__ == "__main__":
    main()
