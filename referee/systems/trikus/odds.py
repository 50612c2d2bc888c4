"""Exact trikus odds: each player's chance of success under his declared policy (§3.8).

No simulation: every face of every die is enumerated, the chances are
:class:`~fractions.Fraction`, and each step drives the very functions
:func:`~.duel.play` uses (prepare, throw, negotiation), so the odds are those of the
code that resolves the test.

The §3.8 table's corner (one die each: a tie voids both and goes to the GM, R-15):

>>> from referee.systems.trikus.duel import DieKind, Entrant
>>> success_chances(1, (Entrant("P", (DieKind.LINE,)),))
(Fraction(9, 20),)

**How pairs interact.** Every rule of the duel acts on one player-GM pair alone
(the first-throw void, control, escape, Light, both sides' Negotiations and R-22's
count), given two things they share: the GM's die of the throw, and whether the GM
rolls at all, which it does while it lacks control of *any* pair. So the test is a
set of *lanes*, one per pair, that move independently once the GM's die is known;
the exact odds walk the joint state forward, throw by throw, and shrink it:

* a lane that ended leaves the state (its end is counted at once);
* players with the same declaration are interchangeable: their lanes are kept sorted,
  and each gets his share of the class's ends;
* a side's value below the controller's is forgotten (values only rise), and the
  controlling player's value is kept *lazily*: the faces that took control are kept as
  one equally likely set, split only when a GM die is compared with it (the value is
  used by nothing else), instead of one state per face;
* GM faces with the same effect on every lane are taken together;
* while the GM holds every live lane it does not roll, and the lanes are independent
  but for when that *stretch* ends (the first throw at which any player takes
  control): the whole stretch is one step, a product over the lanes of each lane's
  own stretch (:meth:`_Walk.stretch`), so only the GM's throws (at most its dice)
  need a joint step;
* with one GM die left the lanes are not joined at all: whether the GM throws it now
  or after a stretch, and its face, are sums of products over the lanes, so each
  lane's ends come from its own chances (:meth:`_Walk.finish_last`, exact integers);
* once the GM has no dice left, or a single lane is left, the lanes no longer
  interact, and each finishes alone (memoised, one-on-one).

The joint state still grows with players and dice, so the walk spends its work (joint
transitions, stretch outcomes and last-die terms examined, :data:`STEPS_PER_UNIT` steps
each) from an :class:`~referee.base.effort.Effort`, by default a test's budget of
:attr:`~referee.base.limits.Limits.max_chance_steps`, and raises :class:`OddsTooCostly`
past it (``max_work`` caps the units too). A verdict then estimates the chance instead
(:mod:`.chance`). :mod:`.odds_count` counts the same odds with far less joint work; this
walk remains for the joint ends of several players (``on_success=cancel``) and as the
reference it is checked against.

Under ``negotiation_consent = "ask"`` the chance assumes the GM agrees to every
proposal (``assume_consent``), since the verdict states it before the GM answers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from itertools import product
from math import prod

from referee.base.effort import Effort
from referee.base.limits import DEFAULT_LIMITS
from referee.systems.trikus.duel import (
    SIDES,
    Entrant,
    PairEnd,
)
from referee.systems.trikus.rulings import DeadTie, Rulings

from .odds_lanes import (
    _ENDS,
    _GM,
    _NOBODY,
    FACES,
    Lane,
    Step,
    _exactly,
    _Lanes,
    _left,
    _times,
)

# Steps (see referee.base.effort) one unit of the walk's work costs: a joint transition,
# stretch outcome or last-die term, with the lanes' own chances it calls for.
STEPS_PER_UNIT = 8
LANES_APART = 3  # more lanes than this finish the GM's last two dice apart (less work)


class OddsTooCostly(Exception):
    """The exact odds need more work than the budget allows."""


def success_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int | None = None,
    effort: Effort | None = None,
) -> tuple[Fraction, ...]:
    """P(each player's pair ends in his Success), exactly; OddsTooCostly past the budget."""
    return end_chances(gm_dice, entrants, rulings, assume_consent, max_work, effort)[PairEnd.WON]


def end_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int | None = None,
    effort: Effort | None = None,
) -> dict[PairEnd, tuple[Fraction, ...]]:
    """P(each player's pair ends each way), exactly; a dead tie is reported as such."""
    return joint_ends(gm_dice, entrants, (), rulings, assume_consent, max_work, effort)[0]


JointEnds = dict[tuple[PairEnd, ...], Fraction]


