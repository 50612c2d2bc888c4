"""Trikus resources (RULES.md §3.4-3.5): what an outcome costs or earns, as change sets.

Morale (+1 on Success, all lost on any Failure), Empowerment's Dark token and
Catastrophe, the Negotiation's Catastrophe, escape's Dark token, lost lines (R-20,
R-51), equipment traits, exhaustion and the party refresh (R-50), the Dark-Side fall
at 3 active Dark tokens, the Master's sacrifice and advancement. Each function
returns changes (:mod:`.changes`); :class:`Ledger` builds a change set while keeping
the party it leads to, so "loses all Morale" counts what he holds at that moment.

A lost line returns when R-51's count of refreshes, started at the Catastrophe, runs
out; a refresh that ends the very test of the Catastrophe (R-50 ``"after_test"``)
counts as the first. Meditation gives every active player (its user too) a Morale die
on each use; a Sith artifact a Dark token on each use; a black hole kills on Failure,
the one way a test kills (the seed's item list says so).

GM verbs over the state are here too (:func:`grant_light`, :func:`spend_dark`, ...):
each returns the changes, and RuleViolation when the state cannot take them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from referee.base.english import with_article
from referee.base.errors import RuleViolation
from referee.systems.trikus.changes import Change, ChangeKind, apply, line_change
from referee.systems.trikus.rulings import CatastropheLine, Rulings
from referee.systems.trikus.state import Character, Item, LineStatus, Party, Status, Tier, Trait

DARK_TO_FALL = 3


class Outcome(Enum):
    SUCCESS = "Success"
    FAILURE = "Failure"
    ESCAPED = "escaped"  # not a Failure: Morale kept, +1 Dark, out of the test
    NO_RESULT = "no result"  # cancelled by another's Success, or a dead tie
    OPTED_OUT = "opted out"  # "Mam złe przeczucia": the GM decides


@dataclass
class Ledger:
    """A change set under construction and the party it leads to (local to one resolution)."""

    party: Party
    changes: list[Change] = field(default_factory=list)

    def add(self, *changes: Change) -> None:
        for change in changes:
            self.party = apply(self.party, [change])
            self.changes.append(change)

    def character(self, name: str) -> Character:
        return self.party.character(name)


def use_items(ledger: Ledger, name: str, items: tuple[Item, ...]) -> None:
    """The on-use traits: Sith artifact (+1 Dark), meditation (Morale for all), one-use."""
    for item in items:
        for index, trait in enumerate(item.traits):
            if trait is Trait.SITH:
                ledger.add(Change(ChangeKind.DARK_GAINED, name, 1, f"{item.name} (Sith artifact)"))
            elif trait is Trait.MEDITATION:
                for other in ledger.party.active:
                    ledger.add(Change(ChangeKind.MORALE_GAINED, other.name, 1, item.name))
            elif trait is Trait.ONE_USE:
                ledger.add(Change(ChangeKind.ITEM_SPENT, name, 0, item.name))
            else:
                continue
            reveal(ledger, name, item, index)


def reveal(ledger: Ledger, name: str, item: Item, index: int) -> None:
    """A trait the owner did not know shows itself when it acts."""
    if not item.knows(index):
        ledger.add(Change(ChangeKind.TRAIT_REVEALED, name, index, item.name))


def failure_items(ledger: Ledger, name: str, items: tuple[Item, ...]) -> None:
    """Unreliable items are lost, and a black hole kills, when their owner fails."""
    for item in items:
        for index, trait in enumerate(item.traits):
            if trait is Trait.UNRELIABLE:
                reveal(ledger, name, item, index)
                ledger.add(Change(ChangeKind.ITEM_LOST, name, 0, item.name))
                break
            if trait is Trait.BLACK_HOLE:
                reveal(ledger, name, item, index)
                ledger.add(Change(ChangeKind.DEATH, name, 0, f"{item.name} (black hole)"))
                break


def gain_morale(ledger: Ledger, name: str) -> None:
    ledger.add(Change(ChangeKind.MORALE_GAINED, name, 1))


def lose_morale(ledger: Ledger, name: str) -> None:
    held = ledger.character(name).morale
    if held:
        ledger.add(Change(ChangeKind.MORALE_LOST, name, held))


def catastrophe(
    ledger: Ledger, name: str, used_line: int | None, rulings: Rulings, why: str
) -> None:
    """A Catastrophe: the narrative marker, then a line lost for R-51's refreshes (R-20)."""
    ledger.add(Change(ChangeKind.CATASTROPHE, name, 0, why))
    character = ledger.character(name)
    kept = [i for i, line in enumerate(character.lines) if line.status is not LineStatus.LOST]
    if not kept:
        return
    if rulings.catastrophe_line is CatastropheLine.USED and used_line in kept:
        index = used_line
    else:
        index = max(kept, key=lambda i: (character.lines[i].dice, -i))
    ledger.add(line_change(ChangeKind.LOSE_LINE, character, index, str(rulings.catastrophe_return)))


