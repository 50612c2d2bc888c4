"""A system's ``roll`` joined to the core's: notation first, unless the system claims the text."""

from __future__ import annotations

import re

from referee.read.tags import RollDice, read_tag
from referee.system import ParseContext, Resolution, Verb


def _pool_roll(claims=None) -> Verb:
    return Verb(
        "roll",
        lambda rest, context: ("pool", rest),
        lambda request, context, dice: Resolution("pool", request),
        form="roll <dice> [diff N]",
        help="rolls a pool",
        example="roll 6 diff 7",
        claims=claims,
    )


class _OneVerbSystem:
    """A system of one verb: as a built-in, a value the verb table may be kept for."""

    def __init__(self, verb: Verb) -> None:
        self.verbs = (verb,)


def _read(text: str, verb: Verb):
    from referee.resolve.dispatch import verbs_for

    system = _OneVerbSystem(verb)
    return read_tag(text, ParseContext(), verbs_for(system))[1]  # type: ignore[arg-type]


def test_text_the_system_claims_is_read_by_the_system() -> None:
    """`roll 6 diff 7` is a pool when the system's roll claims a bare number."""
    verb = _pool_roll(lambda rest: re.match(r"[0-9]+(\s|$)", rest) is not None)
    assert ("pool", "6 diff 7") == _read("roll 6 diff 7", verb)


def test_notation_the_system_does_not_claim_stays_the_core_s() -> None:
    """`roll 2d6+3` is still the core's dice notation beside a claiming system roll."""
    verb = _pool_roll(lambda rest: re.match(r"[0-9]+(\s|$)", rest) is not None)
    assert "2d6+3" == _read("roll 2d6+3", verb).expression.text


def test_without_a_claim_a_number_is_dice_notation() -> None:
    """A system roll that claims nothing leaves `roll 6` to the core: a constant."""
    assert isinstance(_read("roll 6", _pool_roll()), RollDice)
