"""Change sets: what a test, a round or a GM verb does to the party, as explicit values.

Rules never mutate state: they return a tuple of :class:`Change`, which a verdict
shows line by line and :func:`apply` turns into the next :class:`~.state.Party`
through one handler per kind.

>>> from referee.systems.trikus.state import Character, Line, Party, Tier
>>> party = Party((Character("Ola", "u", Tier.MASTER, (Line(3),), morale=2),))
>>> apply(party, [Change(ChangeKind.MORALE_LOST, "Ola", 2)]).character("Ola").morale
0
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import Enum

from referee.systems.trikus.state import (
    Character,
    Line,
    LineStatus,
    Party,
    Status,
    Tier,
    line_name,
)


class ChangeKind(Enum):
    STRIKE_LINE = "strikes line"  # amount: the line's index
    LOSE_LINE = "loses line"  # amount: the line's index; detail: refreshes before it returns
    MORALE_SPENT = "spends Morale"
    MORALE_GAINED = "gains Morale"
    MORALE_LOST = "loses all Morale"
    LIGHT_SPENT = "spends Light"
    LIGHT_GRANTED = "receives Light"
    DARK_GAINED = "gains Dark"
    DARK_SPENT = "has Dark spent"  # detail: who picks the Dark side that plays
    DARK_SIDE_WRITTEN = "has a Dark side written"  # detail: the side; amount: sides still due
    SIDES_WRITTEN = "writes his sides anew"  # amount: 0 Light, 1 Dark; detail: "a, b"
    CATASTROPHE = "suffers a Catastrophe"  # the narrative marker; the line is LOSE_LINE
    ESCAPED = "escapes"
    ALLY_DIED = "loses ally"  # detail: the ally
    ITEM_SPENT = "spends item"  # detail: the item (one-use)
    ITEM_LOST = "loses item"  # detail: the item (unreliable)
    ITEM_RENEWED = "renews item"
    TRAIT_REVEALED = "discovers a trait"  # detail: the item; amount: the trait's index
    REFRESH = "refresh"  # the party's lines return
    FALL = "falls to the Dark Side"
    DEATH = "dies"
    ADVANCE = "advances"  # detail: the new tier
    SET_MORALE = "has Morale set to"  # GM edit; amount: the new count
    SET_LINE = "has line set"  # GM edit; amount: the index; detail: "free", "struck", "lost:N"


@dataclass(frozen=True)
class Change:
    """One change to the party; ``who`` is a character's name ("" for the party)."""

    kind: ChangeKind
    who: str = ""
    amount: int = 0
    detail: str = ""
    # A line's name for the verdict ("the 2-die line"; see state.line_name): not a fact
    # of the change, so equal changes stay equal whatever the words.
    label: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        """Whose change it is (the verdict's and ledger's view: ``referee.system.Change``)."""
        return self.who

    def ledger(self) -> dict[str, object]:
        """The facts a ledger row keeps.

        >>> Change(ChangeKind.MORALE_GAINED, "Ola", 1).ledger()
        {'kind': 'gains Morale', 'who': 'Ola', 'amount': 1, 'detail': ''}
        """
        return {
            "kind": self.kind.value,
            "who": self.who,
            "amount": self.amount,
            "detail": self.detail,
        }


def line_change(kind: ChangeKind, character: Character, index: int, detail: str = "") -> Change:
    """A change to one of ``character``'s lines, named for the verdict by its dice.

    >>> from referee.systems.trikus.state import Tier
    >>> kara = Character("Kara", "u", Tier.ADVANCED, (Line(2), Line(1)))
    >>> line_change(ChangeKind.STRIKE_LINE, kara, 1).label
    'the 1-die line'
    """
    return Change(kind, character.name, index, detail, line_name(character.lines, index))


def _on(character: Character, change: Change) -> Character:
    """A character's next value under one change (the per-character handlers)."""
    return _CHARACTER[change.kind](character, change)


def _line(character: Character, index: int, line: Line) -> Character:
    lines = tuple(line if i == index else old for i, old in enumerate(character.lines))
    return replace(character, lines=lines)


def _item(character: Character, name: str, **changes: object) -> Character:
    items = tuple(
        replace(item, **changes) if item.name == name else item  # type: ignore[arg-type]
        for item in character.equipment
    )
    return replace(character, equipment=items)


def _reveal(character: Character, change: Change) -> Character:
    items = []
    for item in character.equipment:
        if item.name == change.detail and item.known:
            known = tuple(k or i == change.amount for i, k in enumerate(item.known))
            item = replace(item, known=known)
        items.append(item)
    return replace(character, equipment=tuple(items))


def _set_line(character: Character, change: Change) -> Character:
    status, _, left = change.detail.partition(":")
    old = character.lines[change.amount]
    return _line(character, change.amount, Line(old.dice, LineStatus(status), int(left or 0)))


def _sides_written(character: Character, change: Change) -> Character:
    # The amount says which: 1 the Dark sides, 0 the Light ones; the detail lists them.
    sides = tuple(filter(None, change.detail.split(", ")))
    if change.amount:
        return replace(character, sides_due=False, dark_sides=sides)
    return replace(character, sides_due=False, light_sides=sides)


