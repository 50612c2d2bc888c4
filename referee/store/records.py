"""What the campaign remembers of each roll: whom it concerned, what it gave, how to undo it.

Every refereed post's record (the store's ``posts`` table) keeps, beside its reply,
one entry per resolved tag (:func:`roll_entry`): the roll id, the verb's kind, the
names of the characters the tag concerned and its result in a few words. That is
what ``[[history NAME]]`` reads, newest post first, without touching the ledger; the
shell's ``referee history`` streams the ledger itself (:func:`ledger_history`).

A tag's writes (:meth:`referee.store.changes.ChangeSet.written`) are kept as a field-level
difference (:func:`difference`), so ``[[void]]`` can undo that tag alone later, even
after other tags changed the same record (:func:`undo`).

>>> difference({"wounds": 0, "name": "Kara"}, {"wounds": 1, "name": "Kara"})
[[['wounds'], 0, 1, '']]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import orjson

from referee.base.names import name_key

HISTORY_SHOWN = 10  # rolls [[history NAME]] lists
HISTORY_SCAN = 2000  # newest posts [[history NAME]] looks through (the shell reads all)
# Verdicts that only looked something up: they concern nobody's history.
LOOKUP_KINDS = frozenset(
    {"records_sheet", "records_history", "records_pending", "records_roster", "help"}
)

# Facts of a ledger outcome, in the words a history line shows them.
_FLAGS = (
    ("hit", "hit", "miss"),
    ("success", "success", "failure"),
    ("wounded", "wounded", None),
    ("automatic_hit", "automatic hit", None),
)


def result_words(outcome: Mapping[str, Any]) -> str:
    """A ledger outcome in a few words: its total and what it decided.

    >>> result_words({"total": 14, "hit": True, "wounded": False})
    'total 14, hit'
    >>> result_words({"changes": [{"name": "Trooper 1", "state": "dead"}]})
    'Trooper 1: state dead'
    """
    words: list[str] = []
    if "total" in outcome:
        words.append(f"total {outcome['total']}")
    for key, yes, no in _FLAGS:
        if key in outcome:
            word = yes if outcome[key] else no
            if word:
                words.append(word)
    for change in outcome.get("changes", ())[:3]:
        if isinstance(change, Mapping) and "name" in change:
            facts = ", ".join(f"{k} {v}" for k, v in change.items() if k != "name")
            words.append(f"{change['name']}: {facts}" if facts else str(change["name"]))
    return ", ".join(words) or "done"


def names_in(
    text: str,
    known: Iterable[str],
    first_words: Any = None,
    starts: Any = None,
    longest: int = 6,
) -> list[str]:
    """The known names (keys) a tag's text mentions, in the order they appear.

    ``known`` holds name keys (:func:`referee.base.names.name_key`); ``first_words`` maps a
    leading word run to the keys it starts (a ``NameIndex.resolve``-like callable), so
    ``Kara`` counts for Kara Venn when no other name starts so. ``starts``, the first
    words of the known names, lets every other word be passed over at once; ``longest``,
    the most words a known name has (at most 6 are tried), saves trying longer runs.

    >>> names_in("shoot Kara -> Trooper 1 head", {"kara venn", "trooper 1"},
    ...          lambda k: "kara venn" if k == "kara" else None)
    ['kara venn', 'trooper 1']
    """
    known = known if isinstance(known, (set, frozenset, dict)) else set(known)
    words = name_key(text.replace("->", " ").replace(",", " ").replace(":", " ")).split(" ")
    found: dict[str, None] = {}
    i = 0
    while i < len(words):
        step = 1
        if starts is not None and words[i] not in starts:
            i += 1
            continue
        for count in range(min(longest, 6, len(words) - i), 0, -1):
            key = " ".join(words[i : i + count])
            match = key if key in known else first_words(key) if first_words else None
            if match:
                found[match] = None
                step = count
                break
        i += step
    return list(found)


def headline(result: Any, depth: int = 3) -> dict[str, Any]:
    """A system's result's ``total`` and ``band`` (or ``outcome``), looked for a few levels down.

    Systems keep their own result shapes (edge: ``verdict.move.plain.total``); a
    history line wants the number and the word, wherever they are.
    """
    found: dict[str, Any] = {}
    level = [result]
    for _ in range(depth):
        following = []
        for value in level:
            for name in ("total", "band", "outcome"):
                item = getattr(value, name, None)
                if item is not None and name not in found and type(item) in (int, str, float):
                    found[name] = item
                elif item is not None and name not in found and hasattr(item, "value"):
                    found[name] = str(item.value)
            names = _field_names(type(value))
            if names:
                following += [getattr(value, name) for name in names]
        if "total" in found:
            break
        level = [v for v in following if _field_names(type(v))]
    return found


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # a type -> its dataclass fields (or none)


def _field_names(kind: type) -> tuple[str, ...]:
    """The field names of a dataclass type (empty for any other type), looked up once."""
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = tuple(f.name for f in fields(kind)) if is_dataclass(kind) else ()
        _FIELD_NAMES[kind] = names
    return names


def roll_entry(
    roll_id: str, kind: str, names: Iterable[str], outcome: Mapping[str, Any], result: Any = None
) -> dict:
    """One resolved tag as the post's record keeps it, for ``[[history]]``."""
    words = result_words(outcome)
    if words == "done" and result is not None:
        extra = headline(result)
        words = ", ".join(f"{k} {v}" if k == "total" else str(v) for k, v in extra.items()) or words
    return {"id": roll_id, "kind": kind, "names": list(names), "result": words}


