"""The initiative tracker's pieces of Markdown, for the templates that show a tracker.

``verdict_tracker``, ``turn_note`` and ``roster_initiative`` show whose turn it is and
the order; these functions write those pieces (template filters ``tracker_names``,
``tracker_whose``, ``tracker_order``, ``tracker_conditions``, ``tracker_expired``,
``tracker_skipped``: a filter is called directly, a global through the context's call
checks). They were Jinja macros: a ``[[next]]`` verdict called five of them and looped
over every combatant with a ``loop`` object, which cost as much as the rest of the verdict. ``tracker_macros.md.j2``
keeps its macros (a campaign's own template may import them), now calling these.

Every name passes through the ``md`` filter's :func:`referee.render.renderer.escape_markdown`.
"""

from __future__ import annotations

from typing import Any

from referee.base.markdown import escape_markdown as md
from referee.resolve.pace import when_words


def names(turn: Any) -> str:
    """The combatants of one turn: ``Kara & Dax``."""
    return " & ".join([md(c.name) for c in turn.combatants])


def whose(t: Any, until: float | None = None, overdue: bool = False) -> str:
    """Whose turn it is, until when, and who follows:
    ``round 2, **Kara**'s turn, until Tue 3 Dec 18:00 UTC; then Dax``."""
    current = t.current
    if current:
        upcoming = t.upcoming
        then = f"; then {names(upcoming)}" if upcoming and upcoming.score != current.score else ""
        ends = ""
        if until is not None:
            ends = f", {'its time ran out' if overdue else 'until'} {when_words(until)}"
        return f"round {t.round}, **{names(current)}**'s turn{ends}{then}"
    if t.round == 0:
        return "not begun: a GM starts it with " + md("[[next]]")
    return f"round {t.round}"


def conditions(c: Any) -> str:
    """A combatant's conditions: `` *stunned* until round 3, *prone*``."""
    return ",".join(
        f" *{md(k.name, 40)}*" + (f" until round {k.until_round}" if k.rounds else "")
        for k in c.conditions
    )


def order(t: Any) -> str:
    """The order as a numbered list, one line a turn, the current turn marked in bold."""
    lines = []
    for number, turn in enumerate(t.groups, start=1):
        people = " & ".join(
            [md(c.name) + (f" ·{conditions(c)}" if c.conditions else "") for c in turn.combatants]
        )
        if turn.score == t.turn:
            lines.append(f"{number}. **➤ {turn.score}: {people}**\n")
        else:
            lines.append(f"{number}. {turn.score}: {people}\n")
    return "".join(lines)


def expired(r: Any) -> str:
    """The conditions that ended as the turn moved: ``Kara is no longer *stunned*.``"""
    return " ".join(f"{md(e.name)} is no longer *{md(e.condition.name, 40)}*." for e in r.expired)


def skipped(r: Any) -> str:
    """The away combatants whose turns were passed over: ``Kara is away: passed over.``"""
    if not r.skipped:
        return ""
    who = " & ".join(md(name) for name in r.skipped)
    return f"{who} {'is' if len(r.skipped) == 1 else 'are'} away: passed over."


HELPERS = {
    "tracker_skipped": skipped,
    "tracker_names": names,
    "tracker_whose": whose,
    "tracker_order": order,
    "tracker_conditions": conditions,
    "tracker_expired": expired,
}