def escape(ledger: Ledger, name: str) -> None:
    ledger.add(Change(ChangeKind.ESCAPED, name), Change(ChangeKind.DARK_GAINED, name, 1, "escape"))


def advancements(party: Party, below: Tier, skip: str) -> list[Change]:
    """Every active character of a lower tier than ``below`` advances one tier."""
    return [
        Change(ChangeKind.ADVANCE, c.name, 0, c.tier.advanced().value)
        for c in party.active
        if c.name != skip and c.tier.rank < below.rank
    ]


def falls(ledger: Ledger) -> None:
    """Three active Dark tokens turn a character: he becomes the GM's, the lower tiers advance."""
    for character in ledger.party.active:
        if character.dark_active >= DARK_TO_FALL:
            ledger.add(Change(ChangeKind.FALL, character.name, 0, "3 active Dark tokens"))
            ledger.add(*advancements(ledger.party, character.tier, character.name))


def sacrifice(ledger: Ledger, took_part: tuple[str, ...]) -> None:
    """The Master's sacrifice: a player lost all dice to a master NPC.

    One player Master ("postać Mistrza … oddaje życie": one life, one tier for the
    rest): the first who fought dies; if none fought, the first falls to the Dark Side.
    Every character of a lower tier advances once. Without a player Master, nothing
    happens.
    """
    masters = [c for c in ledger.party.active if c.tier is Tier.MASTER]
    if not masters:
        return
    fought = [m for m in masters if m.name in took_part]
    if fought:
        master = fought[0]
        ledger.add(Change(ChangeKind.DEATH, master.name, 0, "the Master's sacrifice"))
    else:
        master = masters[0]
        ledger.add(Change(ChangeKind.FALL, master.name, 0, "did not fight the master"))
    ledger.add(*advancements(ledger.party, Tier.MASTER, master.name))


def refresh_if_due(ledger: Ledger) -> None:
    """All lines return when every active player is exhausted (R-50 decides when to call)."""
    if ledger.party.all_exhausted:
        ledger.add(Change(ChangeKind.REFRESH, "", 0, "every player is exhausted"))


# --- GM verbs over the state ----------------------------------------------------------


def grant_light(party: Party, name: str, count: int = 1) -> tuple[Change, ...]:
    _active(party, name)
    if count < 1:
        raise RuleViolation("Grant at least one Light token.")
    return (Change(ChangeKind.LIGHT_GRANTED, name, count, "granted by the GM"),)


def spend_dark(
    party: Party, name: str, count: int = 1, rulings: Rulings | None = None
) -> tuple[Change, ...]:
    """The GM spends Dark tokens: a Dark side comes into play. The detail says who picks
    which: the GM among the sides he sees, or (``gm_blind_dark``) the player."""
    character = party.character(name)
    if not 1 <= count <= character.dark_active:
        raise RuleViolation(
            f"{name} has {character.dark_active} active Dark tokens; spend 1 to that many."
        )
    if (rulings or Rulings()).gm_blind_dark:
        who = f"{name}'s player picks which of his hidden Dark sides plays"
    elif character.dark_sides:
        who = "the GM picks " + " or ".join(character.dark_sides)
    else:
        who = "the GM picks which Dark side plays"
    return (Change(ChangeKind.DARK_SPENT, name, count, who),)


def write_dark_side(
    party: Party, name: str, side: str, writer: str, rulings: Rulings
) -> tuple[Change, ...]:
    """Another player writes one of the party Master's Dark sides (``party_writes_master_dark``).

    ``writer`` is the poster's user name (a GM's is allowed); the Master's own player
    may not, as he wrote his one side in his application.
    """
    character = _active(party, name)
    if not rulings.party_writes_master_dark:
        raise RuleViolation(
            "In this campaign each player writes his own Dark sides (the ruling "
            "party_writes_master_dark is off)."
        )
    if rulings.gm_blind_dark:
        raise RuleViolation(
            "Dark sides are hidden from the GM in this campaign (gm_blind_dark): agree them "
            "with the Master's player away from the forum, which the GM reads."
        )
    if character.sides_due:
        raise RuleViolation(
            f"{name} has advanced: his player writes his new sides first with [[sides]]."
        )
    due = dark_sides_due(character, rulings)
    if not due:
        raise RuleViolation(f"{name} has no Dark side left for the party to write.")
    if writer.casefold() == character.player.casefold():
        raise RuleViolation(
            f"{name}'s player wrote his own Dark side; the other players write the other {due}."
        )
    if side.casefold() in {s.casefold() for s in (*character.dark_sides, *character.light_sides)}:
        raise RuleViolation(f"{name} already has the side {side}.")
    return (Change(ChangeKind.DARK_SIDE_WRITTEN, name, due - 1, side),)


