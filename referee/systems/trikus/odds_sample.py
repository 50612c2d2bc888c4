"""Estimated trikus odds: seeded duels, corrected by the odds of their highest dice.

When a test is too large to count (:mod:`.odds_count`), each player's chance of Success
is estimated from duels played with a pseudo-random generator seeded by the test
itself, so the same test always shows the same figure, and stated with the half-width
of its 95% interval.

The estimate leans on a fact of the duel (checked by enumeration in the tests): in a
pair, once its first-throw ties are voided, the side whose dice (rolled or not) hold
the strictly higher top value wins, since the side not in control keeps rolling
while it has dice, and once the top die lands nobody reaches it. So a player's Success
is known from the top values, except when they are equal (a *tie at the top*), and
the chance of each is exact (:func:`top_law`). Each duel contributes only how far its
outcome differs from that prediction (a control variate): the top values decide it
exactly for a pair with no trigger, so the estimate's uncertainty comes from the ties
(and triggers, and cancellations) alone, several times less than from the bare
outcomes.

Duels without standing triggers are played by :func:`plain_duel`, a transcription of
:func:`~.duel.land` and :func:`~.duel.prepare` for plain pools (checked against
:func:`~.duel.play` die for die in the tests); others by :func:`~.duel.play` itself.
Dice a side never rolls are drawn only as the top of what was left (one draw), so a
duel costs its throws, however many dice the pools hold.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from referee.base.effort import Effort
from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds_count import plain
from referee.systems.trikus.rulings import Consent, Rulings, TogetherTie

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
BATCH = 250  # duels are played in multiples of this
LEAST = 1_500  # the first duels, which measure the spread of the outcomes
FEWEST = 400  # duels an estimate needs at all (a margin of a few points at worst)
_ENDS = (PairEnd.WON, PairEnd.LOST, PairEnd.ESCAPED, PairEnd.DEAD_TIE)
_WON, _LOST, _ESCAPED, _DEAD = range(4)
_NOBODY, _GM, _PLAYER = 0, 1, 2


@dataclass(frozen=True)
class Estimate:
    """An estimated chance and the half-width of its 95% interval (both 0 to 1)."""

    value: float
    margin: float
    duels: int


@dataclass(frozen=True)
class Played:
    """One duel as the estimate needs it: each pair's end, its voids, and the dice."""

    ends: tuple[PairEnd, ...]
    voids: tuple[int, ...]  # first-throw ties voided in each pair (its first dice)
    gm: tuple[int, ...]  # the GM's dice as they landed
    rolled: tuple[tuple[int, ...], ...]  # each player's dice as they landed
    gm_top: int  # the top of the GM's dice never rolled (0: none)
    tops: tuple[int, ...]  # the same for each player


class TooFewDuels(Exception):
    """The budget ran out before :data:`FEWEST` duels: no estimate worth stating."""


def estimate(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    success: Callable[[tuple[PairEnd, ...]], Sequence[bool]],
    controls: Sequence[tuple[int, bool] | None],
    classes: Sequence[int],
    seed: str,
    effort: Effort,
    target: float = 0.0045,
    assume_consent: bool = True,
) -> tuple[Estimate, ...]:
    """P(``success(ends)[k]``) for each reported k, from duels seeded by ``seed`` (see
    :class:`Sampling`), within ``effort``."""
    sampling = Sampling(
        gm_dice, entrants, rulings, success, controls, classes, seed, target, assume_consent
    )
    sampling.run(effort)
    return sampling.estimates()