# -- undoing a tag -------------------------------------------------------------------


ADDED, REMOVED = "added", "removed"  # a field the tag added, or took away, whole


def difference(before: Any, after: Any, path: list[str] | None = None) -> list[list[Any]]:
    """What changed from ``before`` to ``after``: ``[path, old, new]`` per changed field.

    Dicts are compared key by key; anything else (numbers, strings, lists) is one
    field. A fourth item says how: ``""`` changed, ``"added"`` or ``"removed"`` whole,
    so an undo takes an added key out but gives a field that held ``None`` its ``None``
    back. (Undo data kept before the fourth item has three: a ``None`` there meant the
    key was taken out.) A record the tag created or deleted is one entry with an empty
    path.

    >>> difference({"winner": None}, {"winner": "Kara", "turn": 1})
    [[['winner'], None, 'Kara', ''], [['turn'], None, 1, 'added']]
    """
    path = path or []
    if isinstance(before, dict) and isinstance(after, dict):
        changed: list[list[Any]] = []
        for key in dict.fromkeys((*before, *after)):
            if key in before and key in after:
                if before[key] != after[key]:
                    changed += difference(before[key], after[key], [*path, key])
            elif key in after:
                changed.append([[*path, key], None, after[key], ADDED])
            else:
                changed.append([[*path, key], before[key], None, REMOVED])
        return changed
    return [[path, before, after, ""]] if before != after else []


@dataclass(frozen=True)
class Undone:
    """What undoing one record's changes did."""

    record: dict[str, Any] | None  # the record to store (None: delete it)
    kept: tuple[str, ...]  # fields changed again since, left as they are now (for the GM)


