"""The lanes :mod:`.odds_count` walks: one player-GM pair each, as small integer codes.

A model interns every lane it meets as an integer and knows, per code, what
:func:`~.duel.prepare` does before a throw (:meth:`LaneModel.prepare`) and where a throw
leads (:meth:`LaneModel.step`); from those alone it derives each lane's chances once
nothing couples it to the others (:meth:`~LaneModel.alone`), with the GM's last die
thrown at once (:meth:`~LaneModel.now`), with its two last dice thrown in turn
(:meth:`~LaneModel.both`), and the terms of a *stretch*, the GM holding every pair
with its last die to come (:meth:`~LaneModel.stretch`, :meth:`~LaneModel.finish`).

Two models:

* :class:`PlainLanes` for tests without standing triggers: a lane is (class,
  control, value, dice left), a controlling player's value kept as an equally likely
  interval up to 10 (split when a GM die is compared with it), Light tokens counted
  as dice (a token is rolled exactly when a die would be). Its steps mirror
  :func:`~.duel.land`;
* :class:`TriggerLanes` for any test: each code stands for a lane of
  :mod:`.odds_lanes`, whose steps drive the duel's own functions (escape, Light,
  Negotiations either way), so its chances are those of the code that plays the duel.

Every new chance a model computes spends steps of its :class:`~referee.base.effort.Effort`
(:class:`~.odds.OddsTooCostly` past its budget). Chances are integers over the model's
``unit`` where they are multiplied most (the stretch terms), Fractions elsewhere.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction
from math import lcm, prod

from referee.base.effort import Effort
from referee.systems.trikus.duel import SIDES, Entrant, PairEnd
from referee.systems.trikus.odds import OddsTooCostly
from referee.systems.trikus.odds_lanes import _GM, _NOBODY, _PLAYER, Lane, _Lanes
from referee.systems.trikus.rulings import Rulings

ENDS = (PairEnd.WON, PairEnd.LOST, PairEnd.ESCAPED, PairEnd.DEAD_TIE)
_WON, _LOST, _ESCAPED, _DEAD = range(len(ENDS))
_ZERO = Fraction(0)
# Control of a lane: no throw counted yet (or a void), the GM, the player.
NOBODY, GM, PLAYER = 0, 1, 2

# Steps a lane's chance of each end costs when first worked out (in Fractions, from the
# chances of the lanes it leads to), the lanes it needs included.
RECALL = 60
Vector = tuple[Fraction, ...]  # a lane's chance of each end, in the order of ENDS
Whole = tuple[int, ...]  # the same in integers over a unit
Step = tuple[tuple[tuple[int, int], ...], int]  # (lane after, weight) pairs, and their divisor
# A held lane's stretch (see LaneModel.stretch): its terms per throw, and its "never" term.
Stretch = tuple[tuple[tuple[Whole, int, Whole, int], ...], tuple[Whole, int]]


class LaneModel:
    """Codes and per-code chances; subclasses say what a code is and how it moves."""

    def __init__(self, effort: Effort, unit: int) -> None:
        self.effort = effort
        self.unit = unit  # integers over this unit hold a stretch's terms exactly
        self.kind: list[int] = []  # the player's class
        self.control: list[int] = []  # NOBODY, GM or PLAYER
        self.dice: list[int] = []  # dice and Light tokens the player still holds
        self.ready: dict[tuple[int, bool], tuple[int, int | None]] = {}
        self.tables: tuple[list[int], list[int]] = ([], [])  # see prepared()
        # Per table: lane -> (class, end index), for the lanes that end there.
        self.endings: tuple[dict[int, tuple[int, int]], dict[int, tuple[int, int]]] = ({}, {})
        self.steps: dict[tuple[int, int], Step] = {}
        self.by_face: dict[int, tuple[Step, ...]] = {}
        # Steps interned as ints for the joint walk, whose keys they make (hashing a
        # tuple of ints is cheap): per id, the lanes after, their weights, the divisor.
        self.interned: dict[Step, int] = {}
        self.parts: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
        self.face_ids: dict[int, tuple[int, ...]] = {}
        self.memo: dict[tuple[str, int, int], Vector] = {}
        self.stretches: dict[int, Stretch] = {}

    # --- what subclasses provide -----------------------------------------------------

    def first(self, kind: int) -> int:
        """A player of class ``kind`` before the first throw."""
        raise NotImplementedError

    def _prepare(self, lane: int, gm_can: bool) -> tuple[int, int | None]:
        """(lane after :func:`~.duel.prepare`, None) while live; (lane, end index) else."""
        raise NotImplementedError

    def _step(self, lane: int, gm_die: int) -> Step:
        """Where a throw leads a prepared live lane; ``gm_die`` 0: the GM does not roll."""
        raise NotImplementedError

    # --- cached views ----------------------------------------------------------------

    def prepare(self, lane: int, gm_left: int) -> tuple[int, int | None]:
        key = (lane, gm_left > 0)
        found = self.ready.get(key)
        if found is None:
            found = self.ready[key] = self._prepare(lane, gm_left > 0)
        return found

    def step(self, lane: int, gm_die: int) -> Step:
        found = self.steps.get((lane, gm_die))
        if found is None:
            found = self.steps[lane, gm_die] = self._step(lane, gm_die)
        return found

    def faces(self, lane: int) -> tuple[Step, ...]:
        """The lane's :meth:`step` for each face of the GM's die, 1 to 10."""
        found = self.by_face.get(lane)
        if found is None:
            found = self.by_face[lane] = tuple(self.step(lane, d) for d in range(1, SIDES + 1))
        return found

    def intern(self, step: Step) -> int:
        """The step's id in :attr:`parts`."""
        found = self.interned.get(step)
        if found is None:
            found = self.interned[step] = len(self.parts)
            pairs, divisor = step
            self.parts.append((tuple(a for a, _ in pairs), tuple(w for _, w in pairs), divisor))
        return found

    def face_steps(self, lane: int) -> tuple[int, ...]:
        """:meth:`faces` as interned ids."""
        found = self.face_ids.get(lane)
        if found is None:
            found = self.face_ids[lane] = tuple(self.intern(s) for s in self.faces(lane))
        return found

    def prepared(self, gm_left: int) -> list[int]:
        """Per lane code: the lane after :meth:`prepare` with ``gm_left`` GM dice, or -1 when
        the pair ends (how: :attr:`ending`); a list, filled in as codes are made."""
        table, ending = self.tables[gm_left > 0], self.endings[gm_left > 0]
        while len(table) < len(self.kind):
            lane = len(table)
            ready, ended = self.prepare(lane, gm_left)
            table.append(ready if ended is None else -1)
            if ended is not None:
                ending[lane] = (self.kind[lane], ended)
        return table

    def ending(self, lane: int, gm_left: int) -> tuple[int, int]:
        """(class, end index) of a lane that :meth:`prepared` ends."""
        return self.endings[gm_left > 0][lane]

    def quiet(self, lane: int, gm_left: int) -> bool:
        """Whether the lane, once prepared, lets the GM keep its dice (held or ended)."""
        ready, ended = self.prepare(lane, gm_left)
        return ended is not None or self.control[ready] == GM

    def spent(self, steps: int) -> None:
        if not self.effort.spend(steps):
            raise OddsTooCostly("the test's odds would take more steps than its budget")

    # --- chances ---------------------------------------------------------------------

    def _recall(self, what: str, lane: int, gm_left: int, make: Callable[[], Vector]) -> Vector:
        key = (what, lane, gm_left)
        found = self.memo.get(key)
        if found is None:
            self.spent(RECALL)
            found = self.memo[key] = make()
        return found

    def alone(self, lane: int, gm_left: int) -> Vector:
        """The lane's ends when nothing else changes the GM's throws (before prepare)."""
        return self._recall("alone", lane, gm_left, lambda: self._alone(lane, gm_left))

    def _alone(self, lane: int, gm_left: int) -> Vector:
        ready, ended = self.prepare(lane, gm_left)
        if ended is not None:
            return unit_vector(ended)
        gm_rolls = gm_left > 0 and self.control[ready] != GM
        parts = []
        for die in range(1, SIDES + 1) if gm_rolls else (0,):
            lanes, divisor = self.step(ready, die)
            share = Fraction(1, divisor * (SIDES if gm_rolls else 1))
            parts += [(self.alone(after, gm_left - gm_rolls), share * w) for after, w in lanes]
        return mixed(parts)

    def now(self, lane: int) -> Vector:
        """The GM's last die to come, thrown at once (before prepare): the lane's ends."""
        return self._recall("now", lane, 1, lambda: self._then(lane, 1, lambda a: self.alone(a, 0)))

    def both(self, lane: int) -> Vector:
        """The GM's two last dice to come, thrown one after the other (before prepare)."""
        return self._recall("both", lane, 2, lambda: self._then(lane, 2, self.now))

    def _then(self, lane: int, gm_left: int, after: Callable[[int], Vector]) -> Vector:
        ready, ended = self.prepare(lane, gm_left)
        if ended is not None:
            return unit_vector(ended)
        parts = []
        for die in range(1, SIDES + 1):
            lanes, divisor = self.step(ready, die)
            parts += [(after(a), Fraction(w, divisor * SIDES)) for a, w in lanes]
        return mixed(parts)

    def stretch(self, lane: int) -> Stretch:
        """A held lane (before prepare), the GM's last die to come, every pair held.

        Per throw ``s`` of the stretch (the GM waiting): (A ends, A chance, B ends, B
        chance), where A is "the player took no control before throw s" and B "nor at
        it", each counted with the GM's last die coming right after; and (ends, chance)
        if he never takes control; all in integers over ``unit``.
        """
        found = self.stretches.get(lane)
        if found is not None:
            return found
        rows: list[tuple[Vector, Fraction, Vector, Fraction]] = []
        current: dict[int, Fraction] = {lane: Fraction(1)}
        done = [_ZERO] * len(ENDS)  # ended before the throw: held, as far as the GM sees
        while True:
            ready: defaultdict[int, Fraction] = defaultdict(Fraction)
            for held, chance in current.items():
                prepared, ended = self.prepare(held, 1)
                if ended is None:
                    ready[prepared] += chance
                else:
                    done[ended] += chance
            if not ready:
                break
            self.spent(len(ready))
            taken: defaultdict[int, Fraction] = defaultdict(Fraction)
            stays: defaultdict[int, Fraction] = defaultdict(Fraction)
            for held, chance in ready.items():
                lanes, divisor = self.step(held, 0)
                for after, w in lanes:
                    into = stays if self.control[after] == GM else taken
                    into[after] += chance * w / divisor
            kept = mixed([(self.now(a), p) for a, p in stays.items()], tuple(done))
            whole = mixed([(self.now(a), p) for a, p in taken.items()], kept)
            held_on = sum(stays.values(), sum(done, _ZERO))
            rows.append((whole, held_on + sum(taken.values(), _ZERO), kept, held_on))
            current = dict(stays)
        u = self.unit
        found = self.stretches[lane] = (
            tuple(
                (_whole(a, u), _integer(ta, u), _whole(b, u), _integer(tb, u))
                for a, ta, b, tb in rows
            ),
            (_whole(tuple(done), u), _integer(sum(done, _ZERO), u)),
        )
        return found

    def finish(self, lanes: tuple[int, ...]) -> tuple[list[list[int]], int]:
        """Every lane held or ended (before prepare), the GM's last die to come: each
        lane's ends as integers over ``unit ** n`` (``n`` lanes live), and ``n``.

        The stretch ends at the first throw ``s`` at which some player takes control,
        and the GM then throws: "none before s" minus "none through s", each a product
        over the lanes, so lane i's share is its own A (or B) times the others' chances.
        """
        ends: list[list[int]] = []
        live = []
        for i, lane in enumerate(lanes):
            _, ended = self.prepare(lane, 1)
            ends.append([0] * len(ENDS))
            if ended is None:
                live.append(i)
        whole = self.unit ** len(live)
        for i, lane in enumerate(lanes):
            _, ended = self.prepare(lane, 1)
            if ended is not None:
                ends[i][ended] = whole
        tables = {i: self.stretch(lanes[i]) for i in live}
        longest = max((len(t[0]) for t in tables.values()), default=0)
        self.spent(len(live) ** 2 * (longest + 1))  # products of big integers, lane by lane
        for s in range(longest):
            terms = {i: _term(tables[i], s) for i in live}
            for i in live:
                first, _, kept, _ = terms[i]
                before = prod(terms[j][1] for j in live if j != i)
                through = prod(terms[j][3] for j in live if j != i)
                for e in range(len(ENDS)):
                    ends[i][e] += first[e] * before - kept[e] * through
        for i in live:
            never = prod(tables[j][1][1] for j in live if j != i)
            for e in range(len(ENDS)):
                ends[i][e] += tables[i][1][0][e] * never
        return ends, len(live)