class Sampling:
    """Seeded duels of one test, resumable: :meth:`run` plays on where it stopped.

    ``controls[k]`` is (pair, complement): the k-th Success is predicted by that pair's
    top values (the player's Success, or with ``complement`` the other side's), or
    None for no prediction. Reported chances of one class (``classes``) are averaged
    together. A first :data:`LEAST` duels measure the spread, which sets how many
    duels bring every half-width to ``target`` (:attr:`needed`); the margin is what the
    duels played give (wider, when the budget ran out first).
    """

    def __init__(
        self,
        gm_dice: int,
        entrants: tuple[Entrant, ...],
        rulings: Rulings,
        success: Callable[[tuple[PairEnd, ...]], Sequence[bool]],
        controls: Sequence[tuple[int, bool] | None],
        classes: Sequence[int],
        seed: str,
        target: float,
        assume_consent: bool = True,
    ) -> None:
        self.success, self.controls, self.classes, self.target = success, controls, classes, target
        self.laws = [
            None if c is None else top_law(gm_dice, _pool(entrants[c[0]])) for c in controls
        ]
        self.groups = sorted(set(classes))
        self.members = {g: [k for k, c in enumerate(classes) if c == g] for g in self.groups}
        self.total = dict.fromkeys(self.groups, 0.0)
        self.squares = dict.fromkeys(self.groups, 0.0)
        self.duel, self.per_die = _player(
            gm_dice, entrants, rulings, assume_consent, random.Random(seed)
        )
        self.duels, self.needed, self.spent = 0, LEAST, 0
        self.unpaid: tuple[Played, int] | None = None  # a duel played past the last budget

    def run(self, effort: Effort, until: int | None = None) -> None:
        """Play duels until :attr:`needed` (or ``until``) are done or ``effort`` runs out
        (a duel spends a step or two per die landed)."""
        while self.duels < min(self.needed, until or self.needed):
            if self.unpaid is None:
                played = self.duel()
                dice = len(played.gm) + sum(len(r) for r in played.rolled)
                self.unpaid = played, 4 + self.per_die * dice
            played, cost = self.unpaid
            if not effort.spend(cost):
                return
            self.unpaid = None
            self.spent += cost
            self.count(played)

    def count(self, played: Played) -> None:
        """One duel's outcome, less its prediction, into each class's sums."""
        residual = [float(won) for won in self.success(played.ends)]
        for k, control in enumerate(self.controls):
            if control is not None:
                pair, complement = control
                untied, tie = _prediction(played, pair)
                predicted = untied + tie / 2
                residual[k] -= 1 - predicted if complement else predicted
        for g in self.groups:
            mean = sum(residual[k] for k in self.members[g]) / len(self.members[g])
            self.total[g] += mean
            self.squares[g] += mean * mean
        self.duels += 1
        if self.duels == LEAST:  # the spread measured: the duels for the target, in batches
            widest = max(self.margin(g) for g in self.groups)
            wanted = LEAST * (widest / self.target) ** 2
            self.needed = max(LEAST, BATCH * math.ceil(wanted / BATCH))

    def steps_needed(self) -> int:
        """About the steps the duels still needed will spend."""
        if not self.duels:
            return 0
        return (self.needed - self.duels) * self.spent // self.duels

    def margin(self, group: int) -> float:
        return _margin(self.total[group], self.squares[group], self.duels)

    def estimates(self) -> tuple[Estimate, ...]:
        """Each reported chance and its margin; :class:`TooFewDuels` below :data:`FEWEST`."""
        if self.duels < FEWEST:
            raise TooFewDuels(f"{self.duels} duels before the budget ran out")
        found = []
        for k, group in enumerate(self.classes):
            law, control = self.laws[k], self.controls[k]
            base = 0.0
            if law is not None and control is not None:
                higher, equal = law
                predicted = float(higher + equal / 2)
                base = 1 - predicted if control[1] else predicted
            value = min(1.0, max(0.0, base + self.total[group] / self.duels))
            found.append(Estimate(value, self.margin(group), self.duels))
        return tuple(found)


def _margin(total: float, squares: float, duels: int) -> float:
    """The half-width of the 95% interval of a mean of ``duels`` values."""
    if duels < 2:
        return 1.0
    mean = total / duels
    variance = max(0.0, (squares - duels * mean * mean) / (duels - 1))
    return Z95 * math.sqrt(variance / duels)


def _pool(entrant: Entrant) -> int:
    return len(entrant.hand) + entrant.light


def _prediction(played: Played, pair: int) -> tuple[int, int]:
    """(1 if the player's top is higher, 1 if the tops are equal) in the pair, its first
    ``voids`` dice on each side set aside."""
    void = played.voids[pair]
    gm_top = max(max(played.gm[void:], default=0), played.gm_top)
    top = max(max(played.rolled[pair][void:], default=0), played.tops[pair])
    return int(top > gm_top), int(top == gm_top)


