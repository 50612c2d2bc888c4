"""config.toml's [reddit] keys: the range in which the bot answers within its bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.pipeline.campaign import load_config


def _problems(tmp_path: Path, reddit: str) -> str:
    """The message load_config gives for a [reddit] table ("" when it is accepted)."""
    path = tmp_path / "config.toml"
    path.write_text(f"[reddit]\n{reddit}")
    try:
        load_config(path)
    except ConfigError as error:
        return error.message
    return ""


@pytest.mark.parametrize(
    ("reddit", "refused"),
    [
        ("poll_seconds = 60\nactive_poll_seconds = 12\n", False),
        ("poll_seconds = 60\nactive_poll_seconds = 13\n", True),
        ("poll_seconds = 5\nactive_poll_seconds = 5\n", False),
        ("poll_seconds = 5\nactive_poll_seconds = 6\n", True),
        ("active_poll_seconds = 1.5\n", True),
    ],
)
def test_active_poll_seconds_runs_from_2_to_12(tmp_path: Path, reddit: str, refused: bool) -> None:
    """Reads of new comments slower than 12 s apart could not answer within 15 s."""
    message = _problems(tmp_path, reddit)
    assert refused == ("active_poll_seconds must be from 2 to 12" in message), message


@pytest.mark.parametrize(
    ("share", "subreddits", "threads", "refused"),
    [
        (0.2, '["a"]', 0, False),
        (0.2, '["a"]', 1, True),
        (0.2, "[]", 1, False),
        (0.2, "[]", 2, True),
        (0.6, '["a", "b"]', 2, False),  # one listing for all the subreddits
        (0.6, '["a"]', 3, True),
        (1.0, '["a"]', 4, False),
        (1.0, '["a"]', 5, True),
    ],
)
def test_each_0_2_of_budget_share_pays_for_one_source_of_new_comments(
    tmp_path: Path, share: float, subreddits: str, threads: int, refused: bool
) -> None:
    """The subreddits' listing and each watched thread cost a request a read: a share too
    small for them is refused, saying how many threads fit and how to make room."""
    names = ", ".join(f'"t{n}"' for n in range(threads))
    reddit = f"budget_share = {share}\nsubreddits = {subreddits}\nthreads = [{names}]\n"
    message = _problems(tmp_path, reddit)
    assert refused == ("reddit.threads" in message), message
    if refused:
        allowed = round(share / 0.2) - (1 if subreddits != "[]" else 0)
        assert f"watch at most {allowed} thread" in message
        assert "raise budget_share" in message


@pytest.mark.parametrize(
    ("reddit", "problem"),
    [
        ('subreddits = ["pbp"]\nthreads = ["a", "b", "c", "d"]\nonly_threads = true\n', ""),
        ('subreddits = ["pbp"]\ntitle_tag = "[Ashes]"\nonly_threads = true\n', ""),
        ('subreddits = ["pbp"]\nonly_threads = true\n', "give the subreddits and the threads"),
        ('threads = ["a"]\nonly_threads = true\n', "give the subreddits and the threads"),
        ('subreddits = ["pbp"]\ntitle_tag = "[Ashes]"\n', "set only_threads = true beside it"),
        ('subreddits = ["pbp"]\nthreads = ["a"]\nonly_threads = "yes"\n', "true or false"),
    ],
)
def test_only_threads_claims_threads_of_the_subreddits(
    tmp_path: Path, reddit: str, problem: str
) -> None:
    """only_threads needs subreddits and threads or a title tag; its threads cost no
    request of their own (four fit at 0.6); a title tag alone is refused, saying why."""
    message = _problems(tmp_path, reddit)
    assert (problem == "", True) == (message == "", problem in message), message
