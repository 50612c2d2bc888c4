"""Benchmark: what the worst tags a hostile player can write cost, against ordinary tags.

Run:  .venv/bin/python bench/hostile_cost.py [--per-class 10000] [--seed 2026]

Every tag goes through the whole pipeline (find, read, resolve, render, record) as a
post of its own, in a copy of each system's demo campaign after its demo thread has
been played, written by the GM, a player who owns a character, or a stranger in turn.
The hostile tags come in five classes, each spread over the five systems:

* ``notation``: characters of the dice notation's own alphabet, 20 to 120 long, bare
  and after ``roll``;
* ``long``: up to the longest tag read (2,000 characters) of notation, words and names;
* ``nested``: brackets of every kind nested deep, with dice and words between them;
* ``near-miss``: verbs and names misspelt by a letter or two, with random arguments;
* ``verbs``: every verb of every system with arguments drawn from its own words;
* ``costly dice``: rolls that read, sized so that their exact odds cost the most.

The ordinary tags are the ones the demo threads play, by their own authors, one after
each hostile tag of the same system, so both rates are taken under the same load. The report
gives, for each class, the worst and the 99th-percentile CPU time of one tag and tags
per CPU second; the worst post (each system's costliest tags of the run, up to 50 and
as many as fit in the 40,000 characters of a post); and the ratio of hostile to
ordinary tags per CPU second.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from referee.base.limits import DEFAULT_LIMITS  # noqa: E402
from referee.base.posts import Post, posts_from_thread  # noqa: E402
from referee.pipeline.campaign import Campaign  # noqa: E402
from referee.pipeline.flow import Referee  # noqa: E402
from referee.read.tags import find_tags  # noqa: E402
from referee.resolve.dispatch import verbs_for  # noqa: E402
from referee.testing.shipped import DATA, copy_repository_campaign, copy_shipped  # noqa: E402

SYSTEMS = ("stepped", "pool", "trikus", "edge", "hits")
NOTATION = "0123456789dDkKhHlLxX+-−*/%(),. "
SECRET = "bench-hostile-secret"
# The report's 60-character tag that once cost 99 s of CPU.
CRAFTED = "8−−h(H)6K(k9x(616h3lx(H4,h+/0,l%.5 8−−h(H)6K(k9x(616h3lx(H4"


def demo_folder(system: str, into: Path) -> Path:
    """A copy of ``system``'s demo campaign as a fresh clone has it (no store, no secret)."""
    if system == "stepped":
        return copy_repository_campaign(into / "stepped")
    return copy_shipped(DATA / "demos" / system, into / system)


def thread_posts(folder: Path) -> list[Post]:
    path = (
        folder / "thread.json"
        if (folder / "thread.json").exists()
        else folder / "data/demo/thread.json"
    )
    return list(posts_from_thread(json.loads(path.read_text())).posts)


class Collector:
    """The CPU time Python's cyclic garbage collector takes, and its longest pause.

    A full collection walks every object the process holds (here, five campaigns and
    the replies of tens of thousands of posts), whichever tag happens to trigger it:
    its pauses are reported on their own line, not as the cost of that tag.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.longest = 0.0
        self._start = 0.0
        gc.callbacks.append(self._observe)

    def _observe(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            pause = time.process_time() - self._start
            self.seconds += pause
            self.longest = max(self.longest, pause)


COLLECTOR = Collector()


class Table:
    """One system's demo campaign, its demo thread played, ready for more posts."""

    def __init__(self, system: str, root: Path) -> None:
        self.system = system
        self.folder = demo_folder(system, root)
        self.campaign = Campaign.open(self.folder)
        self.campaign.__enter__()
        self.referee = Referee(self.campaign)
        self.demo = thread_posts(self.folder)
        for post in self.demo:
            self.referee.referee(post)
        self.verbs = verbs_for(self.campaign.system)
        self.gm = sorted(self.campaign.config.gms)[0] if self.campaign.config.gms else "gm"
        owners = {post.author for post in self.demo} - {self.gm}
        self.player = sorted(owners)[0] if owners else "player"
        self.names = sorted(self.referee.session.roster.known_names)
        self.count = 0
        for verb in self.verbs.values():  # templates compiled and tables loaded, untimed
            self.cost(f"[[{verb.example}]]", self.gm)

    def cost(self, body: str, author: str) -> tuple[float, int]:
        """CPU seconds to referee ``body`` as a new post, and the tags it answered (at
        least 1: a tag written with brackets inside may read as several)."""
        self.count += 1
        post = Post(f"t1_h{self.count:x}", "t3_hostile", author, body, 1.8e9 + self.count)
        paused = COLLECTOR.seconds
        start = time.process_time()
        outcome = self.referee.referee(post)
        seconds = time.process_time() - start
        return seconds - (COLLECTOR.seconds - paused), max(1, outcome.tags)

    def plays(self) -> Iterator[tuple[str, str]]:
        """The demo thread's tags by their own authors, again and again: (author, text)."""
        while True:
            for post in self.demo:
                for tag in find_tags(post.body).tags:
                    yield post.author, tag.text

    def close(self) -> None:
        self.campaign.store.discard()
        self.campaign.__exit__(None, None, None)


