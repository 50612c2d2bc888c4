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
:class:`~referee.base.effort.Effort`; past its budget
:class:`~.odds.OddsTooCostly` is raised.

>>> from referee.base.effort import Effort
>>> from referee.systems.trikus.duel import DieKind, Entrant, PairEnd
>>> masters = tuple(Entrant(name, (DieKind.LINE,) * 3) for name in "PZMK")
>>> count_ends(5, masters, Rulings(), Effort(10**7))[PairEnd.WON][0]
Fraction(58291554324029, 160000000000000)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from itertools import product
from math import lcm, prod

from referee.base.effort import Effort
from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds import OddsTooCostly
from referee.systems.trikus.odds_models import (
    ENDS,
    GM,
    PLAYER,
    LaneModel,
    PlainLanes,
    Step,
    TriggerLanes,
    Vector,
)
from referee.systems.trikus.rulings import Rulings, TogetherTie

LARGEST = 120  # GM dice plus the largest pool counted exactly (deeper walks are sampled)
# A count stopped early is worth going on with while the joint states still waiting with 3
# GM dice or more, weighed by the players' dice, are at most this many (a heuristic: it
# only decides between counting on and estimating at once, see Counting.promising).
PROMISING = 6000
# Steps a joint state costs; a joint outcome costs one, and a correction two (weighed by
# bench/trikus_odds.py against the estimate's duels).
STATE = 8
# Steps the corrections of a new set of prepared lanes cost to join; the same set again
# is kept.
QUIET_JOIN = 10


