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

The joint state still grows with players and dice, so :func:`success_chances` takes a
budget of work (``max_work``: joint transitions, stretch outcomes and last-die terms
examined) and raises
:class:`OddsTooCostly` past it, so a verdict can say the odds were not computed instead
of stalling the worker; ``bench/trikus_odds.py`` measures where that happens.

Under ``negotiation_consent = "ask"`` the chance assumes the GM agrees to every
proposal (``assume_consent``), since the verdict states it before the GM answers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import product
from math import prod
from typing import NamedTuple

from referee.systems.trikus.duel import (
    SIDES,
    DuelState,
    Entrant,
    PairEnd,
    PairState,
    Side,
    gm_negotiation_due,
    gm_reroll,
    negotiation_due,
    prepare,
    propose,
    reroll,
    throw,
    together_side,
)
from referee.systems.trikus.rulings import Consent, DeadTie, Rulings

FACES = range(1, SIDES + 1)
MAX_WORK = 1_200_000  # work units (see _Walk): about 3 s at worst on the reference machine
LANES_APART = 3  # more lanes than this finish the GM's last two dice apart (faster)


class OddsTooCostly(Exception):
    """The exact odds need more work than the budget allows."""


def success_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int = MAX_WORK,
) -> tuple[Fraction, ...]:
    """P(each player's pair ends in his Success), exactly; OddsTooCostly past the budget."""
    return end_chances(gm_dice, entrants, rulings, assume_consent, max_work)[PairEnd.WON]


def end_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int = MAX_WORK,
) -> dict[PairEnd, tuple[Fraction, ...]]:
    """P(each player's pair ends each way), exactly; a dead tie is reported as such."""
    return joint_ends(gm_dice, entrants, (), rulings, assume_consent, max_work)[0]


JointEnds = dict[tuple[PairEnd, ...], Fraction]