def _advance(character: Character, change: Change) -> Character:
    """The new tier's lines, free, but a line lost to a Catastrophe still waits for its
    refreshes ("Musi odczekać do kolejnego Wyczerpania"): each keeps one new line lost,
    of the same dice if the new tier has one, else the smallest.

    >>> from referee.systems.trikus.state import LineStatus
    >>> lost = Line(1, LineStatus.LOST, 2)
    >>> pawel = Character("Pawel", "u", Tier.BEGINNER, (Line(1), lost, Line(1)))
    >>> advanced = _advance(pawel, Change(ChangeKind.ADVANCE, "Pawel", 0, "advanced"))
    >>> [(line.dice, line.status.value, line.refreshes_left) for line in advanced.lines]
    [(2, 'free', 0), (1, 'lost', 2)]
    """
    tier = Tier(change.detail)
    lines = [Line(d) for d in tier.lines]
    for old in character.lines:
        if old.status is not LineStatus.LOST:
            continue
        free = [i for i, line in enumerate(lines) if line.status is LineStatus.FREE]
        if not free:
            break
        same = [i for i in free if lines[i].dice == old.dice]
        index = same[0] if same else min(free, key=lambda i: lines[i].dice)
        lines[index] = Line(lines[index].dice, LineStatus.LOST, old.refreshes_left)
    return replace(character, tier=tier, lines=tuple(lines), sides_due=True)


_CHARACTER: dict[ChangeKind, Callable[[Character, Change], Character]] = {
    ChangeKind.STRIKE_LINE: lambda c, ch: _line(
        c, ch.amount, Line(c.lines[ch.amount].dice, LineStatus.STRUCK)
    ),
    ChangeKind.LOSE_LINE: lambda c, ch: _line(
        c, ch.amount, Line(c.lines[ch.amount].dice, LineStatus.LOST, int(ch.detail))
    ),
    ChangeKind.MORALE_SPENT: lambda c, ch: replace(c, morale=c.morale - ch.amount),
    ChangeKind.MORALE_GAINED: lambda c, ch: replace(c, morale=c.morale + ch.amount),
    ChangeKind.MORALE_LOST: lambda c, ch: replace(c, morale=c.morale - ch.amount),
    ChangeKind.SET_MORALE: lambda c, ch: replace(c, morale=ch.amount),
    ChangeKind.LIGHT_SPENT: lambda c, ch: replace(c, light=c.light - ch.amount),
    ChangeKind.LIGHT_GRANTED: lambda c, ch: replace(
        c, light=c.light + ch.amount, light_received=c.light_received + ch.amount
    ),
    ChangeKind.DARK_GAINED: lambda c, ch: replace(
        c, dark_active=c.dark_active + ch.amount, dark_received=c.dark_received + ch.amount
    ),
    ChangeKind.DARK_SPENT: lambda c, ch: replace(
        c, dark_active=c.dark_active - ch.amount, dark_used=c.dark_used + ch.amount
    ),
    ChangeKind.DARK_SIDE_WRITTEN: lambda c, ch: replace(c, dark_sides=(*c.dark_sides, ch.detail)),
    ChangeKind.SIDES_WRITTEN: _sides_written,
    ChangeKind.CATASTROPHE: lambda c, ch: c,
    ChangeKind.ESCAPED: lambda c, ch: c,
    ChangeKind.ALLY_DIED: lambda c, ch: replace(
        c, allies=tuple(a for a in c.allies if a != ch.detail)
    ),
    ChangeKind.ITEM_SPENT: lambda c, ch: _item(c, ch.detail, spent=True),
    ChangeKind.ITEM_RENEWED: lambda c, ch: _item(c, ch.detail, spent=False),
    ChangeKind.ITEM_LOST: lambda c, ch: replace(
        c, equipment=tuple(i for i in c.equipment if i.name != ch.detail)
    ),
    ChangeKind.TRAIT_REVEALED: _reveal,
    ChangeKind.FALL: lambda c, ch: replace(c, status=Status.FALLEN),
    ChangeKind.DEATH: lambda c, ch: replace(c, status=Status.DEAD),
    ChangeKind.ADVANCE: _advance,
    ChangeKind.SET_LINE: _set_line,
}


def refreshed(party: Party) -> Party:
    """Every active character's struck lines free; lost lines one refresh nearer (R-51)."""

    def line(old: Line) -> Line:
        if old.status is LineStatus.STRUCK:
            return Line(old.dice)
        if old.status is LineStatus.LOST:
            left = old.refreshes_left - 1
            return Line(old.dice) if left <= 0 else Line(old.dice, LineStatus.LOST, left)
        return old

    characters = tuple(
        replace(c, lines=tuple(line(x) for x in c.lines)) if c.status is Status.ACTIVE else c
        for c in party.characters
    )
    return replace(party, characters=characters, refreshes=party.refreshes + 1)


def apply(party: Party, changes: Iterable[Change]) -> Party:
    """The party after ``changes``, in order."""
    for change in changes:
        if change.kind is ChangeKind.REFRESH:
            party = refreshed(party)
        else:
            party = party.with_character(_on(party.character(change.who), change))
    return party
