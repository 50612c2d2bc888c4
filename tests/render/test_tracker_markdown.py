"""referee.render.tracker_markdown writes exactly what the tracker's Jinja macros wrote.

tests/golden/tracker_macros_reference.md.j2 holds tracker_macros.md.j2 as it was before
the functions replaced them (the reference). Every piece is compared, as the function
writes it and as the kept macro does, for trackers with and without a fight begun,
shared scores, conditions with and without rounds, ended conditions and names
Markdown would act on.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from referee.render.environment import make_environment
from referee.resolve import tracker
from referee.resolve.tracker import Condition, Expiry, Tracker
from referee.resolve.tracker_verbs import TrackerResult

REFERENCE_MACROS = (
    Path(__file__).parents[1] / "golden" / "tracker_macros_reference.md.j2"
).read_text()


def _piece(name: str, argument: str) -> str:
    """One piece three ways: the reference macro, the filter, the kept macro."""
    macro = f"{name}({argument})"
    ways = (f"m.{macro}", f"{argument}|tracker_{name}", f"kept.{macro}")
    return "\x1e".join("{{ " + way + " }}" for way in ways) + "\x1d\n"


PIECES = "".join(
    [
        '{% import "reference" as m %}{% import "tracker_macros.md.j2" as kept %}\n',
        _piece("whose", "t"),
        _piece("order", "t"),
        _piece("expired", "r"),
        "{% for turn in t.groups %}" + _piece("names", "turn"),
        "{% for c in turn.combatants %}" + _piece("conditions", "c"),
        "{% endfor %}{% endfor %}",
    ]
)


def _trackers() -> list[Tracker]:
    empty = Tracker()
    fight = Tracker()
    for name, score in [("Kara", 17), ("Goblin *1*", 14), ("Dax [[x]]", 14), ("u/admin", 9)]:
        fight = tracker.add(fight, name, score)
    started = tracker.advance(fight).tracker
    second = tracker.advance(started).tracker
    stunned, _ = tracker.set_condition(second, "Kara", "stunned", 2, "gm")
    prone, _ = tracker.set_condition(stunned, "Kara", "prone_*x*", None, "gm")
    long_name, _ = tracker.set_condition(prone, "u/admin", "a " * 40, 1, "p")
    last = tracker.advance(tracker.advance(long_name).tracker).tracker
    gone = tracker.remove(second, "Goblin *1*")
    gone = tracker.remove(gone, "Dax [[x]]")  # the current turn left: no current turn
    return [empty, fight, started, second, stunned, prone, long_name, last, gone]


@pytest.mark.parametrize("number", range(len(_trackers())))
def test_each_piece_reads_as_the_macro_wrote_it(number: int) -> None:
    t = _trackers()[number]
    ended = (
        Expiry("Kara", Condition("stunned", 2, 3, 14)),
        Expiry("Dax [[x]]", Condition("on *fire*")),
    )
    environment = make_environment()
    environment.loader = jinja2.ChoiceLoader(
        [jinja2.DictLoader({"reference": REFERENCE_MACROS}), environment.loader]
    )
    text = environment.from_string(PIECES).render(
        t=t, r=TrackerResult("next", t, expired=ended if number % 2 else ())
    )
    pieces = [piece.lstrip("\n") for piece in text.split("\x1d")[:-1]]
    assert len(pieces) == 3 + len(t.groups) + len(t.combatants)
    assert any("\n" in piece for piece in pieces) == bool(t.combatants)  # the order is read
    for piece in pieces:
        reference, function, macro = piece.split("\x1e")
        assert function == reference
        assert macro == reference