# ------------------------------------------------------------------ the hostile classes


def _notation(chooser: random.Random, table: Table) -> str:
    text = "".join(chooser.choice(NOTATION) for _ in range(chooser.randint(20, 120)))
    return text if chooser.random() < 0.5 else f"roll {text}"


def _words(table: Table) -> list[str]:
    words = [verb.name for verb in table.verbs.values()] + table.names
    for verb in table.verbs.values():
        words += re.findall(r"[\w<>+\-*/:,.#]+", f"{verb.form} {verb.example}")
    return words


def _long(chooser: random.Random, table: Table) -> str:
    pool = _words(table) + list(NOTATION)
    parts: list[str] = [chooser.choice(list(table.verbs))] if chooser.random() < 0.7 else []
    while sum(len(part) + 1 for part in parts) < chooser.randint(500, 2000):
        parts.append(chooser.choice(pool))
    return " ".join(parts)[:2000]


def _nested(chooser: random.Random, table: Table) -> str:
    opening = "([{("
    closing = {"(": ")", "[": "]", "{": "}"}
    pool = ["1d6", "2d20kh1", "+", "-", "*", ",", "3", "k", "x", "Kara", "fire", " "]
    out: list[str] = [chooser.choice(["", "roll ", *[f"{v} " for v in table.verbs]])]
    stack: list[str] = []
    limit = chooser.randint(40, 1900)
    while len("".join(out)) < limit:
        roll = chooser.random()
        if roll < 0.4:
            bracket = chooser.choice(opening)
            stack.append(bracket)
            out.append(bracket)
        elif roll < 0.6 and stack:
            out.append(closing[stack.pop()] if chooser.random() < 0.9 else chooser.choice(")]}"))
        else:
            out.append(chooser.choice(pool))
    return "".join(out)[:2000]


def _misspell(chooser: random.Random, word: str) -> str:
    letters = list(word)
    for _ in range(chooser.randint(1, 2)):
        where = chooser.randrange(len(letters) + 1)
        change = chooser.random()
        if change < 0.4 and where < len(letters):
            letters[where] = chooser.choice("abcdefghijklmnopqrstuvwxyz")
        elif change < 0.7:
            letters.insert(where, chooser.choice("abcdefghijklmnopqrstuvwxyz"))
        elif where < len(letters):
            del letters[where]
    return "".join(letters) or word


def _near_miss(chooser: random.Random, table: Table) -> str:
    verb = chooser.choice(list(table.verbs))
    words = [_misspell(chooser, verb) if chooser.random() < 0.6 else verb]
    pool = _words(table)
    for _ in range(chooser.randint(1, 40)):
        word = chooser.choice(pool)
        words.append(_misspell(chooser, word) if chooser.random() < 0.5 else word)
    return " ".join(words)[:2000]


def _verbs(chooser: random.Random, table: Table) -> str:
    verb = chooser.choice(list(table.verbs.values()))
    own = re.findall(r"[\w<>+\-*/:,.#]+", f"{verb.form} {verb.example}") + table.names
    own += ["->", "vs", ",", "+", "-", str(chooser.randint(-(10**6), 10**6))]
    words = [chooser.choice(own) for _ in range(chooser.randint(0, 60))]
    return " ".join([verb.name, *words])[:2000]


def _costly_dice(chooser: random.Random, table: Table) -> str:
    """A roll that reads, sized to make its exact odds as costly as they may be."""
    count, sides = chooser.randint(10, 200), chooser.choice((6, 8, 10, 12, 20, 100))
    keep = f"kh{chooser.randint(1, count)}" if chooser.random() < 0.7 else ""
    extra = chooser.choice(("", "e6", "ro<3", "rr1", f"+{chooser.randint(1, 40)}d{sides}"))
    return f"roll {count}d{sides}{keep}{extra if sides >= 6 else ''}"


CLASSES: dict[str, Callable[[random.Random, Table], str]] = {
    "notation": _notation,
    "long": _long,
    "nested": _nested,
    "near-miss": _near_miss,
    "verbs": _verbs,
    "costly dice": _costly_dice,
}


