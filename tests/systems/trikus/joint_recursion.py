"""The reference for the exact trikus odds: the first recursion, over every throw of the joint duel.

It examines every joint state of every pair, with nothing shared or kept lazily, so it is
slow (GM 3 dice against 2, 3 and 1 took 105 s) but plainly right; the tests check that
:mod:`referee.systems.trikus.odds` gives exactly its chances on every small case.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import cache

from referee.systems.trikus.duel import (
    SIDES,
    DuelState,
    Entrant,
    PairEnd,
    PairState,
    Side,
    gm_negotiation_due,
    gm_reroll,
    land,
    negotiation_due,
    prepare,
    propose,
    reroll,
    rollers,
    start,
    throw,
    together_side,
)
from referee.systems.trikus.odds import OddsTooCostly
from referee.systems.trikus.rulings import Consent, Rulings

FACES = range(1, SIDES + 1)
MAX_WORK = 10**9  # no budget: the tests keep the cases small


def reference_end_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int = MAX_WORK,
) -> dict[PairEnd, tuple[Fraction, ...]]:
    """P(each player's pair ends each way), by brute force over every joint state."""
    rulings = rulings or Rulings()
    solve, reach = _solver(entrants, rulings, assume_consent, max_work)
    first = start(gm_dice, entrants)  # the start has nothing to forget
    counts = solve(first)
    scale = SIDES ** reach(first)
    return {
        end: tuple(Fraction(counts[i * len(_ENDS) + k], scale) for i in range(len(entrants)))
        for k, end in enumerate(_ENDS)
    }


_EMPTY = PairState()


def _forget_loser(pair: PairState) -> PairState:
    """A pair without the value of the side below the controller's: it can no longer matter.

    Values only rise, so a side below the controller takes control only with a new die
    at least the controller's value, whatever its old value was.
    """
    if pair.control is Side.GM and (pair.player or 0) < (pair.gm or 0):
        return replace(pair, player=None)
    if pair.control is Side.PLAYER and (pair.gm or 0) < (pair.player or 0):
        return replace(pair, gm=None)
    return pair


_ENDS = [end for end in PairEnd if end is not PairEnd.LIVE]


def _solver(
    entrants: tuple[Entrant, ...], rulings: Rulings, assume_consent: bool, max_work: int
) -> tuple[Callable[[DuelState], tuple[int, ...]], Callable[[DuelState], int]]:
    """The memoised recursion, and ``reach``: the most dice a state can still draw.

    ``solve(state)`` returns, per player and end, the number of equally likely
    continuations out of ``10 ** reach(state)`` (integers: Fractions are far slower).
    """
    together = together_side(rulings)
    per_test = rulings.negotiations_per_test
    agreed = rulings.negotiation_consent is Consent.ALWAYS or (
        rulings.negotiation_consent is Consent.ASK and assume_consent
    )
    proposing = rulings.negotiation_consent is not Consent.NEVER
    work = [0]  # throws examined so far, against max_work

    def negotiable(state: DuelState, i: int) -> bool:
        return proposing and entrants[i].negotiate is not None and state.proposals[i] < per_test

    def gm_negotiable(state: DuelState, i: int) -> bool:
        return entrants[i].gm_negotiate is not None and state.gm_proposals[i] < per_test

    def reach(state: DuelState) -> int:
        rerolls = (
            sum(per_test - state.proposals[i] for i in range(len(entrants)) if negotiable(state, i))
            if agreed
            else 0
        )
        gm_rerolls = sum(
            per_test - state.gm_proposals[i]
            for i in range(len(entrants))
            if gm_negotiable(state, i)
        )
        return state.gm_left + sum(state.hands) + sum(state.lights) + rerolls + gm_rerolls

    def negotiated(
        before: DuelState, after: DuelState, gm_die: int | None, dice: dict[int, int], first: int
    ) -> list[tuple[int, DuelState]]:
        """(rerolls drawn, state) after the proposals this throw triggers, from ``first`` on."""
        for i in range(first, len(entrants)):
            if proposing and negotiation_due(before, after, gm_die, i, entrants[i], rulings):
                after = propose(after, i)
                if not agreed:
                    continue
                return [
                    (drawn + 1, state)
                    for face in FACES
                    for drawn, state in negotiated(
                        before,
                        reroll(before, after, i, dice.get(i), face, together),
                        gm_die,
                        dice,
                        i + 1,
                    )
                ]
        return gm_negotiated(before, after, gm_die, dice, 0)

    def gm_negotiated(
        before: DuelState, after: DuelState, gm_die: int | None, dice: dict[int, int], first: int
    ) -> list[tuple[int, DuelState]]:
        """(rerolls drawn, state) after the GM's proposals this throw, from ``first`` on."""
        for i in range(first, len(entrants)):
            if gm_negotiation_due(before, after, dice.get(i), i, entrants[i], rulings):
                return [
                    (drawn + 1, state)
                    for face in FACES
                    for drawn, state in gm_negotiated(
                        before,
                        gm_reroll(before, after, i, gm_die, face, together),
                        gm_die,
                        dice,
                        i + 1,
                    )
                ]
        return [(0, after)]

    def canonical(state: DuelState) -> DuelState:
        """The state with what cannot matter any more forgotten, so the memo hits more."""
        pairs, hands, lights = list(state.pairs), list(state.hands), list(state.lights)
        for i, pair in enumerate(state.pairs):
            if state.ends[i] is not PairEnd.LIVE:
                pairs[i], hands[i], lights[i] = _EMPTY, 0, 0
            elif not negotiable(state, i):
                pairs[i] = _forget_loser(pair)
        return replace(state, pairs=tuple(pairs), hands=tuple(hands), lights=tuple(lights))

    def groups(state: DuelState, gm_die: int | None, i: int) -> list[tuple[int, int]]:
        """(how many faces, one such face) for player i's die, grouped by their effect."""
        if negotiable(state, i) or gm_negotiable(state, i):
            return [(1, face) for face in FACES]
        found: dict[PairState, list[int]] = {}
        for face in FACES:
            key = _forget_loser(land(state.pairs[i], gm_die, face, together))
            found.setdefault(key, []).append(face)
        return [(len(faces), faces[0]) for faces in found.values()]

    @cache
    def solve(state: DuelState) -> tuple[int, ...]:
        here = reach(state)
        state, _ = prepare(state, entrants)
        if state.over:
            scale = SIDES**here
            return tuple(
                scale * (state.ends[i] is end) for i in range(len(entrants)) for end in _ENDS
            )
        gm_rolls, players = rollers(state)
        total = [0] * (len(entrants) * len(_ENDS))
        gm_faces: list[int | None] = list(FACES) if gm_rolls else [None]
        thrown = len(players) + (1 if gm_rolls else 0)
        for gm_die in gm_faces:
            options = [groups(state, gm_die, i) for i in players]
            for choice in itertools.product(*options):
                work[0] += 1
                if work[0] > max_work:
                    raise OddsTooCostly(f"more than {max_work} throws to examine")
                count = 1
                for n, _ in choice:
                    count *= n
                dice = {i: face for i, (_, face) in zip(players, choice, strict=True)}
                after, _ = throw(state, gm_die, dice, together)
                for drawn, next_state in negotiated(state, after, gm_die, dice, 0):
                    child = canonical(next_state)
                    factor = count * SIDES ** (here - reach(child) - thrown - drawn)
                    for k, chance in enumerate(solve(child)):
                        total[k] += factor * chance
        return tuple(total)

    return solve, reach