class PlainLanes(LaneModel):
    """Lanes of a test without standing triggers: (class, control, value, dice left).

    With the GM in control, ``value`` is the GM's; with the player, the lowest his
    value can be (it is any of ``value``..10, equally likely); with nobody, 0.
    """

    def __init__(self, pools: tuple[int, ...], together_player: bool, effort: Effort) -> None:
        # A stretch's terms hold the lane's dice, the GM's last die and one split of an
        # interval (1 to 10 long): integers over this unit keep them exact.
        super().__init__(effort, 2520 * SIDES ** (max(pools, default=0) + 2))
        self.pools, self.together_player = pools, together_player
        self.codes: dict[tuple[int, int, int, int], int] = {}
        self.value: list[int] = []

    def code(self, kind: int, control: int, value: int, dice: int) -> int:
        key = (kind, control, value, dice)
        found = self.codes.get(key)
        if found is None:
            found = self.codes[key] = len(self.kind)
            self.kind.append(kind)
            self.control.append(control)
            self.value.append(value)
            self.dice.append(dice)
        return found

    def first(self, kind: int) -> int:
        return self.code(kind, NOBODY, 0, self.pools[kind])

    def _prepare(self, lane: int, gm_can: bool) -> tuple[int, int | None]:
        control, dice = self.control[lane], self.dice[lane]
        if control == GM:
            return lane, _LOST if dice == 0 else None
        if gm_can:
            return lane, None
        return lane, _WON if control == PLAYER else _DEAD if dice == 0 else None

    def _step(self, lane: int, gm_die: int) -> Step:
        kind, control, value, dice = (
            self.kind[lane],
            self.control[lane],
            self.value[lane],
            self.dice[lane],
        )
        code = self.code
        out: list[tuple[int, int]] = []
        if control == PLAYER:  # only the GM rolls: a die at least his value takes control
            if gm_die < value:
                return ((lane, 1),), 1
            out.append((code(kind, GM, gm_die, dice), gm_die - value + 1))
            if gm_die < SIDES:
                out.append((code(kind, PLAYER, gm_die + 1, dice), SIDES - gm_die))
            return tuple(out), SIDES + 1 - value
        if control == NOBODY and not dice:  # the GM rolls alone and takes control
            return ((code(kind, GM, gm_die, 0), 1),), 1
        if control == NOBODY and not gm_die:  # the player rolls alone and takes control
            return ((code(kind, PLAYER, 1, dice - 1), 1),), 1
        if control == NOBODY:
            out.append((code(kind, NOBODY, 0, dice - 1), 1))  # a tie voids both dice
            if gm_die > 1:
                out.append((code(kind, GM, gm_die, dice - 1), gm_die - 1))
            if gm_die < SIDES:
                out.append((code(kind, PLAYER, gm_die + 1, dice - 1), SIDES - gm_die))
            return tuple(out), SIDES
        # The GM holds the pair: the player rolls, and the GM's die (if any) counts too.
        beat = max(value, gm_die)
        # A player's die equal to the GM's value takes control, unless the GM's die
        # reached that value at the same moment and R-16 gives such ties to the GM.
        low = beat + 1 if gm_die == beat and not self.together_player else beat
        if low > 1:
            out.append((code(kind, GM, beat, dice - 1), low - 1))
        if low <= SIDES:
            out.append((code(kind, PLAYER, low, dice - 1), SIDES + 1 - low))
        return tuple(out), SIDES


