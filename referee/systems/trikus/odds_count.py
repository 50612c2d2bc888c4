"""Exact trikus odds of a team test, counted with little joint work (RULES.md §3.2-3.3).

Each player-GM pair is a *lane* (see :mod:`.odds`); lanes interact only through the
GM's throws, since the GM rolls while any pair lacks its control. Lanes are small
integer codes of a :mod:`.odds_models` model: :class:`~.odds_models.PlainLanes` when no
player declares an escape or a Negotiation and the GM proposes none (a Light token
then plays like one more die), :class:`~.odds_models.TriggerLanes` otherwise. The walk:

* while the GM has 3 dice or more, the lanes walk jointly, state by state (GM dice
  left, sorted lanes), merged as they meet;
* with its 2 last dice to come, each lane's chance is its own *as if* the GM threw
  both dice one after the other: that is what happens unless, after the first, the
  GM holds every pair (it then waits while the players roll), so only those throws
  are corrected, jointly, and they are few;
* with its last die to come, a lane's chance is its own when the GM throws it at
  once; when the GM holds every pair, the lanes stay independent until the first
  player takes control, so each term of that *stretch* is a product over lanes;
* with no GM dice left, or one pair left, each lane finishes alone.

Every player's chance of each end of his pair is exact, and equals the general walk's
and an enumeration of every die, fraction for fraction
(``tests/systems/trikus/test_odds_count.py``). The work is metered: every joint state,
transition and correction, and every lane chance worked out, spends steps of an
:class:`~referee.base.effort.Effort` (about a microsecond each); past its budget
:class:`~.odds.OddsTooCostly` is raised.

>>> from referee.base.effort import Effort
>>> from referee.systems.trikus.duel import DieKind, Entrant, PairEnd
>>> masters = tuple(Entrant(name, (DieKind.LINE,) * 3) for name in "PZMK")
>>> count_ends(5, masters, Rulings(), Effort(10**7))[PairEnd.WON][0]
Fraction(58291554324029, 160000000000000)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace
from fractions import Fraction
from itertools import product
from math import prod

from referee.base.effort import Effort
from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds import OddsTooCostly
from referee.systems.trikus.odds_models import (
    ENDS,
    GM,
    PLAYER,
    LaneModel,
    PlainLanes,
    TriggerLanes,
    Vector,
)
from referee.systems.trikus.rulings import Rulings, TogetherTie

LARGEST = 120  # GM dice plus the largest pool counted exactly (deeper walks are sampled)


def plain(entrants: tuple[Entrant, ...]) -> bool:
    """Whether no player's pair has a standing trigger (escape, Negotiation either way)."""
    return all(
        e.escape is None and e.negotiate is None and e.gm_negotiate is None for e in entrants
    )


def count_ends(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    effort: Effort,
    assume_consent: bool = True,
) -> dict[PairEnd, tuple[Fraction, ...]]:
    """P(each player's pair ends each way), exactly; a dead tie is reported as such.

    Under ``negotiation_consent = "ask"`` the chance assumes the GM agrees to every
    proposal (``assume_consent``), as :func:`~.odds.end_chances` does. Raises
    :class:`~.odds.OddsTooCostly` when ``effort`` runs out (what was spent stays spent)
    or the test is too deep to count (:data:`LARGEST`).
    """
    rerolls = 2 * rulings.negotiations_per_test
    pools = [len(e.hand) + e.light for e in entrants]
    if gm_dice + max(pools, default=0) + rerolls > LARGEST:
        raise OddsTooCostly(f"more than {LARGEST} dice deep")
    model: LaneModel
    if plain(entrants):  # players with pools of the same size share a class
        sizes: dict[int, int] = {}
        kind_of = [sizes.setdefault(pool, len(sizes)) for pool in pools]
        together = rulings.together_tie is TogetherTie.PLAYER
        model = PlainLanes(tuple(sizes), together, effort)
        drawn = gm_dice + sum(pools)
    else:  # players with the same declaration share a class
        declared: dict[Entrant, int] = {}
        kind_of = [declared.setdefault(replace(e, name=""), len(declared)) for e in entrants]
        model = TriggerLanes(tuple(declared), rulings, assume_consent, effort)
        asked = sum((e.negotiate is not None) + (e.gm_negotiate is not None) for e in entrants)
        drawn = gm_dice + sum(pools) + rulings.negotiations_per_test * asked
    first = tuple(sorted(model.first(kind) for kind in kind_of))
    totals = _Walk(gm_dice, model, max(kind_of) + 1).run(first, drawn)
    size = Counter(kind_of)
    return {
        end: tuple(totals[kind][e] / size[kind] for kind in kind_of) for e, end in enumerate(ENDS)
    }