def joint_ends(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    tracked: tuple[int, ...],
    rulings: Rulings | None = None,
    assume_consent: bool = True,
    max_work: int = MAX_WORK,
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
    counts, joint = _walk(gm_dice, entrants, kinds, lanes, slots, max_work)
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


# --- one pair's lane ------------------------------------------------------------------

_CONTROLS = (None, Side.GM, Side.PLAYER)
_NOBODY, _GM, _PLAYER = 0, 1, 2


class Lane(NamedTuple):
    """One live pair as the odds see it (plain ints, so sorting and hashing are fast).

    A controlling player's value is either ``player`` or, kept lazily, one of the
    equally likely ``faces`` (then ``player`` and ``gm`` are 0).
    """

    kind: int  # the player's class: players with the same declaration share it
    control: int  # _NOBODY, _GM or _PLAYER
    gm: int  # the GM's value in this pair, 0 for none or forgotten
    player: int  # the player's value, 0 for none, forgotten or kept in faces
    faces: tuple[int, ...]
    hand: int
    light: int
    proposals: int
    gm_proposals: int

    def values(self) -> tuple[int, ...]:
        """The player's possible values, each equally likely."""
        return self.faces or (self.player,)

    def state(self, gm_left: int, player: int) -> DuelState:
        """A one-pair duel state with this lane and the player's value ``player``."""
        pair = PairState(self.gm or None, player or None, _CONTROLS[self.control])
        return DuelState(
            gm_left,
            (self.hand,),
            (self.light,),
            (pair,),
            (PairEnd.LIVE,),
            (self.proposals,),
            (self.gm_proposals,),
        )


# The lanes a throw can lead to, each with its chance as numerator and denominator.
Step = tuple[tuple[Lane, int, int], ...]


class Moment(NamedTuple):
    """One throw of a lane's stretch (see :meth:`_Lanes._stretch`), each with its chance."""

    taken: tuple[tuple[Lane, Fraction], ...]  # the player takes control at this throw
    held: tuple[tuple[Lane, Fraction], ...]  # the GM still holds the lane after it
    ended: tuple[tuple[PairEnd, Fraction], ...]  # the lane ended before it


# A lane's chance of each end (in _ENDS's order) as integers over ``_Lanes.unit``:
# summed over the faces of the GM's last die, their total (one face), and per face.
Vector = tuple[int, ...]


class Profile(NamedTuple):
    """One quantity of a lane for :func:`_finish_last`, exact in integers."""

    summed: Vector  # each end, summed over the 10 faces of the GM's last die
    total: int  # the chance the quantity covers (the same for each face)
    by_die: tuple[Vector, ...]  # each end, per face


class Outlook(NamedTuple):
    """A lane with the GM's last die to come, before :func:`~.duel.prepare`."""

    now: Profile  # its ends if the GM throws now
    held: bool  # whether the GM holds it (or it ended), so it does not make the GM roll
    # Per moment of its stretch (the GM holding every lane), its ends if the GM's last
    # die follows that moment: over every state, and over those the player did not take.
    moments: tuple[tuple[Profile, Profile], ...]
    final: Profile  # its ends if the player never takes control in the stretch


class Stretch(NamedTuple):
    moments: tuple[Moment, ...]
    ended: tuple[tuple[PairEnd, Fraction], ...]  # how it ends if the player never takes control


class _Lanes:
    """What one lane does before and during a throw, memoised per lane and GM die."""

    def __init__(
        self, entrants: tuple[Entrant, ...], rulings: Rulings, assume_consent: bool
    ) -> None:
        self.entrants = entrants  # one per class
        self.rulings = rulings
        self.assume_consent = assume_consent
        # Memoised per test: each has its own entrants and rulings.
        self.prepared = cache(self._prepared)
        self.step = cache(self._step)
        self.alone = cache(self._alone)
        self.stretch = cache(self._stretch)
        self.last = cache(self._last)
        self.outlook = cache(self._outlook)
        self.flat = cache(self._flat)
        self.thrown = cache(self._thrown)
        # The longest stretch a lane can have: one of its dice (or Light tokens) a throw.
        self.longest = max(len(e.hand) + e.light for e in entrants)
        # Integers over this unit hold every chance of a lane's future dice exactly,
        # given its state: powers of ten, and (a lazy value) one of 1 to 10 faces.
        per_test = rulings.negotiations_per_test
        dice = 2 + max(len(e.hand) + e.light + 2 * per_test for e in entrants)
        self.unit = 2520 * SIDES**dice

    def _lane(self, kind: int, state: DuelState) -> Lane:
        """The lane of a one-pair state, with what cannot matter any more forgotten.

        Values only rise, so a side below the controller's value takes control only
        with a new die at least that value, whatever its old value was. An old value
        *equal* to the controller's matters only to a Negotiation (the die must beat
        it to "take" control), so it is kept only while that side may still propose.
        """
        entrant, rulings = self.entrants[kind], self.rulings
        per_test = rulings.negotiations_per_test
        pair = state.pairs[0]
        control = _CONTROLS.index(pair.control)
        gm, player = pair.gm or 0, pair.player or 0
        if control == _GM:
            gm_may_propose = entrant.gm_negotiate is not None and state.gm_proposals[0] < per_test
            if player < gm or (player == gm and not gm_may_propose):
                player = 0
        if control == _PLAYER:
            may_propose = (
                rulings.negotiation_consent is not Consent.NEVER
                and entrant.negotiate is not None
                and state.proposals[0] < per_test
            )
            if gm < player or (gm == player and not may_propose):
                gm = 0
        return Lane(
            kind,
            control,
            gm,
            player,
            (),
            state.hands[0],
            state.lights[0],
            state.proposals[0],
            state.gm_proposals[0],
        )

    def _prepared(self, lane: Lane, gm_can: bool) -> Lane | PairEnd:
        """The lane after :func:`~.duel.prepare` (escape, Light), or how it ended."""
        entrant = self.entrants[lane.kind]
        # Prepare never reads the controlling player's value: any face will do.
        state, _ = prepare(lane.state(int(gm_can), lane.values()[0]), (entrant,))
        if state.ends[0] is not PairEnd.LIVE:
            return state.ends[0]
        return lane._replace(hand=state.hands[0], light=state.lights[0])

    def _step(self, lane: Lane, gm_die: int | None) -> Step:
        """Where a throw with ``gm_die`` (None: the GM does not roll) takes the lane."""
        entrant = self.entrants[lane.kind]
        together = together_side(self.rulings)
        rolls = lane.control != _PLAYER and lane.hand > 0
        values = lane.values()
        share = Fraction(1, len(values) * (SIDES if rolls else 1))
        found: dict[Lane, Fraction] = defaultdict(Fraction)
        for value in values:
            before = lane.state(1, value)
            for die in FACES if rolls else (None,):
                dice = {} if die is None else {0: die}
                after, _ = throw(before, gm_die, dice, together)
                for drawn, final in self._negotiated(entrant, before, after, gm_die, die):
                    found[self._lane(lane.kind, final)] += share / SIDES**drawn
        return _lazy(found)

    def _negotiated(
        self,
        entrant: Entrant,
        before: DuelState,
        after: DuelState,
        gm_die: int | None,
        die: int | None,
    ) -> list[tuple[int, DuelState]]:
        """(rerolls drawn, state) after the player's proposal, then the GM's, this throw."""
        consent = self.rulings.negotiation_consent
        if consent is not Consent.NEVER and negotiation_due(
            before, after, gm_die, 0, entrant, self.rulings
        ):
            after = propose(after, 0)
            if consent is Consent.ALWAYS or self.assume_consent:
                together = together_side(self.rulings)
                return [
                    (drawn + 1, state)
                    for face in FACES
                    for drawn, state in self._gm_negotiated(
                        entrant, before, reroll(before, after, 0, die, face, together), gm_die, die
                    )
                ]
        return self._gm_negotiated(entrant, before, after, gm_die, die)

    def _gm_negotiated(
        self,
        entrant: Entrant,
        before: DuelState,
        after: DuelState,
        gm_die: int | None,
        die: int | None,
    ) -> list[tuple[int, DuelState]]:
        if gm_negotiation_due(before, after, die, 0, entrant, self.rulings):
            together = together_side(self.rulings)
            return [(1, gm_reroll(before, after, 0, gm_die, face, together)) for face in FACES]
        return [(0, after)]

    def _stretch(self, lane: Lane) -> Stretch:
        """The lane's throws while the GM holds it and does not roll, until it takes control.

        ``lane`` is prepared, held by the GM, and the GM has dice. Moment ``s`` gives
        the lanes in which the player takes control at throw ``s + 1``, first; those
        the GM still holds after it (not yet prepared); and how it ended, if it did,
        before that throw. ``ended`` is how it ends if it never takes control.
        """
        moments: list[Moment] = []
        current: dict[Lane, Fraction] = {lane: Fraction(1)}
        ended: dict[PairEnd, Fraction] = {}
        while current:
            taken: defaultdict[Lane, Fraction] = defaultdict(Fraction)
            held: defaultdict[Lane, Fraction] = defaultdict(Fraction)
            for now, chance in current.items():
                for after, numerator, denominator in self.step(now, None):
                    found = held if after.control == _GM else taken
                    found[after] += chance * numerator / denominator
            moments.append(Moment(tuple(taken.items()), tuple(held.items()), tuple(ended.items())))
            current, ended = defaultdict(Fraction), dict(ended)
            for after, chance in held.items():
                ready = self.prepared(after, True)
                if isinstance(ready, PairEnd):
                    ended[ready] = ended.get(ready, Fraction(0)) + chance
                else:
                    current[ready] += chance
        return Stretch(tuple(moments), tuple(ended.items()))

    def _last(self, lane: Lane) -> tuple[dict[PairEnd, Fraction], ...]:
        """How the lane ends if the GM now throws its last die, per face of that die.

        ``lane`` is taken before :func:`~.duel.prepare`; after the throw the GM has no
        dice, so the lane finishes alone.
        """
        ready = self.prepared(lane, True)
        if isinstance(ready, PairEnd):
            return ({ready: Fraction(1)},) * SIDES
        by_die = []
        for gm_die in FACES:
            ends: dict[PairEnd, Fraction] = defaultdict(Fraction)
            for after, numerator, denominator in self.step(ready, gm_die):
                for end, p in self.alone(after, 0).items():
                    ends[end] += p * numerator / denominator
            by_die.append(ends)
        return tuple(by_die)

    def _outlook(self, lane: Lane) -> Outlook:
        """The lane's :class:`Outlook`, with the GM's last die to come."""
        ready = self.prepared(lane, True)
        now = self._profile([(self.last(lane), Fraction(1))])
        if isinstance(ready, PairEnd):
            return Outlook(now, True, (), now)
        if ready.control != _GM:
            return Outlook(now, False, (), now)
        stretch = self.stretch(ready)
        moments = []
        for moment in stretch.moments:
            ended = [(({end: p},) * SIDES, Fraction(1)) for end, p in moment.ended]
            held = [(self.last(z), p) for z, p in moment.held] + ended
            taken = [(self.last(z), p) for z, p in moment.taken]
            moments.append((self._profile(taken + held), self._profile(held)))
        final = self._profile([(({end: p},) * SIDES, Fraction(1)) for end, p in stretch.ended])
        return Outlook(now, True, tuple(moments), final)

    def _flat(self, lane: Lane) -> tuple[int, ...]:
        """The lane's quantities in each of :func:`_finish_last`'s terms, in a row: per
        term its ends summed over the GM's last die, then their total. Terms: now, held
        now, each moment of a stretch (with and without the states the player took),
        final; a lane not held has no part in a stretch, and past its own stretch it
        stays final."""
        outlook = self.outlook(lane)
        zero = Profile((0,) * len(_ENDS), 0, ())
        terms = [outlook.now, outlook.now if outlook.held else zero]
        for moment in range(self.longest):
            if not outlook.held:
                terms += [zero, zero]
            elif moment < len(outlook.moments):
                terms += outlook.moments[moment]
            else:
                terms += [outlook.final, outlook.final]
        terms.append(outlook.final if outlook.held else zero)
        return tuple(value for term in terms for value in (*term.summed, term.total))

    def _thrown(self, lane: Lane, gm_die: int) -> tuple[int, ...]:
        """:meth:`_flat` of the lanes a throw with the GM's second-to-last die leads to,
        each weighted by its chance over ``unit`` (so the row is over ``unit`` squared)."""
        return _row(
            [(w, self.flat(after)) for after, w in _measure(self.step(lane, gm_die), self.unit)]
        )

    def _profile(
        self, parts: list[tuple[tuple[dict[PairEnd, Fraction], ...], Fraction]]
    ) -> Profile:
        """The sum of ``parts`` (ends per face of the GM's last die, times a chance)."""
        by_die = []
        for face in range(SIDES):
            ends: dict[PairEnd, Fraction] = defaultdict(Fraction)
            for per_face, chance in parts:
                for end, p in per_face[face].items():
                    ends[end] += chance * p
            by_die.append(tuple(_whole(ends[end] * self.unit) for end in _ENDS))
        summed = tuple(sum(column) for column in zip(*by_die, strict=True))
        return Profile(summed, sum(by_die[0]), tuple(by_die))

    def _alone(self, lane: Lane, gm_left: int) -> dict[PairEnd, Fraction]:
        """How the lane ends when nothing else can change the GM's rolls (one-on-one).

        ``lane`` is taken before :func:`~.duel.prepare`, which is not idempotent: a Light
        token turned into a die would let the escape trigger look again.
        """
        ready = self.prepared(lane, gm_left > 0)
        if isinstance(ready, PairEnd):
            return {ready: Fraction(1)}
        ends: dict[PairEnd, Fraction] = defaultdict(Fraction)
        gm_rolls = gm_left > 0 and ready.control != _GM
        for gm_die in FACES if gm_rolls else (None,):
            share = Fraction(1, SIDES) if gm_rolls else Fraction(1)
            for after, numerator, denominator in self.step(ready, gm_die):
                chance = share * numerator / denominator
                for end, p in self.alone(after, gm_left - gm_rolls).items():
                    ends[end] += chance * p
        return ends


def _lazy(found: dict[Lane, Fraction]) -> Step:
    """Lanes whose controlling player's value differs only, at equal chances, merged.

    Until a GM die is compared with it, the value changes nothing: the faces are kept as
    one set, each equally likely, and split when a die lands.
    """
    merged: dict[tuple[Lane, Fraction], list[int]] = defaultdict(list)
    step: list[tuple[Lane, Fraction]] = []
    for lane, chance in found.items():
        if lane.control == _PLAYER and not lane.gm and not lane.faces:
            merged[lane._replace(player=0), chance].append(lane.player)
        else:
            step.append((lane, chance))
    for (lane, chance), faces in merged.items():
        step.append((lane._replace(faces=tuple(sorted(faces))), chance * len(faces)))
    return tuple((lane, chance.numerator, chance.denominator) for lane, chance in step)


# --- the joint walk -------------------------------------------------------------------

# The GM's dice left, the live lanes (sorted), and how each tracked player's pair ended
# (LIVE while it has not).
Joint = tuple[int, tuple[Lane, ...], tuple[PairEnd, ...]]
_ENDS: tuple[PairEnd, ...] = tuple(end for end in PairEnd if end is not PairEnd.LIVE)


def _walk(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    kinds: tuple[int, ...],
    lanes: _Lanes,
    slots: dict[int, int],
    max_work: int,
) -> tuple[list[dict[PairEnd, Fraction]], JointEnds]:
    """Each class's summed chance of each end, walking the joint state, and the joint
    chances of the ends of the tracked classes (``slots``: class to slot)."""
    walk = _Walk(gm_dice, entrants, lanes, slots, max_work)
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
        max_work: int,
    ) -> None:
        per_test = lanes.rulings.negotiations_per_test
        rerolls = sum(
            per_test * ((e.negotiate is not None) + (e.gm_negotiate is not None)) for e in entrants
        )
        most = gm_dice + sum(len(e.hand) + e.light for e in entrants) + rerolls
        self.scale = SIDES**most
        self.lanes, self.slots, self.max_work = lanes, slots, max_work
        self.ends: list[defaultdict[PairEnd, int]] = [defaultdict(int) for _ in lanes.entrants]
        self.joint_ends: defaultdict[tuple[PairEnd, ...], int] = defaultdict(int)
        self.levels: dict[int, dict[Joint, int]] = defaultdict(dict)
        self.work = 0

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
                if self.work > self.max_work:
                    raise OddsTooCostly(f"more than {self.max_work} joint transitions to examine")
        counts: list[dict[PairEnd, Fraction]] = [
            {end: Fraction(e[end], self.scale) for end in _ENDS} for e in self.ends
        ]
        joint_ends = {
            key: Fraction(mass, self.scale) for key, mass in self.joint_ends.items() if mass
        }
        return counts, joint_ends

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