# Steps a trigger lane's step (every face of the player's die through the duel's
# functions) costs the first time; other work costs 1.5 plain steps.
NEW_STEP = 80
TRIGGER_WEIGHT = 1.5


class TriggerLanes(LaneModel):
    """Lanes of :mod:`.odds_lanes` (any trigger), interned as codes."""

    def __init__(
        self,
        classes: tuple[Entrant, ...],
        rulings: Rulings,
        assume_consent: bool,
        effort: Effort,
    ) -> None:
        per_test = rulings.negotiations_per_test
        deepest = max(len(e.hand) + e.light + 2 * per_test for e in classes)
        super().__init__(effort, 2520**2 * SIDES ** (deepest + 2))
        self.lanes = _Lanes(classes, rulings, assume_consent)
        self.codes: dict[Lane, int] = {}
        self.objects: list[Lane] = []

    def spent(self, steps: int) -> None:
        # Its chances are Fractions worked out through the duel's own functions: a
        # step of this model costs about 1.5 plain ones (bench/trikus_odds.py).
        super().spent(math.ceil(steps * TRIGGER_WEIGHT))

    def code(self, lane: Lane) -> int:
        found = self.codes.get(lane)
        if found is None:
            found = self.codes[lane] = len(self.objects)
            self.objects.append(lane)
            self.kind.append(lane.kind)
            self.control.append(_CONTROL[lane.control])
            self.dice.append(lane.hand + lane.light)
        return found

    def first(self, kind: int) -> int:
        entrant = self.lanes.entrants[kind]
        return self.code(Lane(kind, _NOBODY, 0, 0, (), len(entrant.hand), entrant.light, 0, 0))

    def _prepare(self, lane: int, gm_can: bool) -> tuple[int, int | None]:
        ready = self.lanes.prepared(self.objects[lane], gm_can)
        if isinstance(ready, PairEnd):
            return lane, ENDS.index(ready)
        return self.code(ready), None

    def _step(self, lane: int, gm_die: int) -> Step:
        super().spent(NEW_STEP)
        step = self.lanes.step(self.objects[lane], gm_die or None)
        divisor = lcm(*(d for _, _, d in step))
        return tuple((self.code(after), n * (divisor // d)) for after, n, d in step), divisor


_CONTROL = {_NOBODY: NOBODY, _GM: GM, _PLAYER: PLAYER}


def _term(table: Stretch, s: int) -> tuple[Whole, int, Whole, int]:
    """The stretch's term ``s`` of one lane; past its own stretch, its "never" term."""
    rows, (ends, chance) = table
    return rows[s] if s < len(rows) else (ends, chance, ends, chance)


def unit_vector(end: int) -> Vector:
    return tuple(Fraction(e == end) for e in range(len(ENDS)))


def mixed(parts: list[tuple[Vector, Fraction]], start: Vector | None = None) -> Vector:
    """``start`` plus the vectors weighted by their chances."""
    total = list(start or (_ZERO,) * len(ENDS))
    for vector, chance in parts:
        for e, value in enumerate(vector):
            if value:
                total[e] += value * chance
    return tuple(total)


def _integer(chance: Fraction, unit: int) -> int:
    """``chance`` in integers over ``unit`` (exact: asserted)."""
    value = chance * unit
    assert value.denominator == 1, "a chance finer than the unit"
    return value.numerator


def _whole(vector: Vector, unit: int) -> Whole:
    return tuple(_integer(value, unit) for value in vector)