def joint_ends(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    tracked: tuple[int, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int | None = None,
    effort: Effort | None = None,
) -> tuple[dict[PairEnd, tuple[Fraction, ...]], JointEnds]:
    """Each player's end chances, and the joint chances of the ``tracked`` players' ends.

    The joint ends are what ``on_success=cancel`` needs (R-17): whether one player's
    Success stands depends on how another's pair ended. A tracked player is a class of
    his own, so his lane keeps its identity through the walk.

    >>> from referee.systems.trikus.duel import DieKind, Entrant
    >>> pair = (Entrant("P", (DieKind.LINE,)), Entrant("Z", (DieKind.LINE,)))
    >>> _, joint = joint_ends(1, pair, (0, 1))
    >>> joint[PairEnd.WON, PairEnd.LOST]  # P's die above the GM's, Z's below it
    Fraction(3, 25)
    """
    kinds, lanes, slots = lane_classes(entrants, tracked, rulings or Rulings(), assume_consent)
    if effort is None:
        effort = Effort(DEFAULT_LIMITS.max_chance_steps, alone=True)
    counts, joint = _walk(gm_dice, entrants, kinds, lanes, slots, max_work, effort)
    size = [kinds.count(k) for k in range(len(lanes.entrants))]
    ends: dict[PairEnd, tuple[Fraction, ...]] = {
        end: tuple(counts[k][end] / size[k] for k in kinds) for end in _ENDS
    }
    return ends, joint if tracked else {}


def lane_classes(
    entrants: tuple[Entrant, ...], tracked: tuple[int, ...], rulings: Rulings, assume_consent: bool
) -> tuple[tuple[int, ...], _Lanes, dict[int, int]]:
    """Each player's class (same declaration, untracked: same class), the classes' lane
    steps, and each tracked player's slot among the joint ends (class to slot)."""
    classes: dict[tuple[Entrant, int], int] = {}
    kinds = tuple(
        classes.setdefault((replace(e, name=""), i if i in tracked else -1), len(classes))
        for i, e in enumerate(entrants)
    )
    lanes = _Lanes(tuple(e for e, _ in classes), rulings, assume_consent)
    return kinds, lanes, {kinds[i]: slot for slot, i in enumerate(tracked)}


def failure_chances(
    gm_dice: int, entrants: tuple[Entrant, ...], rulings: Rulings | None = None
) -> tuple[Fraction, ...]:
    """P(each player ends with a Failure): a lost pair, or a dead tie under R-15 "gm"."""
    rulings = rulings or Rulings()
    ends = end_chances(gm_dice, entrants, rulings)
    zero = (Fraction(0),) * len(entrants)
    dead = ends[PairEnd.DEAD_TIE] if rulings.dead_tie is DeadTie.GM else zero
    return tuple(a + b for a, b in zip(ends[PairEnd.LOST], dead, strict=True))


# --- the joint walk -------------------------------------------------------------------

# The GM's dice left, the live lanes (sorted), and how each tracked player's pair ended
# (LIVE while it has not).
Joint = tuple[int, tuple[Lane, ...], tuple[PairEnd, ...]]


def _walk(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    kinds: tuple[int, ...],
    lanes: _Lanes,
    slots: dict[int, int],
    max_work: int | None,
    effort: Effort,
) -> tuple[list[dict[PairEnd, Fraction]], JointEnds]:
    """Each class's summed chance of each end, walking the joint state, and the joint
    chances of the ends of the tracked classes (``slots``: class to slot)."""
    walk = _Walk(gm_dice, entrants, lanes, slots, max_work, effort)
    first = tuple(
        sorted(
            Lane(k, _NOBODY, 0, 0, (), len(e.hand), e.light, 0, 0)
            for e, k in zip(entrants, kinds, strict=True)
        )
    )
    return walk.run(gm_dice, first)


class _Walk:
    """The joint walk's state: the joint states by dice left, and the ends counted.

    Masses are integers: chances scaled by ``10 ** most``, the most dice a test can
    draw, so every chance of an event over the dice is a whole number of them.
    """

    def __init__(
        self,
        gm_dice: int,
        entrants: tuple[Entrant, ...],
        lanes: _Lanes,
        slots: dict[int, int],
        max_work: int | None,
        effort: Effort,
    ) -> None:
        per_test = lanes.rulings.negotiations_per_test
        rerolls = sum(
            per_test * ((e.negotiate is not None) + (e.gm_negotiate is not None)) for e in entrants
        )
        most = gm_dice + sum(len(e.hand) + e.light for e in entrants) + rerolls
        self.scale = SIDES**most
        self.lanes, self.slots, self.max_work, self.effort = lanes, slots, max_work, effort
        self.ends: list[defaultdict[PairEnd, int]] = [defaultdict(int) for _ in lanes.entrants]
        self.joint_ends: defaultdict[tuple[PairEnd, ...], int] = defaultdict(int)
        self.levels: dict[int, dict[Joint, int]] = defaultdict(dict)
        self.work = 0
        self.charged = 0  # units of work already spent from the effort

    def run(
        self, gm_dice: int, first: tuple[Lane, ...]
    ) -> tuple[list[dict[PairEnd, Fraction]], JointEnds]:
        lanes, slots = self.lanes, self.slots
        # A throw always draws a die from the GM or a hand (Light tokens turn into hands),
        # so states are taken by dice left, most first: each is complete when taken.
        self.add(gm_dice, first, (PairEnd.LIVE,) * len(slots), self.scale)
        for level in range(_left(gm_dice, first), -1, -1):
            for (gm_left, joint, done), mass in self.levels.pop(level, {}).items():
                if gm_left == 1 and len(joint) > 1 and not slots:
                    unit = lanes.unit  # rows over ``unit`` squared, each lane surely here
                    self.finish_last(
                        mass, [(lane, tuple(unit * v for v in lanes.flat(lane))) for lane in joint]
                    )
                    continue
                live: list[Lane] = []
                ended = list(done)
                for lane in joint:
                    ready = lanes.prepared(lane, gm_left > 0)
                    if isinstance(ready, PairEnd):
                        self.ends[lane.kind][ready] += mass
                        if lane.kind in slots:
                            ended[slots[lane.kind]] = ready
                    else:
                        live.append(ready)
                if gm_left == 0 or len(live) == 1:
                    self.alone(gm_left, joint, done, mass)
                elif not live:
                    self.joint_ends[tuple(ended)] += mass
                elif all(lane.control == _GM for lane in live):
                    self.stretch(gm_left, live, tuple(ended), mass)
                else:
                    self.throw(gm_left, live, tuple(ended), mass)
                self.charge()
        counts: list[dict[PairEnd, Fraction]] = [
            {end: Fraction(e[end], self.scale) for end in _ENDS} for e in self.ends
        ]
        joint_ends = {
            key: Fraction(mass, self.scale) for key, mass in self.joint_ends.items() if mass
        }
        return counts, joint_ends

    def charge(self) -> None:
        """Spend the work done since the last charge; OddsTooCostly past either budget."""
        if self.max_work is not None and self.work > self.max_work:
            raise OddsTooCostly(f"more than {self.max_work} joint transitions to examine")
        if not self.effort.spend((self.work - self.charged) * STEPS_PER_UNIT):
            raise OddsTooCostly("the test's odds would take more steps than its budget")
        self.charged = self.work

    def add(
        self, gm_left: int, joint: tuple[Lane, ...], done: tuple[PairEnd, ...], mass: int
    ) -> None:
        bucket = self.levels[_left(gm_left, joint)]
        key = (gm_left, joint, done)
        bucket[key] = bucket.get(key, 0) + mass

    def alone(
        self, gm_left: int, joint: tuple[Lane, ...], done: tuple[PairEnd, ...], mass: int
    ) -> None:
        """Nothing couples the lanes any more: each finishes alone (memoised)."""
        lanes, slots = self.lanes, self.slots
        for lane in joint:
            if isinstance(lanes.prepared(lane, gm_left > 0), PairEnd):
                continue  # counted already
            for end, chance in lanes.alone(lane, gm_left).items():
                self.ends[lane.kind][end] += _times(mass, chance)
        if not slots:
            return
        spread: dict[tuple[PairEnd, ...], Fraction] = {done: Fraction(1)}
        for lane in joint:
            if lane.kind in slots:
                slot = slots[lane.kind]
                spread = {
                    (*key[:slot], end, *key[slot + 1 :]): chance * p
                    for key, chance in spread.items()
                    for end, p in lanes.alone(lane, gm_left).items()
                }
        for key, chance in spread.items():
            self.joint_ends[key] += _times(mass, chance)

    def throw(self, gm_left: int, live: list[Lane], done: tuple[PairEnd, ...], mass: int) -> None:
        """Spread ``mass`` over the joint states after a throw in which the GM rolls.

        After the GM's second-to-last die, with more than ``LANES_APART`` lanes, the
        lanes are not spread into joint states: :meth:`finish_last` finishes them from
        each lane's own chances (with fewer, joint states merge enough to be cheaper).
        """
        lanes = self.lanes
        effects: dict[tuple[Step, ...], list[int]] = defaultdict(list)  # GM faces by effect
        for gm_die in FACES:
            effects[tuple(lanes.step(lane, gm_die) for lane in live)].append(gm_die)
        for steps, faces in effects.items():
            base = mass * len(faces) // SIDES
            if gm_left == 2 and len(live) > LANES_APART and not self.slots:
                # The other faces in the group act alike on every lane.
                self.finish_last(base, [(lane, lanes.thrown(lane, faces[0])) for lane in live])
                continue
            for combo in product(*steps):
                m = base
                for _, numerator, denominator in combo:
                    m = m * numerator // denominator  # exact: see _Walk
                self.add(gm_left - 1, tuple(sorted([lane for lane, _, _ in combo])), done, m)
            self.work += prod(len(step) for step in steps)

    def stretch(self, gm_left: int, live: list[Lane], done: tuple[PairEnd, ...], mass: int) -> None:
        """Spread ``mass`` over the states after the GM's hold on every live lane.

        While the GM holds every live lane it does not roll, so each lane plays alone
        against a fixed value until its player takes control (:meth:`_Lanes._stretch`);
        the lanes are independent but for when that happens, the first throw at which
        any of them does. So the joint outcome is, for each length ``s``, a product over
        the lanes of their moment ``s``, with at least one lane taking control; or every
        lane ends.
        """
        stretches = [self.lanes.stretch(lane) for lane in live]
        for s in range(max(len(stretch.moments) for stretch in stretches)):
            options: list[list[tuple[Lane | PairEnd, Fraction, bool]]] = []
            for stretch in stretches:
                if s < len(stretch.moments):
                    moment = stretch.moments[s]
                    options.append(
                        [(lane, p, True) for lane, p in moment.taken]
                        + [(lane, p, False) for lane, p in moment.held]
                        + [(end, p, False) for end, p in moment.ended]
                    )
                else:
                    options.append([(end, p, False) for end, p in stretch.ended])
            for combo in product(*options):
                self.work += 1
                if any(taken for _, _, taken in combo):
                    m, joint, ended = self.combined(mass, live, combo, done)
                    self.add(gm_left, joint, ended, m)
        for combo in product(*([(end, p, False) for end, p in st.ended] for st in stretches)):
            self.work += 1
            m, _, ended = self.combined(mass, live, combo, done)
            self.joint_ends[ended] += m

    def combined(
        self,
        mass: int,
        live: list[Lane],
        combo: tuple[tuple[Lane | PairEnd, Fraction, bool], ...],
        done: tuple[PairEnd, ...],
    ) -> tuple[int, tuple[Lane, ...], tuple[PairEnd, ...]]:
        """One joint outcome of a stretch: its mass, its live lanes, the tracked ends; the
        lanes that ended counted."""
        m = _times(mass, prod((p for _, p, _ in combo), start=Fraction(1)))
        joint: list[Lane] = []
        ended = list(done)
        for lane, (now, _, _) in zip(live, combo, strict=True):
            if isinstance(now, PairEnd):
                self.ends[lane.kind][now] += m
                if lane.kind in self.slots:
                    ended[self.slots[lane.kind]] = now
            else:
                joint.append(now)
        return m, tuple(sorted(joint)), tuple(ended)

    def finish_last(self, mass: int, thrown: list[tuple[Lane, tuple[int, ...]]]) -> None:
        """Each lane's ends with one GM die left, the lanes given apart (independent):
        per lane (by its lane before) its row (:meth:`_Lanes._flat`, or a sum of them
        weighted by chances: :meth:`_Lanes._thrown`) over ``unit`` squared.

        Only two things still couple the lanes: whether the GM throws its last die now
        (it does unless it holds every lane) or after a stretch ending when a player
        first takes control; and that die's face. The chance of each is a sum of
        products over the lanes (by inclusion and exclusion: "some lane is not held" is
        "any" minus "all held"), so no joint state is needed: in each product term a
        lane's ends are its own times the others' totals (see :meth:`_Lanes._flat`).
        The tracked players' joint ends would need each lane's ends per face of that
        die: with tracked players (a cancel) the walk joins the lanes to the end instead.
        """
        lanes = self.lanes
        count, width = len(_ENDS), len(_ENDS) + 1
        marginal = [[0] * count for _ in thrown]
        for term, sign in enumerate((1, -1, *((1, -1) * lanes.longest), 1)):
            start = term * width
            totals = [row[start + count] for _, row in thrown]
            zeros = totals.count(0)
            if zeros > 1:
                continue  # every product in this term has a lane without a chance
            if zeros:
                others = [0] * len(thrown)
                others[totals.index(0)] = sign * prod(t for t in totals if t)
            else:
                everyone = sign * prod(totals)
                others = [everyone // t for t in totals]
            for into, times, (_, row) in zip(marginal, others, thrown, strict=True):
                if times:
                    for e in range(count):
                        into[e] += times * row[start + e]
        scale = lanes.unit ** (2 * len(thrown)) * SIDES
        for (lane, _), counts in zip(thrown, marginal, strict=True):
            for end, value in zip(_ENDS, counts, strict=True):
                if value:
                    self.ends[lane.kind][end] += _exactly(mass * value, scale)
        self.work += len(thrown) * (3 + 2 * lanes.longest)


__all__ = [
    "STEPS_PER_UNIT",
    "JointEnds",
    "OddsTooCostly",
    "end_chances",
    "failure_chances",
    "joint_ends",
    "success_chances",
]