@lru_cache(maxsize=4096)
def top_law(gm_dice: int, pool: int) -> tuple[Fraction, Fraction]:
    """(P(the player's top is higher), P(the tops are equal)) in a pair, after its voids.

    The pair voids its first dice while both sides roll equal faces (a tenth each
    throw); the first unequal throw starts each side's counted dice. A side left with
    no dice has top 0: both empty is equal (a dead tie).

    >>> top_law(1, 1)  # one die each: a tie voids both, so the tops are 0 and 0
    (Fraction(9, 20), Fraction(1, 10))
    """
    higher = equal = Fraction(0)
    for voids in range(min(gm_dice, pool) + 1):
        reach = Fraction(1, SIDES**voids)
        if voids == min(gm_dice, pool):  # a side ran out while every throw tied
            higher += reach if pool > gm_dice else 0
            equal += reach if pool == gm_dice else 0
            break
        # The first unequal throw (faces a != b), then the rest of each side's dice.
        h, e = _unequal_first(gm_dice - voids - 1, pool - voids - 1)
        higher += reach * Fraction(SIDES - 1, SIDES) * h
        equal += reach * Fraction(SIDES - 1, SIDES) * e
    return higher, equal


def _unequal_first(gm_rest: int, rest: int) -> tuple[Fraction, Fraction]:
    """Given a first throw of unequal faces, P(player's top higher), P(tops equal)."""
    higher = equal = 0
    for a in range(1, SIDES + 1):
        for b in range(1, SIDES + 1):
            if a == b:
                continue
            for g in range(1, SIDES + 1):  # the GM's top, then the player's
                pg = _top_chance(g, a, gm_rest)
                if not pg:
                    continue
                for p in range(1, SIDES + 1):
                    pp = _top_chance(p, b, rest)
                    if p > g:
                        higher += pg * pp
                    elif p == g:
                        equal += pg * pp
    whole = SIDES * (SIDES - 1) * SIDES ** (gm_rest + rest)
    return Fraction(higher, whole), Fraction(equal, whole)


def _top_chance(top: int, first: int, rest: int) -> int:
    """Ways (of 10 ** rest) that a die showing ``first`` and ``rest`` more have ``top``."""
    if top < first:
        return 0
    below = top**rest - (top - 1) ** rest  # the rest's own top is exactly ``top``
    return top**rest if top == first else below


def plain_duel(
    gm_dice: int, pools: Sequence[int], together_player: bool, draw: Callable[[], float]
) -> Played:
    """A duel of plain pools (no triggers, Light as dice), as :func:`~.duel.play` plays it.

    ``draw`` is a uniform float in [0, 1); each die is ``int(draw() * 10) + 1``.
    """
    count = len(pools)
    control = [_NOBODY] * count
    gm_value = [0] * count
    value = [0] * count
    left = list(pools)
    ends = [-1] * count
    voids = [0] * count
    gm: list[int] = []
    rolled: list[list[int]] = [[] for _ in pools]
    gm_left = gm_dice
    live = count
    together = _PLAYER if together_player else _GM
    while True:
        waits = True  # the GM holds every live pair (it does not roll)
        for i in range(count):  # duel.prepare: end the pairs whose roller has nothing
            if ends[i] >= 0:
                continue
            c = control[i]
            if c == _GM:
                if not left[i]:
                    ends[i], live = _LOST, live - 1
                    continue
            elif not gm_left:
                if c == _PLAYER:
                    ends[i], live = _WON, live - 1
                    continue
                if not left[i]:
                    ends[i], live = _DEAD, live - 1
                    continue
                waits = False
            else:
                waits = False
        if not live:
            break
        die = 0
        if gm_left and not waits:
            die = int(draw() * SIDES) + 1
            gm.append(die)
            gm_left -= 1
        for i in range(count):  # duel.throw and duel.land
            if ends[i] >= 0:
                continue
            c = control[i]
            x = 0
            if c != _PLAYER and left[i]:
                x = int(draw() * SIDES) + 1
                rolled[i].append(x)
                left[i] -= 1
            if c == _NOBODY:
                if die and x:
                    if die == x:
                        voids[i] += 1  # a first-throw tie voids both dice
                    else:
                        control[i] = _GM if die > x else _PLAYER
                        gm_value[i], value[i] = die, x
                elif die:
                    control[i], gm_value[i] = _GM, die
                elif x:
                    control[i], value[i] = _PLAYER, x
                continue
            g = gm_value[i] if gm_value[i] >= die else die
            p = value[i] if value[i] >= x else x
            if g != p:
                control[i] = _GM if g > p else _PLAYER
            elif die == g and x == p:  # both reach the value at this moment: R-16
                control[i] = together
            elif die == g:
                control[i] = _GM
            elif x == p:
                control[i] = _PLAYER
            gm_value[i], value[i] = g, p
    return Played(
        tuple(_ENDS[e] for e in ends),
        tuple(voids),
        tuple(gm),
        tuple(tuple(r) for r in rolled),
        _top_of(gm_left, draw),
        tuple(_top_of(n, draw) for n in left),
    )