def plain(entrants: tuple[Entrant, ...]) -> bool:
    """Whether no pair has a standing trigger (an escape or a Negotiation, either side's)."""
    return all(
        e.escape is None and e.negotiate is None and e.gm_negotiate is None and e.gm_escape is None
        for e in entrants
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
    return Counting(gm_dice, entrants, rulings, assume_consent).run(effort)


class Counting:
    """One test's count, resumable: :meth:`run` with more steps goes on where it stopped.

    Every step is spent before the walk changes anything, so a count stopped by its
    budget loses no work: a verdict may count with a few steps first, estimate, and
    count on with what is left (:mod:`.chance`).
    """

    def __init__(
        self,
        gm_dice: int,
        entrants: tuple[Entrant, ...],
        rulings: Rulings,
        assume_consent: bool = True,
    ) -> None:
        rerolls = 2 * rulings.negotiations_per_test
        pools = [len(e.hand) + e.light for e in entrants]
        # The other side's escape in a duel between players turns on how many dice it
        # has left, which a lane does not keep: such a duel is estimated.
        escapes = any(e.gm_escape is not None for e in entrants)
        self.deep = escapes or gm_dice + max(pools, default=0) + rerolls > LARGEST
        nobody = Effort(0, alone=True)  # each run sets the effort it spends
        model: LaneModel
        if plain(entrants):  # players with pools of the same size share a class
            sizes: dict[int, int] = {}
            kind_of = [sizes.setdefault(pool, len(sizes)) for pool in pools]
            together = rulings.together_tie is TogetherTie.PLAYER
            model = PlainLanes(tuple(sizes), together, nobody)
            drawn = gm_dice + sum(pools)
        else:  # players with the same declaration share a class
            declared: dict[Entrant, int] = {}
            kind_of = [declared.setdefault(replace(e, name=""), len(declared)) for e in entrants]
            model = TriggerLanes(tuple(declared), rulings, assume_consent, nobody)
            asked = sum((e.negotiate is not None) + (e.gm_negotiate is not None) for e in entrants)
            drawn = gm_dice + sum(pools) + rulings.negotiations_per_test * asked
        self.model, self.kind_of = model, kind_of
        # A state's weight in promising(): heavier with more dice a lane, and triggers.
        self.heft = (sum(pools) / max(len(pools), 1) / 3) * (1 if plain(entrants) else 2)
        self.walk = _Walk(gm_dice, model, max(kind_of, default=0) + 1, drawn)
        if not self.deep:
            self.walk.start(tuple(sorted(model.first(kind) for kind in kind_of)))

    def promising(self) -> bool:
        """Whether a count stopped early looks worth going on with: few joint states still
        wait with the GM's 3 dice or more (they make most of the work), for the players'
        dice. GM 5 against four Masters, stopped at a tenth of a test's steps, has 2,737;
        against a fifth GM die, or with a fourth die for one Master, three times more."""
        if self.deep:
            return False
        walk = self.walk
        waiting = sum(1 for (gm_left, _), _ in walk.pending if gm_left >= 3)
        waiting += sum(1 for level in walk.levels.values() for gm_left, _ in level if gm_left >= 3)
        return waiting * self.heft <= PROMISING

    def run(self, effort: Effort) -> dict[PairEnd, tuple[Fraction, ...]]:
        """Count on with ``effort``; OddsTooCostly (resumable) when it runs out first."""
        if self.deep:
            raise OddsTooCostly(f"more than {LARGEST} dice deep, or the GM side's escape")
        self.model.effort = effort
        totals = self.walk.resume()
        size = Counter(self.kind_of)
        return {
            end: tuple(totals[kind][e] / size[kind] for kind in self.kind_of)
            for e, end in enumerate(ENDS)
        }


Level = dict[tuple[int, tuple[int, ...]], int]  # (GM dice left, sorted lanes) -> mass
# Each lane's step (interned: LaneModel.parts), per effect of the GM's die -> its faces.
Groups = dict[tuple[int, ...], int]
# A join of steps, for any mass: (sorted lanes after, weight) pairs, over a denominator,
# the combinations of steps it took (what it costs), and (for the corrections) each
# lane's weight summed over the outcomes.
Join = tuple[tuple[tuple[tuple[int, ...], int], ...], int, int, tuple[tuple[int, int], ...]]


class _Walk:
    """The joint walk down to the GM's 2 last dice, then each lane's own chances."""

    def __init__(self, gm_dice: int, model: LaneModel, classes: int, drawn: int) -> None:
        self.gm_dice = gm_dice
        self.lanes = model
        # Masses are integers over 10 ** (every die the test may draw), times 2520 for
        # the equally likely values kept together (a split divides by their count).
        self.scale = SIDES**drawn * 2520
        # The chances still to weigh, by what they are weighed with (integer masses):
        self.alone: defaultdict[tuple[int, int], int] = defaultdict(int)  # (lane, GM dice)
        self.now: defaultdict[int, int] = defaultdict(int)
        self.both: defaultdict[int, int] = defaultdict(int)
        self.finished: defaultdict[tuple[int, ...], int] = defaultdict(int)
        self.ended = [[0] * len(ENDS) for _ in range(classes)]
        self.quiet_masks: dict[int, int] = {}
        self.quiet_steps: dict[int, tuple[int, ...]] = {}
        self.quiet_joins: dict[tuple[int, ...], Join] = {}  # by the prepared lanes
        self.levels: defaultdict[int, Level] = defaultdict(dict)
        self.level = -1
        self.pending: list[tuple[tuple[int, tuple[int, ...]], int]] = []

    def start(self, first: tuple[int, ...]) -> None:
        self.level = self.gm_dice + sum(self.lanes.dice[lane] for lane in first)
        self.levels[self.level][self.gm_dice, tuple(sorted(first))] = self.scale
        self.pending = list(self.levels.pop(self.level).items())

    def resume(self) -> list[list[Fraction]]:
        """Each class's ends summed over its players, walking on from where it stopped.

        A throw draws a die (the GM's or a player's), so a state is complete when the
        states with more dice left are all done: the walk takes them by dice left.
        """
        while self.level >= 0:
            pending = self.pending
            while pending:
                (gm_left, state), mass = pending[-1]
                if gm_left != 2 or not self.last_two_fast(state, mass):
                    self.state(gm_left, state, mass)
                pending.pop()
            self.level -= 1
            self.pending = list(self.levels.pop(self.level, {}).items())
        return self.totals()

    def state(self, gm_left: int, state: tuple[int, ...], mass: int) -> None:
        """One state's next throw, or its lanes' deferred chances; its steps spent first."""
        lanes = self.lanes
        prepared = lanes.prepared(gm_left)
        live = state  # before prepare: the deferred chances prepare each lane themselves
        ready = tuple(prepared[lane] for lane in state)  # after prepare, for the next throw
        if -1 in ready:  # some pairs end before this throw
            live = tuple(lane for lane, r in zip(state, ready, strict=True) if r >= 0)
            ended = [
                lanes.ending(lane, gm_left) for lane, r in zip(state, ready, strict=True) if r < 0
            ]
            ready = tuple(r for r in ready if r >= 0)
        else:
            ended = []
        control = lanes.control
        held = all(control[lane] == GM for lane in ready)
        if not live or gm_left <= 1 or len(live) == 1:
            lanes.spent(STATE)
        elif gm_left == 2 and not held:
            new = ready not in self.quiet_joins
            join = self.quiet_join(ready)
            lanes.spent(STATE + 2 * join[2] + QUIET_JOIN * new)
        else:
            join = self.join(self.groups(ready, held), 1 if held else SIDES)
            lanes.spent(STATE + join[2])
        # Nothing is changed before this line: a count stopped above resumes at this state.
        for kind, end in ended:
            self.ended[kind][end] += mass
        if not live:
            return
        if gm_left == 0 or len(live) == 1:  # nothing couples the lanes any more
            for lane in live:
                self.alone[lane, gm_left] += mass
        elif gm_left == 1 and held:
            self.finished[live] += mass
        elif gm_left == 1:
            for lane in live:
                self.now[lane] += mass
        elif gm_left == 2 and not held:
            self.last_two(live, join, mass)
        else:
            self.throw(gm_left, ready, held, join, mass)

    def quiet_join(self, ready: tuple[int, ...]) -> Join:
        """The corrections' join for the prepared lanes ``ready``, kept per lanes (the
        same corrections recur from many states): per effect of the GM's second-to-last
        die after which every lane may be held, each lane's held (or ended) part of its
        step, joined. Its last part sums each lane's weight over the outcomes (a lane
        twice in one counts twice), which the corrections take from ``now``."""
        found = self.quiet_joins.get(ready)
        if found is not None:
            return found
        faces = (1 << SIDES) - 1
        masks = self.quiet_masks
        for lane in ready:
            mask = masks.get(lane)
            faces &= self.quiet_faces(lane) if mask is None else mask
        steps = [self.quiet_step(lane) for lane in ready]
        outcomes, common, combos, _ = self.join(_tally(steps, faces) if faces else {}, SIDES)
        by_lane: dict[int, int] = {}
        for after, w in outcomes:
            for lane in after:
                by_lane[lane] = by_lane.get(lane, 0) + w
        found = self.quiet_joins[ready] = outcomes, common, combos, tuple(by_lane.items())
        return found

    def last_two_fast(self, state: tuple[int, ...], mass: int) -> bool:
        """:meth:`state` for the commonest state, the GM's 2 last dice to come and some
        lane not held, none ending now (False, nothing done, for any other)."""
        lanes = self.lanes
        prepared = lanes.prepared(2)
        ready = [prepared[lane] for lane in state]
        if len(ready) < 2 or -1 in ready:
            return False
        control = lanes.control
        masks = self.quiet_masks
        faces = (1 << SIDES) - 1
        held = True
        for lane in ready:
            if control[lane] != GM:
                held = False
            mask = masks.get(lane)
            if mask is None:
                mask = self.quiet_faces(lane)
            faces &= mask
        if held:
            return False
        join = None
        cost = STATE + 2 * faces.bit_count()
        if faces:
            key = tuple(ready)
            if key not in self.quiet_joins:
                cost += QUIET_JOIN
            join = self.quiet_join(key)
        lanes.spent(cost)
        both = self.both
        for lane in state:
            both[lane] += mass
        if join is not None:
            self.corrections(join, mass)
        return True

    def last_two(self, live: tuple[int, ...], join: Join, mass: int) -> None:
        """Each lane's own chance with both dice thrown in turn, and the corrections: after
        the first, every lane held (a joint state, each lane's part of it taken as it is)."""
        for lane in live:
            self.both[lane] += mass
        self.corrections(join, mass)

    def corrections(self, join: Join, mass: int) -> None:
        """The throws after which every lane is held: their joint states, taken as they are
        (:meth:`~.odds_models.LaneModel.finish`) instead of as if the GM threw at once."""
        finished, now = self.finished, self.now
        outcomes, denominator, _, by_lane = join
        for after, w in outcomes:
            finished[after] += _share(mass, w, denominator)
        for lane, w in by_lane:  # counted as if the GM threw at once: taken back
            now[lane] -= _share(mass, w, denominator)

    def join(self, groups: Groups, sides: int) -> Join:
        """Every joint outcome of ``groups`` (sorted lanes after) with its weight over one
        denominator, for any mass; ``sides``: 10 when the GM's die is thrown, else 1.

        The weights are small integers: the mass multiplies in once per outcome.
        """
        parts = self.lanes.parts
        effects = []
        common, combinations = 1, 0
        for effect, faces in groups.items():
            steps = [parts[step] for step in effect]
            denominator, size = sides, 1
            for _, weights, divisor in steps:
                denominator *= divisor
                size *= len(weights)
            effects.append((steps, faces, denominator, size))
            common = lcm(common, denominator)
            combinations += size
        joined: dict[tuple[int, ...], int] = {}
        get = joined.get
        for steps, faces, denominator, size in effects:
            scale = faces * (common // denominator)
            if size == 1:  # one way each (often so, when held): no product to walk
                key = tuple(sorted([step[0][0] for step in steps]))
                weight = scale
                for step in steps:
                    weight *= step[1][0]
                joined[key] = get(key, 0) + weight
                continue
            combos = zip(
                product(*[step[0] for step in steps]),
                product(*[step[1] for step in steps]),
                strict=True,
            )
            for after, weights in combos:
                key = tuple(sorted(after))
                joined[key] = get(key, 0) + scale * prod(weights)
        return tuple(joined.items()), common, combinations, ()

    def quiet_faces(self, lane: int) -> int:
        """The faces of the GM's die (bit d-1 for face d) after which the lane may be held."""
        found = self.quiet_masks.get(lane)
        if found is None:
            steps = self.quiet_step(lane)
            parts = self.lanes.parts
            found = self.quiet_masks[lane] = sum(1 << d for d in range(SIDES) if parts[steps[d]][0])
        return found

    def quiet_step(self, lane: int) -> tuple[int, ...]:
        """Per face of the GM's die: the held (or ended) lanes the throw leads to (an
        interned step)."""
        found = self.quiet_steps.get(lane)
        if found is None:
            lanes = self.lanes
            faces: list[int] = []
            for after, divisor in lanes.faces(lane):
                quiet: Step = (tuple((a, w) for a, w in after if lanes.quiet(a, 1)), divisor)
                faces.append(lanes.intern(quiet))
            found = self.quiet_steps[lane] = tuple(faces)
        return found

    def groups(self, ready: tuple[int, ...], held: bool) -> Groups:
        """Each lane's step per effect of the GM's die (none while it holds every pair)."""
        lanes = self.lanes
        if held:  # the GM holds every pair and waits: only the players roll
            return {tuple(lanes.intern(lanes.step(lane, 0)) for lane in ready): 1}
        return _tally((lanes.face_steps(lane) for lane in ready), (1 << SIDES) - 1)

    def throw(
        self, gm_left: int, ready: tuple[int, ...], held: bool, join: Join, mass: int
    ) -> None:
        """Every way the next throw goes, jointly (GM faces with one effect taken together)."""
        lanes = self.lanes
        rolling = sum(1 for lane in ready if lanes.control[lane] != PLAYER and lanes.dice[lane])
        gm_after = gm_left - (not held)
        target = self.levels[self.level - (not held) - rolling]
        get = target.get
        outcomes, denominator, _, _ = join
        for after, w in outcomes:
            key = (gm_after, after)
            target[key] = get(key, 0) + _share(mass, w, denominator)

    def totals(self) -> list[list[Fraction]]:
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
        # The finished states' ends are integers over unit ** (lanes live): summed as
        # integers per that power, divided once (Fractions per state are slow).
        finished: dict[int, list[list[int]]] = {}
        kind = lanes.kind
        for state, mass in self.finished.items():
            ends, live = lanes.finish(state)
            table = finished.get(live)
            if table is None:
                table = finished[live] = [[0] * len(ENDS) for _ in totals]
            for lane, vector in zip(state, ends, strict=True):
                sums = table[kind[lane]]
                for e, value in enumerate(vector):
                    if value:
                        sums[e] += mass * value
        for live, table in finished.items():
            whole = lanes.unit**live
            for total, sums in zip(totals, table, strict=True):
                for e, value in enumerate(sums):
                    total[e] += Fraction(value, whole)
        return [[value / self.scale for value in row] for row in totals]


def _tally(steps: Iterable[tuple[int, ...]], faces: int) -> Groups:
    """Per effect of the GM's die (each lane's step for a face), how many of ``faces``
    (bit d-1 for face d) have it."""
    tally: Groups = {}
    for effect, face in zip(zip(*steps, strict=True), range(SIDES), strict=True):
        if faces >> face & 1:
            tally[effect] = tally.get(effect, 0) + 1
    return tally


def _share(mass: int, weight: int, denominator: int) -> int:
    """``mass * weight / denominator``, exact: both count outcomes of d10s (asserted)."""
    share, rest = divmod(mass * weight, denominator)
    assert not rest, "a chance finer than the dice"
    return share
