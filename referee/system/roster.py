"""The campaign's characters for one run, as a system's sheet format reads them.

:class:`SheetFormat` is what a system gives for its sheets; :class:`Roster` parses each
stored record once with it, finds characters by name (whole, by first words, or a
suggestion for a slip) and writes changed characters back through the tag's change set.

May import: :mod:`referee.store` and :mod:`referee.base` only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from referee.base.errors import NoSuchCharacter, UnknownName
from referee.base.names import NameIndex
from referee.store.changes import Table
from referee.store.entries import character_key, store_entry
from referee.system.visibility import hidden_keys


@runtime_checkable
class SheetFormat(Protocol):
    """A system's character sheet: the application format, parsing, validation, storage."""

    form: str  # what a player reads when the sheet is missing or wrong: the lines to write

    def parse(self, text: str, limits: Any, kind: str = "pc") -> dict[str, Any]:
        """The sheet text of an application -> a record; raise UserError listing every problem.

        ``kind`` says whose sheet it is: ``"pc"`` for a player's application, ``"npc"`` for a
        sheet a GM imports. A system may let a GM's sheet set what a player's may not (a
        tough NPC's wound track, say); the record's ``kind`` is the one given.
        """
        ...

    def from_record(self, record: Mapping[str, Any]) -> Any:
        """A stored (or parsed) record -> the system's character value (it has a ``.name``)."""
        ...

    def to_record(self, character: Any) -> dict[str, Any]:
        """The character -> the JSON record the store keeps (its per-character state included)."""
        ...

    def validate(self, character: Any, rules: Any) -> list[str]:
        """Every way the character breaks the rules, each a sentence; empty when it is legal."""
        ...

    def amend(self, character: Any, amendment: str) -> tuple[Any, str]:
        """Apply one GM amendment of ``[[approve with ...]]``; the new character, in words."""
        ...


