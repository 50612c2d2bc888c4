"""Which campaign of a host a post of a shared subreddit belongs to: the campaigns' claims.

A campaign claims the whole of its subreddits, or (``[reddit] only_threads = true``)
only the threads listed in its ``[reddit] threads`` and those whose title starts with
its ``title_tag``; threads it watches one by one are its too. Several campaigns may
share a subreddit: at most one claims the whole of it and gets every thread no other
campaign claims; each of the others claims its threads::

    r/pbp   ashes   subreddits = ["pbp"]                      every other thread
            bells   subreddits = ["pbp"], threads = ["abc"],  thread abc only
                    only_threads = true
            crows   subreddits = ["pbp"], title_tag = "[Crows]",
                    only_threads = true                       "[Crows] Session 2", ...

A thread listed by id goes to the campaign listing it, whatever its title. Two
campaigns claiming the whole of one subreddit, or one thread, or title tags one of
which starts the other, clash: the host serves neither (:func:`clashes`) and says how
to fix it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.live.parts import thread_fullname
from referee.pipeline.campaign import RedditConfig


@dataclass(frozen=True)
class Claim:
    """What one campaign folder claims."""

    folder: Path
    whole: frozenset[str]  # subreddits (lowercase) of which it takes every unclaimed thread
    threads: frozenset[str]  # thread fullnames it claims by name
    tag: str = ""  # threads titled so (casefolded) it claims; "" for none


def claim_of(folder: Path, reddit: RedditConfig) -> Claim:
    """The claim of a campaign's ``[reddit]`` settings."""
    whole = () if reddit.only_threads else reddit.subreddits
    return Claim(
        folder,
        frozenset(sub.lower() for sub in whole),
        frozenset(thread_fullname(thread) for thread in reddit.threads),
        reddit.title_tag.casefold() if reddit.only_threads else "",
    )


def clashes(running: Sequence[Claim], new: Sequence[Claim]) -> dict[Path, str]:
    """The new campaigns the host must not serve, each with why and how to fix it.

    A new campaign clashing with a running one is refused (the running one goes on);
    two new ones clashing are both refused.
    """
    refused: dict[Path, str] = {}
    for number, claim in enumerate(new):
        for other in [*running, *new[:number]]:
            why = _clash(claim, other)
            if why is None:
                continue
            refused[claim.folder] = why
            if other in new:
                refused[other.folder] = _clash(other, claim) or why
    return refused


def _clash(claim: Claim, other: Claim) -> str | None:
    subs = sorted(claim.whole & other.whole)
    threads = sorted(claim.threads & other.threads)
    tags = sorted([claim.tag, other.tag], key=len)
    overlap = bool(tags[0]) and tags[1].startswith(tags[0])
    if not subs and not threads and not overlap:
        return None
    mine, theirs = claim.folder.name, other.folder.name
    if overlap:
        what = f"threads titled {tags[1]!r} (the title tags {' and '.join(map(repr, tags))})"
        if tags[0] == tags[1]:
            what = f"the threads titled {tags[0]!r} (the same title_tag)"
        fix = 'give each campaign a title_tag that does not start another\'s, such as "[Ashes]"'
    elif subs:
        what = f"the whole of {', '.join('r/' + sub for sub in subs)}"
        fix = (
            "give one of them only_threads = true in [reddit] of its config.toml, with its "
            "threads listed in threads, or move it to another subreddit"
        )
    else:
        what = f"the thread{'s' if len(threads) > 1 else ''} {', '.join(threads)}"
        fix = "list each thread in one campaign's [reddit] threads only"
    return (
        f"The campaigns in {mine} and {theirs} both claim {what}, so a post there could be "
        f"refereed twice and {mine} is not served. To fix it, {fix}, then reload the host."
    )


def excluded(folder: Path, claims: Iterable[Claim]) -> frozenset[str]:
    """The threads other campaigns claim by name: not this one's, even in its subreddits."""
    return frozenset(t for claim in claims if claim.folder != folder for t in claim.threads)


def excluded_tags(folder: Path, claims: Iterable[Claim]) -> tuple[str, ...]:
    """The title tags of the other campaigns: their threads are not this one's."""
    return tuple(sorted({c.tag for c in claims if c.folder != folder and c.tag}))