def undo(current: dict[str, Any] | None, changes: list[list[Any]]) -> Undone:
    """Take ``changes`` (from :func:`difference`) back out of the record as it is now.

    A field still holding what the tag wrote goes back to what it was (taken out if the
    tag added it); a number changed again since keeps the later change (``wounds`` 0→1
    by the voided tag, then 1→2: back to 1); any other field changed since is left and
    named in ``kept``. A record the tag created goes, unless later tags changed it since:
    then what they did is kept, and the record is named in ``kept``.

    >>> undo({"wounds": 2}, [[["wounds"], 0, 1]]).record
    {'wounds': 1}
    >>> undo({"state": "fled"}, [[["state"], "fighting", "dead"]]).kept
    ('state',)
    >>> undo({"winner": "Kara"}, [[["winner"], None, "Kara", ""]]).record
    {'winner': None}
    >>> undo({"winner": "Kara"}, [[["winner"], None, "Kara", "added"]]).record
    {}
    >>> undo({"tasks": 2}, [[[], None, {"tasks": 1}]])
    Undone(record={'tasks': 2}, kept=('the record',))
    """
    kept: list[str] = []
    for path, old, new, *how in changes:
        if not path:  # the tag created (or deleted) the whole record
            if old is None:
                if current is None or current == new:
                    return Undone(None, ())
                return Undone(current, ("the record",))  # later tags' changes stand
            return Undone(old, ()) if current is None else Undone(current, ("the record",))
        if current is None:
            kept.append(".".join(map(str, path)))
            continue
        parent: Any = current
        for key in path[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict):
            kept.append(".".join(map(str, path)))
            continue
        last = path[-1]
        now = parent.get(last)
        if now == new and (last in parent or how == [REMOVED]):
            # A field the tag added goes; one that held None gets None back (undo data
            # without the fourth item, kept before it, took a None out: as it did then).
            if old is None and how in ([ADDED], []):
                parent.pop(last, None)
            else:
                parent[last] = old
        elif _number(now) and _number(old) and _number(new):
            parent[last] = now - (new - old)
        else:
            kept.append(".".join(map(str, path)))
    return Undone(current, tuple(kept))


def _number(value: Any) -> bool:
    return type(value) in (int, float)


# -- the ledger, streamed ------------------------------------------------------------

GONE_KINDS = ("deleted", "removed")  # ledger rows recording a refereed post's disappearance


def row_names(row: Mapping[str, Any]) -> list[str]:
    """The name keys a ledger row concerns (rows before names were recorded: none)."""
    outcome = row.get("outcome") or {}
    names = outcome.get("names") if isinstance(outcome, Mapping) else None
    return [str(name) for name in names] if isinstance(names, list) else []


def history_lines(
    ledger: Any, name: str | None = None, post: str | None = None, gone_only: bool = False
) -> Iterator[Mapping[str, Any]]:
    """:func:`ledger_history` of a store's ledger, parsing only the rows that may match.

    A row about ``name`` holds each word of its key (in its names, or its tag) and a row
    of ``post`` its id, case aside, so the ledger is searched for those words as bytes,
    a megabyte at a time (:meth:`~referee.store.tables.Ledger.lines_holding`), and only
    the rows holding them are read: a character's history over 200,000 rows costs a
    search of the file, not 200,000 rows decoded. A word bytes cannot stand for (one
    with characters outside ASCII, or that JSON escapes) reads every row instead.
    """
    wanted = post.partition("_")[2] if post and "_" in post else post
    keys = [key for key in (name_key(name) if name else "", (wanted or "").lower()) if key]
    pieces = [_words(key) for key in keys]
    words = [word for piece in pieces for word in piece] if pieces and all(pieces) else []
    lines = ledger.lines_holding(words) if words else ledger.lines()
    return ledger_history(map(orjson.loads, lines), name, post, gone_only)


def _words(key: str) -> list[bytes]:
    """The words of ``key`` as bytes a row's JSON holds as they are, or [] if it cannot."""
    if not key.isascii() or any(c in key for c in '"\\') or not key.isprintable():
        return []
    return [word.encode() for word in key.split()]


def ledger_history(
    rows: Iterable[Mapping[str, Any]],
    name: str | None = None,
    post: str | None = None,
    gone_only: bool = False,
) -> Iterator[Mapping[str, Any]]:
    """The ledger rows about ``name`` (a key or first words) and/or ``post``, streamed.

    ``post`` matches a fullname (``t1_abc``) or a bare id (``abc``); ``gone_only``
    keeps only the rows recording a deleted or removed post.
    """
    key = name_key(name) if name else None
    wanted_post = post.partition("_")[2] if post and "_" in post else post
    for row in rows:
        if gone_only and row.get("kind") not in GONE_KINDS:
            continue
        if wanted_post and str(row.get("post", "")).partition("_")[2] != wanted_post:
            continue
        if key is not None:
            names = row_names(row)
            if not any(n == key or n.startswith(key + " ") for n in names) and (
                names or key not in name_key(str(row.get("tag", "")))
            ):
                continue
        yield row