def write_sides(
    party: Party, name: str, light: tuple[str, ...], dark: tuple[str, ...], rulings: Rulings
) -> tuple[Change, ...]:
    """After an advancement, the player writes his sides anew for his new tier (§3.5).

    Counts by tier (Beginner 3/1, Advanced 2/2, Master 1/3); a Master writes 1 Dark side
    under ``party_writes_master_dark`` (the party writes 2), none under ``gm_blind_dark``.
    """
    character = _active(party, name)
    if not character.sides_due:
        raise RuleViolation(
            f"{name}'s sides are written; a player writes them anew after an advancement."
        )
    want_light, want_dark = character.tier.sides
    if rulings.gm_blind_dark:
        want_dark = 0
    elif character.tier is Tier.MASTER and rulings.party_writes_master_dark:
        want_dark = 1
    problems = []
    if len(light) != want_light:
        problems.append(f"{want_light} Light side(s), not {len(light)}")
    if len(dark) != want_dark:
        hidden = " (`dark: hidden`: the GM must not see them)" if rulings.gm_blind_dark else ""
        problems.append(f"{want_dark} Dark side(s){hidden}, not {len(dark)}")
    named = [s.casefold() for s in (*light, *dark)]
    if len(set(named)) != len(named):
        problems.append("each side once")
    if problems:
        who = with_article(character.tier.value, capital=True)
        raise RuleViolation(f"{who} writes " + "; ".join(problems) + ".")
    return (
        Change(ChangeKind.SIDES_WRITTEN, name, 0, ", ".join(light)),
        Change(ChangeKind.SIDES_WRITTEN, name, 1, ", ".join(dark)),
    )


def dark_sides_due(character: Character, rulings: Rulings) -> int:
    """How many of a Master's Dark sides the other players still owe (0 unless
    ``party_writes_master_dark``, and 0 under ``gm_blind_dark``, which keeps none)."""
    if (
        character.tier is not Tier.MASTER
        or not rulings.party_writes_master_dark
        or rulings.gm_blind_dark
    ):
        return 0
    return max(character.tier.sides[1] - len(character.dark_sides), 0)


def set_morale(party: Party, name: str, count: int) -> tuple[Change, ...]:
    _active(party, name)
    if count < 0:
        raise RuleViolation("Morale cannot be negative.")
    return (Change(ChangeKind.SET_MORALE, name, count, "set by the GM"),)


def set_line(
    party: Party, name: str, index: int, status: LineStatus, refreshes: int = 0
) -> tuple[Change, ...]:
    """The GM edits one line (1-based index in messages, 0-based here)."""
    character = _active(party, name)
    if not 0 <= index < len(character.lines):
        raise RuleViolation(f"{name} has lines 1 to {len(character.lines)}.")
    if status is LineStatus.LOST and refreshes < 1:
        raise RuleViolation("A lost line needs the refreshes before it returns (1 or more).")
    detail = status.value + (f":{refreshes}" if status is LineStatus.LOST else "")
    return (line_change(ChangeKind.SET_LINE, character, index, detail),)


def line_of(character: Character, dice: int, status: LineStatus) -> int:
    """The index of ``character``'s line of ``dice`` dice a GM means (``2-die``): of several
    (a Beginner's three 1-die lines), the first not already ``status``."""
    same = [i for i, line in enumerate(character.lines) if line.dice == dice]
    if not same:
        sizes = ", ".join(f"{line.dice}-die" for line in character.lines)
        raise RuleViolation(f"{character.name} has no {dice}-die line (his lines: {sizes}).")
    return next((i for i in same if character.lines[i].status is not status), same[0])


def force_refresh(party: Party) -> tuple[Change, ...]:
    del party
    return (Change(ChangeKind.REFRESH, "", 0, "forced by the GM"),)


def renew_item(party: Party, name: str, item: str) -> tuple[Change, ...]:
    character = _active(party, name)
    found = character.item(item)
    if found is None or Trait.RENEWABLE not in found.traits or not found.spent:
        raise RuleViolation(f"{name} has no spent renewable item called {item}.")
    return (Change(ChangeKind.ITEM_RENEWED, name, 0, found.name),)


def advance(party: Party, name: str) -> tuple[Change, ...]:
    character = _active(party, name)
    if character.tier is Tier.MASTER:
        raise RuleViolation(f"{name} is already a Master.")
    return (Change(ChangeKind.ADVANCE, name, 0, character.tier.advanced().value),)


def fall(party: Party, name: str) -> tuple[Change, ...]:
    """The GM applies a Dark-Side fall: he turns, every lower tier advances."""
    ledger = Ledger(party)
    character = _active(party, name)
    ledger.add(Change(ChangeKind.FALL, name, 0, "applied by the GM"))
    ledger.add(*advancements(ledger.party, character.tier, name))
    return tuple(ledger.changes)


def apply_sacrifice(party: Party, took_part: tuple[str, ...]) -> tuple[Change, ...]:
    """The GM applies the Master's sacrifice (see :func:`sacrifice`)."""
    ledger = Ledger(party)
    if not any(c.tier is Tier.MASTER for c in party.active):
        raise RuleViolation("The party has no player Master to sacrifice.")
    sacrifice(ledger, took_part)
    return tuple(ledger.changes)


def _active(party: Party, name: str) -> Character:
    character = party.character(name)
    if character.status is not Status.ACTIVE:
        raise RuleViolation(f"{name} is {character.status.value}.")
    return character
