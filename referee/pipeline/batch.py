"""Batch mode: referee a saved thread offline, exactly as the live worker would."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from referee.base.errors import ConfigError
from referee.base.files import read_text_bounded
from referee.base.limits import DEFAULT_LIMITS
from referee.base.markdown import escape_markdown
from referee.base.posts import Thread, posts_from_thread
from referee.pipeline.flow import Outcome, Referee


@dataclass(frozen=True)
class BatchResult:
    """Every post's outcome, in reading order."""

    thread: Thread
    outcomes: tuple[Outcome, ...]

    @property
    def tags(self) -> int:
        return sum(o.tags for o in self.outcomes)

    @property
    def problems(self) -> int:
        return sum(o.problems for o in self.outcomes)

    @property
    def new_rolls(self) -> int:
        return sum(o.new_rolls for o in self.outcomes)

    @property
    def failed(self) -> tuple[Outcome, ...]:
        """Posts the referee could not handle (each answered with the failure notice)."""
        return tuple(o for o in self.outcomes if o.failed)

    @property
    def replies(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.has_reply)


def load_thread(path: Path) -> Thread:
    """A saved thread from disk, with a message that says how to get one right."""
    try:
        text = read_text_bounded(path, DEFAULT_LIMITS.max_thread_file_bytes, "The thread file")
        document = json.loads(text)
    except FileNotFoundError as error:
        raise ConfigError(f"No file {path}. Give the path of a thread saved as JSON.") from error
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(
            f"{path} is not a JSON file ({error}). Save the thread's .json page."
        ) from error
    return posts_from_thread(document)


def run_batch(
    referee: Referee,
    thread: Thread,
    progress: Callable[[Iterable], Iterable] = lambda items: items,
) -> BatchResult:
    """Referee every post of a thread and flush the store once at the end.

    A reply a later post changed (a GM's ``[[void]]``) is given as it stands at the end,
    as the live bot would have edited it.
    """
    outcomes = [referee.referee(post) for post in progress(thread.posts)]
    amended = {name for outcome in outcomes for name in outcome.amended}
    if amended:
        for number, outcome in enumerate(outcomes):
            if outcome.post.fullname in amended:
                record = referee.posts.get(outcome.post.fullname) or {}
                outcomes[number] = replace(outcome, text=str(record.get("reply", outcome.text)))
    referee.campaign.store.flush()
    return BatchResult(thread, tuple(outcomes))


def batch_markdown(result: BatchResult) -> str:
    """All replies of a batch as one Markdown document, in thread order."""
    parts = [f"# Verdicts for {result.thread.submission.fullname}\n"]
    for outcome in result.replies:
        post = outcome.post
        parts.append(
            f"## Reply to {escape_markdown(post.author)} on {post.fullname}\n\n{outcome.text}"
        )
    return "\n".join(parts)
