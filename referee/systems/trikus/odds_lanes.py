"""The lanes of a trikus test's exact odds: one player-GM pair's state, and the steps of
all pairs at one GM throw (:class:`_Lanes`), which :mod:`.odds` walks forward.

See :mod:`.odds` for how pairs interact and why the walk is exact.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import cache
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
from referee.systems.trikus.rulings import Consent, Rulings

FACES = range(1, SIDES + 1)
_ENDS: tuple[PairEnd, ...] = tuple(end for end in PairEnd if end is not PairEnd.LIVE)
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