def _left(gm_left: int, joint: tuple[Lane, ...]) -> int:
    return gm_left + sum(lane.hand + lane.light for lane in joint)


def _whole(value: Fraction) -> int:
    assert value.denominator == 1, "a chance finer than the dice"
    return value.numerator


def _exactly(numerator: int, denominator: int) -> int:
    whole, rest = divmod(numerator, denominator)
    assert not rest, "a chance finer than the dice"
    return whole


def _times(mass: int, chance: Fraction) -> int:
    """``mass * chance``: exact, since both count outcomes of d10s (asserted)."""
    return _exactly(mass * chance.numerator, chance.denominator)


def _measure(step: Step, unit: int) -> list[tuple[Lane, int]]:
    """A lane's states after a throw, each with its chance in integers over ``unit``."""
    return [
        (lane, _exactly(numerator * unit, denominator)) for lane, numerator, denominator in step
    ]


def _row(parts: list[tuple[int, tuple[int, ...]]]) -> tuple[int, ...]:
    """The sum of weighted rows of :meth:`_Lanes._flat`."""
    total = [0] * len(parts[0][1])
    for weight, row in parts:
        total = [a + weight * b for a, b in zip(total, row, strict=True)]
    return tuple(total)


__all__ = [
    "MAX_WORK",
    "JointEnds",
    "OddsTooCostly",
    "end_chances",
    "failure_chances",
    "joint_ends",
    "success_chances",
]
