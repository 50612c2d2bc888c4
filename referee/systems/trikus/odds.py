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
* once the GM has no dice left, or a single lane is left, the lanes no longer
  interact, and each finishes alone (memoised, one-on-one).

The joint state still grows with players and dice, so :func:`success_chances` takes a
budget of work (``max_work``, joint transitions examined) and raises
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
MAX_WORK = 400_000  # joint transitions examined: about a second on the reference machine


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
    rulings = rulings or Rulings()
    classes: dict[tuple[Entrant, int], int] = {}
    kinds = tuple(
        classes.setdefault((replace(e, name=""), i if i in tracked else -1), len(classes))
        for i, e in enumerate(entrants)
    )
    lanes = _Lanes(tuple(e for e, _ in classes), rulings, assume_consent)
    slots = {kinds[i]: slot for slot, i in enumerate(tracked)}
    counts, joint = _walk(gm_dice, entrants, kinds, lanes, slots, max_work)
    size = [kinds.count(k) for k in range(len(classes))]
    ends: dict[PairEnd, tuple[Fraction, ...]] = {
        end: tuple(counts[k][end] / size[k] for k in kinds) for end in _ENDS
    }
    return ends, joint


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


def _walk(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    kinds: tuple[int, ...],
    lanes: _Lanes,
    slots: dict[int, int],
    max_work: int,
) -> tuple[list[dict[PairEnd, Fraction]], JointEnds]:
    """Each class's summed chance of each end, walking the joint state throw by throw,
    and the joint chances of the ends of the tracked classes (``slots``: class to slot).

    Masses are integers: chances scaled by ``10 ** most``, the most dice a test can
    draw, so every chance of an event over the dice is a whole number of them.
    """
    per_test = lanes.rulings.negotiations_per_test
    rerolls = sum(
        per_test * ((e.negotiate is not None) + (e.gm_negotiate is not None)) for e in entrants
    )
    most = gm_dice + sum(len(e.hand) + e.light for e in entrants) + rerolls
    scale = SIDES**most
    ends: list[defaultdict[PairEnd, int]] = [defaultdict(int) for _ in lanes.entrants]
    first = tuple(
        sorted(
            Lane(k, _NOBODY, 0, 0, (), len(e.hand), e.light, 0, 0)
            for e, k in zip(entrants, kinds, strict=True)
        )
    )
    # A throw always draws a die from the GM or a hand (Light tokens turn into hands),
    # so states are taken by dice left, most first: each is complete when taken.
    levels: dict[int, dict[Joint, int]] = defaultdict(dict)
    levels[_left(gm_dice, first)][gm_dice, first, (PairEnd.LIVE,) * len(slots)] = scale
    joint_ends: defaultdict[tuple[PairEnd, ...], int] = defaultdict(int)
    work = 0
    for level in range(_left(gm_dice, first), -1, -1):
        for (gm_left, joint, done), mass in levels.pop(level, {}).items():
            live: list[Lane] = []
            ended = list(done)
            for lane in joint:
                ready = lanes.prepared(lane, gm_left > 0)
                if isinstance(ready, PairEnd):
                    ends[lane.kind][ready] += mass
                    if lane.kind in slots:
                        ended[slots[lane.kind]] = ready
                else:
                    live.append(ready)
            if gm_left == 0 or len(live) == 1:
                for lane in joint:  # nothing couples the lanes any more
                    for end, chance in lanes.alone(lane, gm_left).items():
                        if not isinstance(lanes.prepared(lane, gm_left > 0), PairEnd):
                            ends[lane.kind][end] += _times(mass, chance)
                _finish_tracked(gm_left, joint, done, mass, lanes, slots, joint_ends)
                continue
            if not live:
                joint_ends[tuple(ended)] += mass
                continue
            work += _throw(gm_left, live, tuple(ended), mass, lanes, levels)
            if work > max_work:
                raise OddsTooCostly(f"more than {max_work} joint transitions to examine")
    counts: list[dict[PairEnd, Fraction]] = [
        {end: Fraction(e[end], scale) for end in _ENDS} for e in ends
    ]
    return counts, {key: Fraction(mass, scale) for key, mass in joint_ends.items() if mass}


def _finish_tracked(
    gm_left: int,
    joint: tuple[Lane, ...],
    done: tuple[PairEnd, ...],
    mass: int,
    lanes: _Lanes,
    slots: dict[int, int],
    joint_ends: defaultdict[tuple[PairEnd, ...], int],
) -> None:
    """The tracked lanes' joint ends once each finishes alone: independent, so a product."""
    spread: dict[tuple[PairEnd, ...], Fraction] = {done: Fraction(1)}
    for lane in joint:
        if lane.kind not in slots:
            continue
        slot = slots[lane.kind]
        spread = {
            (*key[:slot], end, *key[slot + 1 :]): chance * p
            for key, chance in spread.items()
            for end, p in lanes.alone(lane, gm_left).items()
        }
    for key, chance in spread.items():
        joint_ends[key] += _times(mass, chance)


_ENDS: tuple[PairEnd, ...] = tuple(end for end in PairEnd if end is not PairEnd.LIVE)


def _left(gm_left: int, joint: tuple[Lane, ...]) -> int:
    return gm_left + sum(lane.hand + lane.light for lane in joint)


def _times(mass: int, chance: Fraction) -> int:
    """``mass * chance``: exact, since both count outcomes of d10s (asserted)."""
    whole, rest = divmod(mass * chance.numerator, chance.denominator)
    assert not rest, "a chance finer than the dice"
    return whole


def _throw(
    gm_left: int,
    live: list[Lane],
    done: tuple[PairEnd, ...],
    mass: int,
    lanes: _Lanes,
    levels: dict[int, dict[Joint, int]],
) -> int:
    """Spread ``mass`` over the joint states after one throw; returns the work done."""
    gm_rolls = any(lane.control != _GM for lane in live)  # gm_left > 0 here
    effects: dict[tuple[Step, ...], int] = defaultdict(int)  # GM faces by their effect
    for gm_die in FACES if gm_rolls else (None,):
        effects[tuple(lanes.step(lane, gm_die) for lane in live)] += 1
    left = gm_left - gm_rolls
    work = 0
    for steps, faces in effects.items():
        base = mass * faces // SIDES if gm_rolls else mass
        for combo in product(*steps):
            m = base
            for _, numerator, denominator in combo:
                m = m * numerator // denominator  # exact: see _walk
            joint = tuple(sorted([lane for lane, _, _ in combo]))
            bucket = levels[_left(left, joint)]
            bucket[left, joint, done] = bucket.get((left, joint, done), 0) + m
        work += len(steps) and prod(len(step) for step in steps)
    return work


__all__ = [
    "MAX_WORK",
    "JointEnds",
    "OddsTooCostly",
    "end_chances",
    "failure_chances",
    "joint_ends",
    "success_chances",
]