def trigger_duel(
    gm_dice: int,
    entrants: Sequence[Entrant],
    rulings: Rulings,
    agree: bool,
    draw: Callable[[], float],
) -> Played:
    """A duel with standing triggers (escape, Light, Negotiations either way, the GM
    side's escape in a duel between players), as :func:`~.duel.play` plays it with the
    GM's standing consent ``agree`` (a refused proposal still counts toward R-22); the
    GM's own proposals are always agreed, as a player declares ``accept`` to receive them.
    """
    count = len(entrants)
    together = _PLAYER if rulings.together_tie is TogetherTie.PLAYER else _GM
    per_test = rulings.negotiations_per_test
    proposing = rulings.negotiation_consent is not Consent.NEVER and per_test > 0
    agree = agree or rulings.negotiation_consent is Consent.ALWAYS
    escapes = [e.escape for e in entrants]
    gm_escapes = [e.gm_escape for e in entrants]
    thresholds = [e.negotiate for e in entrants]
    gm_thresholds = [e.gm_negotiate for e in entrants]
    proposers = [i for i, t in enumerate(thresholds) if t is not None and proposing]
    askers = [i for i, t in enumerate(gm_thresholds) if t is not None and per_test > 0]
    watched = sorted({*proposers, *askers})  # pairs whose state before a throw matters
    control = [_NOBODY] * count
    gm_value = [0] * count
    value = [0] * count
    hands = [len(e.hand) for e in entrants]
    lights = [e.light for e in entrants]
    proposals = [0] * count
    gm_proposals = [0] * count
    ends = [-1] * count
    voids = [0] * count
    thrown = [0] * count
    gm: list[int] = []
    rolled: list[list[int]] = [[] for _ in entrants]
    gm_left = gm_dice
    live = count
    while True:
        waits = True
        for i in range(count):  # duel.prepare
            if ends[i] >= 0:
                continue
            c = control[i]
            if c != _PLAYER:
                rule = escapes[i]
                if rule and c == _GM and 1 <= hands[i] <= rule[0] and gm_value[i] >= rule[1]:
                    ends[i], live = _ESCAPED, live - 1
                    continue
                if not hands[i] and lights[i]:
                    hands[i], lights[i] = 1, lights[i] - 1
            other = gm_escapes[i]  # the GM side withdraws: the player keeps control, wins
            if (
                other
                and c == _PLAYER
                and value[i] >= other[1]
                and 1 <= gm_left - other[2] <= other[0]
            ):
                ends[i], live = _WON, live - 1
                continue
            if c == _GM:
                if not hands[i]:
                    ends[i], live = _LOST, live - 1
            elif not gm_left and c == _PLAYER:
                ends[i], live = _WON, live - 1
            elif not gm_left and not hands[i]:
                ends[i], live = _DEAD, live - 1
            else:
                waits = False
        if not live:
            break
        die = 0
        if gm_left and not waits:
            die = int(draw() * SIDES) + 1
            gm.append(die)
            gm_left -= 1
        before = {i: (control[i], gm_value[i], value[i]) for i in watched}
        for i in range(count):  # duel.throw and duel.land
            if ends[i] >= 0:
                continue
            c = control[i]
            x = 0
            if c != _PLAYER and hands[i]:
                x = int(draw() * SIDES) + 1
                rolled[i].append(x)
                hands[i] -= 1
            thrown[i] = x
            if c == _NOBODY:
                if die and x:
                    if die == x:
                        voids[i] += 1  # a first-throw tie voids both dice
                    else:
                        control[i] = _GM if die > x else _PLAYER
                        gm_value[i], value[i] = die, x
                elif die:
                    control[i], gm_value[i] = _GM, die
                elif x:
                    control[i], value[i] = _PLAYER, x
                continue
            g = gm_value[i] if gm_value[i] >= die else die
            p = value[i] if value[i] >= x else x
            if g != p:
                control[i] = _GM if g > p else _PLAYER
            elif die == g and x == p:  # both reach the value at this moment: R-16
                control[i] = together
            elif die == g:
                control[i] = _GM
            elif x == p:
                control[i] = _PLAYER
            gm_value[i], value[i] = g, p
        if not watched:
            continue
        asked = {i: proposals[i] for i in askers}
        for i in proposers:  # the players' Negotiations, in order
            old = before[i]
            if (
                die
                and ends[i] < 0
                and proposals[i] < per_test
                and control[i] == _GM
                and die == gm_value[i]
                and die > old[1]
                and die >= thresholds[i]  # type: ignore[operator]
            ):
                proposals[i] += 1
                if agree:
                    new = int(draw() * SIDES) + 1
                    landed = _land(old, 0, thrown[i], together)
                    control[i], gm_value[i], value[i] = _land(landed, new, 0, together)
        for i in askers:  # the GM's, in order
            old = before[i]
            x = thrown[i]
            if (
                proposals[i] == asked[i]
                and ends[i] < 0
                and x
                and gm_proposals[i] < per_test
                and control[i] == _PLAYER
                and x == value[i]
                and x > old[2]
                and x >= gm_thresholds[i]  # type: ignore[operator]
            ):
                new = int(draw() * SIDES) + 1
                landed = _land(old, die, 0, together)
                control[i], gm_value[i], value[i] = _land(landed, 0, new, together)
                gm_proposals[i] += 1
    return Played(
        tuple(_ENDS[e] for e in ends),
        tuple(voids),
        tuple(gm),
        tuple(tuple(r) for r in rolled),
        _top_of(gm_left, draw),
        tuple(_top_of(h + n, draw) for h, n in zip(hands, lights, strict=True)),
    )