class Roster:
    """The campaign's characters for one run: parsed once by the system's sheet, written back.

    Records are the store's entries (name, owner, approval and the system's ``sheet``);
    the system's :class:`~referee.system.SheetFormat` turns a sheet into its character.
    """

    def __init__(
        self,
        table: Table,
        sheet: SheetFormat,
        named: Iterable[Table] = (),
        visibility: Table | None = None,
    ) -> None:
        self._table = table
        self._sheet = sheet
        self._named = tuple(named)  # the system's other named tables (crafts), for suggestions
        self._visibility = visibility  # referee.system.visibility's table: who is hidden
        self._parsed: dict[str, Any] = {}
        # The visibility hook: a stored record -> whether a misspelt name may suggest it.
        # A roster that hides NPCs from players sets it for a player's post.
        self.suggestable: Callable[[dict[str, Any]], bool] = _always
        # For the post being resolved (set by the session): whether a name may find a
        # character known to the GMs only (a GM's post), and whether one may be
        # suggested for a misspelt name (a GM's private message: nobody else reads it).
        self.finds_hidden = True
        self.sees_hidden = True
        self.forget()

    def forget(self) -> None:
        """Re-read the table (after a change set was rolled back)."""
        # Records are read from the table when first needed, never the whole roster at once.
        self._records: dict[str, dict[str, Any]] = {}
        self._parsed = {}
        # First words and misspellings found at a cost that does not grow with the roster.
        self._index = NameIndex(self._table.keys())
        self._names: frozenset[str] | None = None  # made when first asked, kept until a change
        self._everything: NameIndex | None = None  # characters and crafts, at the first typo
        self._starts: tuple[frozenset[str], frozenset[str]] | None = None  # see name_starts
        self._visible_names: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None
        self._longest: tuple[frozenset[str], int] | None = None  # see longest_name
        self._hidden = (
            hidden_keys(self._visibility) if self._visibility is not None else frozenset()
        )

    @property
    def hidden(self) -> frozenset[str]:
        """The keys of the characters known to the GMs only (see referee.system.visibility)."""
        return self._hidden

    def hide(self, key: str, hidden: bool) -> None:
        """Note that ``key`` is now hidden (or public): the visibility table changed."""
        self._hidden = self._hidden | {key} if hidden else self._hidden - {key}

    def _visible(self, key: str) -> bool:
        return self.finds_hidden or key not in self._hidden

    def _suggestable(self, key: str) -> bool:
        return self.sees_hidden or key not in self._hidden

    @property
    def name_starts(self) -> frozenset[str]:
        """The first words of every character's name (which words may start a name)."""
        names = self.known_names
        if self._starts is None or self._starts[0] is not names:
            self._starts = (names, frozenset(name.split(" ", 1)[0] for name in names))
        return self._starts[1]

    @property
    def known_names(self) -> frozenset[str]:
        """Every character's name a tag of this post may hold, casefolded (for splitting
        names out of tags): a player's leaves out the characters known to the GMs only."""
        if self._names is None:
            self._names = frozenset(self._table.keys())
        if self._hidden and not self.finds_hidden:
            # Kept while both sides stay the same objects: a player's every tag asks.
            visible = self._visible_names
            if visible is None or visible[0] is not self._names or visible[1] is not self._hidden:
                visible = (self._names, self._hidden, self._names - self._hidden)
                self._visible_names = visible
            return visible[2]
        return self._names

    @property
    def longest_name(self) -> int:
        """The most words any character's name has (hidden ones too): no name is longer."""
        self.known_names  # noqa: B018 - makes self._names
        names = self._names or frozenset()
        if self._longest is None or self._longest[0] is not names:
            self._longest = (names, max((name.count(" ") + 1 for name in names), default=1))
        return self._longest[1]

    def __contains__(self, name: str) -> bool:
        return character_key(name) in self._table

    def holder(self, name: str) -> dict[str, Any] | None:
        """The stored record holding ``name``'s key, whoever may see it (for name clashes)."""
        key = character_key(name)
        return self._records.get(key) or self._table.get(key)

    def finds(self, name: str) -> bool:
        """Whether this post may know of the character named exactly ``name``."""
        return self._visible(character_key(name))

    def add(self, character: Any, owner: str | None, approved: bool) -> None:
        """Put a new (or re-approved) character on the roster."""
        key = character_key(character.name)
        record = store_entry(character.name, owner, approved, self._sheet.to_record(character))
        self._records[key] = record
        self._parsed[key] = character
        self._index.add(key)
        if self._everything is not None:
            self._everything.add(key)
        self._names = None
        self._table.put(key, record)

    def record(self, name: str) -> dict[str, Any]:
        """The stored record (owner, approval and sheet) of the character ``name`` refers to."""
        return self._record(self.key(name))

    def find(self, name: str) -> Any:
        """The character a player means by ``name``: exact, else the only one it starts."""
        key = self.key(name)
        if key not in self._parsed:
            self._parsed[key] = self._sheet.from_record(self._record(key)["sheet"])
        return self._parsed[key]

    def key(self, name: str) -> str:
        """The store key ``name`` means; UnknownName (with close names) if none or several."""
        key = character_key(name)
        if key in self._table and self._visible(key):
            return key
        starting = tuple(k for k in self._index.starting(key) if self._visible(k))
        if len(starting) == 1:
            return starting[0]
        if starting:
            # Names the visibility hook hides are not listed (nor counted) to the asker.
            records = [self._record(k) for k in starting[:20]]
            listed = [str(r["name"]) for r in records if self.suggestable(r)][:5]
            shown = ", ".join(listed) if listed else "more than one character's name starts so"
            raise UnknownName(f"{name} is ambiguous: {shown} — write the full name.")
        raise NoSuchCharacter(f"No character is named '{name}'.{self.suggestion(key)}", name)

    def suggestion(self, key: str) -> str:
        """ " Did you mean X or Y?" for a misspelt name (characters and crafts), or what to do.

        Accents and typing slips are forgiven (:meth:`NameIndex.suggest`); names the
        :attr:`suggestable` hook refuses (hidden NPCs) are never offered.
        """
        shown = self.close_names(key)
        if shown:
            return f" Did you mean {' or '.join(shown)}?"
        return (
            " Check the spelling; a GM adds characters by approving an [[apply]] or with "
            "[[npc ...]]."
        )

    def close_names(self, key: str, *, named_only: bool = False) -> list[str]:
        """The names ``key`` may be a misspelling of, closest first, that the asker may learn.

        Characters and the system's named tables (crafts); ``named_only``: those tables
        alone. Hidden names (see :attr:`suggestable`) are left out.
        """
        if self._everything is None:
            keys = list(self._table.keys())
            for table in self._named:
                keys.extend(table.keys())
            self._everything = NameIndex(keys)
        allowed = self._may_name_named if named_only else self.may_name
        shown = []
        for close in self._everything.suggest(key, allowed=allowed):
            record = self._lookup(close)
            if record is not None:
                shown.append(str(record.get("name", close)))
        return shown

    def _lookup(self, key: str) -> dict[str, Any] | None:
        """The record ``key`` names in the roster or a named table, if any."""
        record = self._records.get(key) or self._table.get(key)
        for table in self._named:
            if record is not None:
                break
            record = table.get(key)
        return record

    def may_name(self, key: str) -> bool:
        """Whether this post's answer may name the character or craft ``key`` holds.

        Not one known to the GMs only, unless a GM reads the answer alone.
        """
        record = self._lookup(key)
        return record is not None and self._suggestable(key) and self.suggestable(record)

    def _may_name_named(self, key: str) -> bool:
        in_named = any(key in table for table in self._named)
        return in_named and key not in self._table and self.may_name(key)

    def _record(self, key: str) -> dict[str, Any]:
        record = self._records.get(key)
        if record is None:
            record = self._table.get(key)
            if record is None:
                raise UnknownName(f"No character is named '{key}'.")
            self._records[key] = record
        return record

    def resolve_first(self, key: str) -> str | None:
        """The key ``key`` names exactly or by its first words alone, if visible; else None."""
        found = self._index.resolve(key)
        return found if found is not None and self._visible(found) else None

    def starting(self, key: str) -> tuple[str, ...]:
        """The character keys whose first words are ``key``'s (``kara`` -> ``kara venn``)."""
        return tuple(k for k in self._index.starting(key) if self._visible(k))

    def update(self, character: Any) -> None:
        """Keep a changed character, its owner and approval untouched."""
        key = character_key(character.name)
        record = {**self._record(key), "sheet": self._sheet.to_record(character)}
        self._records[key] = record
        self._parsed[key] = character
        self._table.put(key, record)


def _always(record: dict[str, Any]) -> bool:
    return True


def unique_prefix(key: str, keys: Iterable[str]) -> str | None:
    """The one key that starts with ``key`` and a space (a first name), or None.

    >>> unique_prefix("kara", ["kara venn", "dax orrel"]), unique_prefix("k", ["kara venn"])
    ('kara venn', None)
    """
    starting = [k for k in keys if k.startswith(key + " ")]
    return starting[0] if len(starting) == 1 else None