class _Walk:
    """The joint walk down to the GM's 2 last dice, then each lane's own chances."""

    def __init__(self, gm_dice: int, model: LaneModel, classes: int) -> None:
        self.gm_dice = gm_dice
        self.lanes = model
        # The chances still to weigh, by what they are weighed with (integer masses):
        self.alone: defaultdict[tuple[int, int], int] = defaultdict(int)  # (lane, GM dice)
        self.now: defaultdict[int, int] = defaultdict(int)
        self.both: defaultdict[int, int] = defaultdict(int)
        self.finished: defaultdict[tuple[int, ...], int] = defaultdict(int)
        self.ended = [[0] * len(ENDS) for _ in range(classes)]
        self.quiet_steps: dict[int, tuple[tuple[tuple[tuple[int, int], ...], int] | None, ...]] = {}

    def run(self, first: tuple[int, ...], drawn: int) -> list[list[Fraction]]:
        """Each class's ends summed over its players; ``drawn``: the most dice the test
        may draw (GM, pools, Light tokens, Negotiation rerolls)."""
        lanes = self.lanes
        # Masses are integers over 10 ** (every die the test may draw), times 2520 for
        # the equally likely values kept together (a split divides by their count).
        scale = SIDES**drawn * 2520
        levels: defaultdict[int, dict[tuple[int, tuple[int, ...]], int]] = defaultdict(dict)
        top = self.gm_dice + sum(lanes.dice[lane] for lane in first)
        levels[top][self.gm_dice, first] = scale
        # A throw draws a die (the GM's or a player's), so a state is complete when the
        # states with more dice left are all done: the walk takes them by dice left.
        for level in range(top, -1, -1):
            for (gm_left, state), mass in levels.pop(level, {}).items():
                self.state(gm_left, state, mass, levels, level)
        return self.totals(scale)

    def state(
        self,
        gm_left: int,
        state: tuple[int, ...],
        mass: int,
        levels: defaultdict[int, dict[tuple[int, tuple[int, ...]], int]],
        level: int,
    ) -> None:
        lanes = self.lanes
        live = []  # before prepare: the deferred chances prepare each lane themselves
        ready = []  # after prepare, for the next throw
        for lane in state:
            prepared, ended = lanes.prepare(lane, gm_left)
            if ended is None:
                live.append(lane)
                ready.append(prepared)
            else:
                self.ended[lanes.kind[lane]][ended] += mass
        if not live:
            return
        if gm_left == 0 or len(live) == 1:  # nothing couples the lanes any more
            for lane in live:
                self.alone[lane, gm_left] += mass
            return
        held = all(lanes.control[lane] == GM for lane in ready)
        if gm_left == 1:
            if held:
                self.finished[tuple(live)] += mass
            else:
                for lane in live:
                    self.now[lane] += mass
            return
        if gm_left == 2 and not held:
            self.last_two(tuple(live), tuple(ready), mass)
            return
        self.throw(gm_left, tuple(ready), held, mass, levels, level)

    def last_two(self, live: tuple[int, ...], ready: tuple[int, ...], mass: int) -> None:
        """Each lane's own chance with both dice thrown in turn, and the corrections: after
        the first, every lane held (a joint state, each lane's part of it taken as it is)."""
        for lane in live:
            self.both[lane] += mass
        groups = Counter(
            parts
            for parts in zip(*(self.quiet_step(lane) for lane in ready), strict=True)
            if None not in parts
        )
        spend = 1
        for parts, faces in groups.items():
            denominator = prod(p[1] for p in parts) * SIDES
            spend += prod(len(p[0]) for p in parts)
            for combo in product(*(p[0] for p in parts)):
                weight = mass * faces
                for _, w in combo:
                    weight *= w
                weight, rest = divmod(weight, denominator)
                assert not rest, "a chance finer than the dice"
                after = tuple(sorted([lane for lane, _ in combo]))
                self.finished[after] += weight
                for lane in after:  # counted above as if the GM threw at once
                    self.now[lane] -= weight
        self.lanes.spent(spend)

    def quiet_step(self, lane: int) -> tuple[tuple[tuple[tuple[int, int], ...], int] | None, ...]:
        """Per face of the GM's die: the held (or ended) lanes the throw leads to, or None."""
        found = self.quiet_steps.get(lane)
        if found is None:
            lanes = self.lanes
            faces: list[tuple[tuple[tuple[int, int], ...], int] | None] = []
            for die in range(1, SIDES + 1):
                after, denominator = lanes.step(lane, die)
                kept = tuple((a, w) for a, w in after if lanes.quiet(a, 1))
                faces.append((kept, denominator) if kept else None)
            found = self.quiet_steps[lane] = tuple(faces)
        return found

    def throw(
        self,
        gm_left: int,
        live: tuple[int, ...],
        held: bool,
        mass: int,
        levels: defaultdict[int, dict[tuple[int, tuple[int, ...]], int]],
        level: int,
    ) -> None:
        """Every way the next throw goes, jointly (GM faces with one effect taken together)."""
        lanes = self.lanes
        if held:  # the GM holds every pair and waits: only the players roll
            groups: Counter[tuple[tuple[tuple[tuple[int, int], ...], int], ...]] = Counter(
                {tuple(lanes.step(lane, 0) for lane in live): 1}
            )
        else:
            groups = Counter(zip(*(lanes.faces(lane) for lane in live), strict=True))
        rolling = sum(1 for lane in live if lanes.control[lane] != PLAYER and lanes.dice[lane])
        gm_after = gm_left - (not held)
        target = levels[level - (not held) - rolling]
        spend = 1
        for effect, faces in groups.items():
            denominator = prod(t[1] for t in effect) * (1 if held else SIDES)
            start = mass * faces
            spend += prod(len(t[0]) for t in effect)
            for combo in product(*(t[0] for t in effect)):
                weight = start
                for _, w in combo:
                    weight *= w
                weight, rest = divmod(weight, denominator)
                assert not rest, "a chance finer than the dice"
                key = (gm_after, tuple(sorted([lane for lane, _ in combo])))
                target[key] = target.get(key, 0) + weight
        lanes.spent(spend)

    def totals(self, scale: int) -> list[list[Fraction]]:
        """Each class's ends summed over its players: the deferred chances weighed."""
        lanes = self.lanes
        totals = [[Fraction(x) for x in row] for row in self.ended]

        def weigh(lane: int, mass: int, vector: Vector) -> None:
            row = totals[lanes.kind[lane]]
            for e, value in enumerate(vector):
                if value:
                    row[e] += mass * value

        for (lane, gm_left), mass in self.alone.items():
            weigh(lane, mass, lanes.alone(lane, gm_left))
        for lane, mass in self.now.items():
            weigh(lane, mass, lanes.now(lane))
        for lane, mass in self.both.items():
            weigh(lane, mass, lanes.both(lane))
        for state, mass in self.finished.items():
            ends, live = lanes.finish(state)
            whole = lanes.unit**live
            for lane, vector in zip(state, ends, strict=True):
                weigh(lane, mass, tuple(Fraction(v, whole) for v in vector))
        return [[value / scale for value in row] for row in totals]