def _land(pair: tuple[int, int, int], die: int, x: int, together: int) -> tuple[int, int, int]:
    """:func:`~.duel.land` on (control, GM value, player value); 0 for no die or value."""
    c, g, p = pair
    if c == _NOBODY:
        if die and x:
            if die == x:
                return pair  # a first-throw tie voids both dice
            return (_GM if die > x else _PLAYER), die, x
        if die:
            return _GM, die, p
        if x:
            return _PLAYER, g, x
        return pair
    g2 = g if g >= die else die
    p2 = p if p >= x else x
    if g2 != p2:
        return (_GM if g2 > p2 else _PLAYER), g2, p2
    if die == g2 and x == p2:
        return together, g2, p2
    if die == g2:
        return _GM, g2, p2
    if x == p2:
        return _PLAYER, g2, p2
    return c, g2, p2


def _top_of(dice: int, draw: Callable[[], float]) -> int:
    """The top of ``dice`` dice never rolled, in one draw (0 for none)."""
    if not dice:
        return 0
    u = draw()
    for top in range(1, SIDES + 1):
        if (top / SIDES) ** dice > u:
            return top
    return SIDES


def _player(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    assume_consent: bool,
    rng: random.Random,
) -> tuple[Callable[[], Played], int]:
    """A function playing one seeded duel of the test, and the steps a die landed costs."""
    draw = rng.random
    if plain(entrants):
        pools = [_pool(e) for e in entrants]
        together = rulings.together_tie is TogetherTie.PLAYER
        return lambda: plain_duel(gm_dice, pools, together, draw), 1
    return lambda: trigger_duel(gm_dice, entrants, rulings, assume_consent, draw), 2
