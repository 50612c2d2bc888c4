"""Rolls in posts since deleted or removed: the line each later verdict of its character says.

When a refereed post turns out deleted (or removed), its rolls stand
(:meth:`referee.pipeline.flow.Referee._gone`), and the first verdict of each character
those rolls concerned, after that post in its thread, says so in one line: "Kara Venn
rolled abc123-1 (total 4) in a post by u/kara that was since deleted; that roll stands."

A repost is usually that verdict. One poll reads the new posts before it looks at the
old ones again, so a post deleted and written again in between is answered before the
deletion is seen: :func:`keep_notices` adds the line to the repost's stored reply (the
worker then edits it). A character with no later verdict yet gets it on the next one:
the thread keeps a notice, and :func:`notes_for` says it once.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from referee.base.markdown import escape_markdown
from referee.store.records import HISTORY_SCAN
from referee.store.store import Store

GONE_NOTICES = "gone_notices"  # thread -> rolls in posts since deleted, for the next verdicts


def keep_notices(
    store: Store,
    posts: Any,
    thread: str,
    gone: dict[str, Any],
    how: tuple[str, str],
    rolls: list[dict[str, Any]],
) -> tuple[str, ...]:
    """Put the line for each character of ``rolls`` (of the post record ``gone``, ``how``
    being its kind and author) on its first later verdict, or keep it for the next one.

    Returns the posts whose stored reply gained a line (their replies are to be edited).
    """
    kind, author = how
    table = store.table(GONE_NOTICES)
    notices = list((table.get(thread) or {}).get("notices", []))
    characters = store.table("characters")
    later = _later_verdicts(posts, thread, gone)
    amended: dict[str, None] = {}
    for entry in rolls:
        for key in entry.get("names", ()):
            name = str((characters.get(key) or {}).get("name", key))
            notice = {"key": key, "name": name, "roll": entry["id"], "result": entry.get("result")}
            notice |= {"kind": kind, "author": author}
            repost = next((fullname for fullname, keys in later if key in keys), None)
            if repost is None:
                notices.append(notice)
                continue
            record = posts.get(repost) or {}
            reply = with_note(str(record.get("reply", "")), gone_line(notice))
            posts.put(repost, {**record, "reply": reply})
            amended[repost] = None
    if notices:
        table.put(thread, {"notices": notices})
    return tuple(amended)


def _later_verdicts(
    posts: Any, thread: str, gone: dict[str, Any]
) -> list[tuple[str, frozenset[str]]]:
    """The public posts of ``thread`` written after ``gone``, oldest first, each with the
    characters its rolls concerned (among the newest HISTORY_SCAN posts)."""
    created = float(gone.get("created", 0.0))
    found = []
    for fullname in islice(posts.newest(), HISTORY_SCAN):
        record = posts.get(fullname)
        if (
            record is None
            or fullname == gone.get("post")
            or record.get("thread") != thread
            or record.get("private")
            or record.get("gone")
            or float(record.get("created", 0.0)) <= created
        ):
            continue
        keys = frozenset(
            key
            for entry in record.get("rolls", ())
            if isinstance(entry, dict)
            for key in entry.get("names", ())
        )
        if keys:
            found.append((float(record.get("created", 0.0)), fullname, keys))
    return [(fullname, keys) for _, fullname, keys in sorted(found)]


def notes_for(store: Store, thread: str, names: tuple[list[str], ...]) -> tuple[str, ...]:
    """One line per roll of a character in this post whose post was deleted: said once."""
    table = store.table(GONE_NOTICES)
    found = table.get(thread)
    if not found:
        return ()
    acting = {key for keys in names for key in keys}
    said, kept = [], []
    for notice in found.get("notices", []):
        if notice.get("key") in acting:
            said.append(gone_line(notice))
        else:
            kept.append(notice)
    if said:
        if kept:
            table.put(thread, {"notices": kept})
        else:
            table.delete(thread)
    return tuple(said)


def gone_line(notice: dict[str, Any]) -> str:
    """The line a later verdict of the character says about a roll in a gone post."""
    return (
        f"{notice['name']} rolled {notice['roll']} ({notice.get('result')}) in a "
        f"post by u/{notice.get('author')} that was since {notice.get('kind')}; "
        "that roll stands."
    )


def with_note(reply: str, note: str) -> str:
    """A stored reply with one more italic note, above its footer (where a reply's notes are).

    >>> with_note("Roll.\\n\\n---\\n^(referee)\\n", "Kara rolled 1.")
    'Roll.\\n\\n*Kara rolled 1\\\\.*\\n\\n---\\n^(referee)\\n'
    """
    line = f"*{escape_markdown(note, 500)}*\n\n"
    footer = reply.rfind("\n---\n^(referee")
    if footer < 0:
        return reply.rstrip("\n") + "\n\n" + line
    return reply[: footer + 1] + line + reply[footer + 1 :]