def _authors(table: Table) -> Iterator[str]:
    while True:
        yield table.gm
        yield table.player
        yield "a_stranger"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=10_000, help="hostile tags per class")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--show", type=int, default=0, help="print the N costliest tags")
    parser.add_argument("--only", choices=tuple(CLASSES), help="one class alone")
    parser.add_argument("--spikes", type=float, default=0, help="show tags over this many ms")
    args = parser.parse_args(argv)
    os.environ["REFEREE_SECRET"] = SECRET
    chooser = random.Random(args.seed)
    worst: dict[str, list[tuple[float, str, str]]] = {system: [] for system in SYSTEMS}
    with tempfile.TemporaryDirectory() as root:
        tables = [Table(system, Path(root)) for system in SYSTEMS]
        # The campaigns' objects stay for the run: a full collection need not walk them
        # again and again (a pause no tag causes, which would pass for a tag's cost).
        gc.collect()
        gc.freeze()
        rows = []
        ordinary_cpu, ordinary_tags = 0.0, 0
        for name, make in CLASSES.items():
            if args.only and name != args.only:
                continue
            costs: list[float] = []
            answered = 0
            class_ordinary_cpu, class_ordinary_tags = 0.0, 0
            for table in tables:
                authors = _authors(table)
                plays = table.plays()
                for _ in range(args.per_class // len(tables)):
                    text = make(chooser, table)
                    author = next(authors)
                    seconds, read = table.cost(f"[[{text}]]", author)
                    if args.spikes and seconds * 1000 > args.spikes:
                        again, _ = table.cost(f"[[{text}]]", author)
                        print(
                            f"spike {seconds * 1000:.1f} ms, again {again * 1000:.1f} ms: "
                            f"{table.system} post {table.count - 1} {author} {text[:60]!r}"
                        )
                    costs.append(seconds)
                    answered += read
                    mine = worst[table.system]
                    if len(mine) < 50 or seconds > mine[-1][0]:
                        mine.append((seconds, author, text))
                        mine.sort(reverse=True)
                        del mine[50:]
                    # An ordinary tag after each hostile one: both rates under the same load.
                    ordinary_author, ordinary_text = next(plays)
                    seconds, read = table.cost(f"[[{ordinary_text}]]", ordinary_author)
                    class_ordinary_cpu += seconds
                    class_ordinary_tags += read
            rate = answered / sum(costs)
            ordinary_rate = class_ordinary_tags / class_ordinary_cpu
            ordinary_cpu += class_ordinary_cpu
            ordinary_tags += class_ordinary_tags
            rows.append((name, max(costs), _percentile(costs, 0.99), rate, ordinary_rate))
            print(
                f"{name:>10}: worst {max(costs) * 1000:7.2f} ms, p99 "
                f"{_percentile(costs, 0.99) * 1000:6.2f} ms, {rate:,.0f} tags per CPU second; "
                f"ordinary tags between them {ordinary_rate:,.0f} ({rate / ordinary_rate:.2f}x)",
                flush=True,
            )
        posts = []
        for table in tables:
            mine, length = [], 0  # the costliest tags that fit in one post
            for _, _, text in worst[table.system]:
                if length + len(text) + 5 <= DEFAULT_LIMITS.max_post_chars:
                    mine.append(text)
                    length += len(text) + 5
            if mine:
                seconds, _ = table.cost(" ".join(f"[[{text}]]" for text in mine), table.gm)
                posts.append((seconds, table.system, len(mine)))
        # And posts made by hand to cost the most: 50 tags of tangled notation (the
        # report's 60-character tag said again), each as long as 50 fit in one post; and
        # 50 different rolls, each as costly to count as a roll may be.
        width = DEFAULT_LIMITS.max_post_chars // 50 - 10
        costly = [f"[[roll {n}d20kh{n // 2 + k}]]" for n in range(25, 35) for k in range(-2, 3)]
        for table in tables:
            seconds, _ = table.cost(" ".join(costly), table.player)
            posts.append((seconds, f"{table.system}, 50 costly rolls", 50))
            tags = [
                f"[[{(CRAFTED + ' ') * (width // len(CRAFTED) + 1)}"[: width + 2] + f" {n}]]"
                for n in range(50)
            ]
            seconds, _ = table.cost(" ".join(tags), table.player)
            posts.append((seconds, f"{table.system}, crafted", 50))
        for seconds, system, count in sorted(posts, reverse=True):
            print(f"worst post ({system}, its {count} costliest tags): {seconds * 1000:.1f} ms")
        hostile_rate = sum(r[3] for r in rows) / len(rows) if rows else 0.0
        ordinary_rate = ordinary_tags / ordinary_cpu
        print(
            f"garbage collector: {COLLECTOR.seconds:.2f} s in all, its longest pause "
            f"{COLLECTOR.longest * 1000:.1f} ms (left out of the tags' figures)"
        )
        print(
            f"all hostile classes: worst {max(r[1] for r in rows) * 1000:.2f} ms, "
            f"mean rate {hostile_rate:,.0f} tags per CPU second; ordinary "
            f"{ordinary_rate:,.0f} ({ordinary_tags:,} tags; {hostile_rate / ordinary_rate:.2f}x)"
        )
        print("\n| class | worst tag | p99 | tags per CPU second | ordinary, same run | ratio |")
        print("|---|---|---|---|---|---|")
        for name, most, p99, rate, ordinary in rows:
            print(
                f"| {name} | {most * 1000:.1f} ms | {p99 * 1000:.2f} ms | {rate:,.0f} | "
                f"{ordinary:,.0f} | {rate / ordinary:.2f}x |"
            )
        worst_post = max(posts)
        print(
            f"| worst post ({worst_post[1]}, {worst_post[2]} tags) | {worst_post[0] * 1000:.1f} ms "
            "| | | | |"
        )
        costliest = sorted(
            (seconds, system, author, text)
            for system, mine in worst.items()
            for seconds, author, text in mine
        )[::-1]
        for seconds, system, author, text in costliest[: args.show]:
            print(f"{seconds * 1000:8.2f} ms  {system:7} {author:12} {text!r}")
        for table in tables:
            table.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
