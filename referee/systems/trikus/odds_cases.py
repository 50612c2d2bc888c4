"""The ``trikus`` duels the conformance kit checks: §3.8's table corners and declared policies.

Each :class:`~referee.system.OddsCase` pairs a player's exact chance of each end of his
pair (:func:`~.odds.end_chances`) with a sampler that plays the duel through
:func:`~.duel.play` itself, so 100,000 seeded duels check the recursion against the
very code that resolves a test by post.

>>> [case.name for case in odds_cases()][:2]
['1 line die vs GM 1', '2 line dice + 1 Morale, light=1, vs GM 3']
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from referee.base.dice import DiceSource
from referee.base.effort import Effort
from referee.system import OddsCase

from .duel import DieKind, Entrant, PairEnd, play
from .odds import end_chances
from .rulings import Consent, Rulings

REFERENCE_STEPS = 20_000_000


def _case(
    name: str, gm_dice: int, entrants: tuple[Entrant, ...], rulings: Rulings, player: int = 0
) -> OddsCase:
    """How ``player``'s pair ends (``"won"``, ``"lost"``, ``"escaped"``...), exactly."""
    # The kit's reference: counted in full, past a verdict's budget (these are small).
    ends = end_chances(gm_dice, entrants, rulings, effort=Effort(REFERENCE_STEPS, alone=True))
    distribution: dict[object, Fraction] = {
        end.value: chances[player] for end, chances in ends.items() if chances[player]
    }

    def sample(source: DiceSource) -> object:
        end: PairEnd = play(gm_dice, entrants, source, rulings).ends[player]
        return end.value

    return OddsCase(name, distribution, sample)


def odds_cases() -> list[OddsCase]:
    """One-on-one table corners, Morale and Light under a policy, escape, and team tests."""
    plain = Rulings()
    always = Rulings(negotiation_consent=Consent.ALWAYS)
    line = DieKind.LINE
    team = (Entrant("P", (line,)), Entrant("Z", (line,) * 2))
    resourced = Entrant("P", (line, line, DieKind.MORALE), light=1, escape=(1, 9))
    return [
        _case("1 line die vs GM 1", 1, (Entrant("P", (line,)),), plain),
        _case(
            "2 line dice + 1 Morale, light=1, vs GM 3",
            3,
            (Entrant("P", (line, line, DieKind.MORALE), light=1),),
            plain,
        ),
        _case(
            "1 line die, escape=1,8, negotiate=9 (consent always), vs GM 2",
            2,
            (Entrant("P", (line,), escape=(1, 8), negotiate=9),),
            always,
        ),
        _case("team: P 1 and Z 2 line dice vs GM 2, Z's pair", 2, team, plain, 1),
        _case(
            "team: P 2, Z 3 and M 1 line dice vs GM 3, P's pair",
            3,
            (Entrant("P", (line,) * 2), Entrant("Z", (line,) * 3), Entrant("M", (line,))),
            plain,
        ),
        _case(
            "team: P and Z 2 line dice + 1 Morale, light=1, escape=1,9, and M 2 vs GM 3, Z's pair",
            3,
            (resourced, replace(resourced, name="Z"), Entrant("M", (line,) * 2)),
            plain,
            1,
        ),
    ]
