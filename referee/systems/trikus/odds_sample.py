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
ties themselves lean one way by each side's copies of the top value and by whose first
top die comes first among its own dice. Those are a pair's *strata*, whose chances are
exact (:func:`~.odds_strata.stratum_law`, over every die). The first duels fit each stratum's
Success (its mean there); each duel then contributes only how far its outcome differs
from its stratum's (a control variate, whose expectation is exact whatever the fit):
the estimate's uncertainty comes from what the strata leave open within ties (and
triggers, and cancellations), several times less than from the bare outcomes.

Duels without standing triggers are played by :func:`plain_duel`, a transcription of
:func:`~.duel.land` and :func:`~.duel.prepare` for plain pools, others by
:func:`trigger_duel`, the same with every trigger (both checked against
:func:`~.duel.play` die for die in the tests).
Dice a side never rolls are drawn after the duel, for its strata.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.base.effort import Effort
from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds_count import plain
from referee.systems.trikus.odds_strata import HIGHER, LOWER, STRATA, stratum_law, stratum_of
from referee.systems.trikus.rulings import Consent, Rulings, TogetherTie

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
BATCH = 250  # duels are played in multiples of this
LEAST = 1_000  # the first duels, which fit the strata and measure the spread
FEWEST = 400  # duels an estimate needs at all (a margin of a few points at worst)
DUEL = 8  # steps a duel costs besides its dice: setting up, its strata, its sums
# The first duels' spread is measured on the duels that fitted the strata, so it reads
# low (by up to about 15% for a player of his own class with many strata met): the
# steps an estimate is said to need for a looser target allow for it.
OPTIMISM = 1.15
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
    gm_rest: tuple[int, ...]  # the GM's dice never rolled, drawn after the duel
    rests: tuple[tuple[int, ...], ...]  # the same for each player


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
            None if c is None else stratum_law(gm_dice, _pool(entrants[c[0]])) for c in controls
        ]
        self.groups = sorted(set(classes))
        # Per class, its Success's mean in each stratum, fitted on the first duels; until
        # then the duels wait in ``first`` as (successes, strata).
        self.fitted: dict[int, list[float]] = {}
        self.first: list[tuple[Sequence[bool], tuple[int, ...]]] = []
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
        (a duel spends :data:`DUEL` steps, a step or two per die landed, one per die
        drawn after it)."""
        while self.duels < min(self.needed, until or self.needed):
            if self.unpaid is None:
                played = self.duel()
                landed = len(played.gm) + sum(len(r) for r in played.rolled)
                drawn = len(played.gm_rest) + sum(len(r) for r in played.rests)
                self.unpaid = played, DUEL + self.per_die * landed + drawn
            played, cost = self.unpaid
            if not effort.spend(cost):
                return
            self.unpaid = None
            self.spent += cost
            self.count(played)

    def count(self, played: Played) -> None:
        """One duel's outcome into each class's sums: less its prediction, once the first
        :data:`LEAST` duels have fitted the predictions."""
        successes = self.success(played.ends)
        strata = tuple(
            -1 if control is None else stratum(played, control[0]) for control in self.controls
        )
        self.duels += 1
        if self.fitted:
            self.add(successes, strata)
            return
        self.first.append((successes, strata))
        if self.duels == LEAST:
            self.fit()
            # The spread measured: the duels for the target, in batches.
            widest = max(self.margin(g) for g in self.groups)
            wanted = LEAST * (widest / self.target) ** 2
            self.needed = max(LEAST, BATCH * math.ceil(wanted / BATCH))

    def fit(self) -> None:
        """Each class's mean Success per stratum over the first duels: the prediction;
        then those duels go into the sums, less it, as every later one does.

        Any prediction keeps the estimate unbiased (its expectation is exact, from
        :func:`~.odds_strata.stratum_law`); the closer, the fewer duels the target needs.
        A stratum the first duels never met is predicted as the top dice say (1 higher,
        0 lower, half for a tie).
        """
        for g in self.groups:
            sums, counts = [0.0] * STRATA, [0] * STRATA
            for successes, strata in self.first:
                for k in self.members[g]:
                    if strata[k] >= 0:
                        sums[strata[k]] += successes[k]
                        counts[strata[k]] += 1
            control = self.controls[self.members[g][0]]
            complement = control is not None and control[1]
            default = [0.5] * STRATA
            default[HIGHER], default[LOWER] = (0.0, 1.0) if complement else (1.0, 0.0)
            self.fitted[g] = [
                sums[n] / counts[n] if counts[n] else default[n] for n in range(STRATA)
            ]
        for early in self.first:
            self.add(*early)
        self.first = []

    def add(self, successes: Sequence[bool], strata: tuple[int, ...]) -> None:
        """One duel's residuals (Success less its prediction) into each class's sums."""
        for g in self.groups:
            predicted = self.fitted[g]
            members = self.members[g]
            residual = 0.0
            for k in members:
                residual += successes[k] - (predicted[strata[k]] if strata[k] >= 0 else 0.0)
            mean = residual / len(members)
            self.total[g] += mean
            self.squares[g] += mean * mean

    def steps_needed(self, target: float | None = None) -> int:
        """About the steps the duels still needed will spend: for :attr:`target`, or for
        a looser ``target`` (the duels played so far measured the spread)."""
        if not self.duels:
            return 0
        needed = self.needed
        if target is not None and self.fitted:
            widest = max(self.margin(g) for g in self.groups) * OPTIMISM
            needed = math.ceil(self.duels * (widest / target) ** 2)
        return max(0, needed - self.duels) * self.spent // self.duels

    def margin(self, group: int) -> float:
        return _margin(self.total[group], self.squares[group], self.duels)

    def estimates(self) -> tuple[Estimate, ...]:
        """Each reported chance and its margin; :class:`TooFewDuels` below :data:`FEWEST`."""
        if self.duels < FEWEST:
            raise TooFewDuels(f"{self.duels} duels before the budget ran out")
        if self.first:  # stopped before the fit: the duels so far fit the predictions
            self.fit()
        found = []
        for k, group in enumerate(self.classes):
            law = self.laws[k]
            base = 0.0
            if law is not None:
                base = sum(p * c for p, c in zip(law, self.fitted[group], strict=True))
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


def stratum(played: Played, pair: int) -> int:
    """The pair's stratum in a played duel (see :func:`~.odds_strata.stratum_law`), its
    first-throw voids set aside."""
    void = played.voids[pair]
    gm = (played.gm + played.gm_rest)[void:]
    mine = (played.rolled[pair] + played.rests[pair])[void:]
    return stratum_of(gm, mine)


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
        _unrolled(gm_left, draw),
        tuple(_unrolled(n, draw) for n in left),
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
        _unrolled(gm_left, draw),
        tuple(_unrolled(h + n, draw) for h, n in zip(hands, lights, strict=True)),
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


def _unrolled(dice: int, draw: Callable[[], float]) -> tuple[int, ...]:
    """The faces of ``dice`` dice never rolled (their top and its copies tell the
    duel's stratum)."""
    return tuple(int(draw() * SIDES) + 1 for _ in range(dice))


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
