"""Each player's chance of Success in a trikus test, exact or estimated, within a budget.

Every played test, fight round and duel between players states each player's chance of
Success under his declaration, worked out before its dice (RULES.md §3.6):

* **exact** when it can be counted within the test's budget of steps
  (:attr:`~referee.base.limits.Limits.max_chance_steps`, about a second): each
  player's own ends by :mod:`.odds_count`; the joint ends of the players an
  ``on_success=cancel`` concerns by the general walk of :mod:`.odds`;
* **estimated** otherwise, from duels seeded by the test itself (:mod:`.odds_sample`),
  with the steps left: the same test always shows the same figure, stated with the
  half-width of its 95% interval ("≈ 36.4%, estimated, ±0.3 points at 95%").

The budget is a step budget, never a timer: a test spends from its own
:class:`~referee.base.effort.Effort`, and inside the pipeline from the post meter's
side allowance ``"chance"``
(:attr:`~referee.base.limits.Limits.max_post_chance_steps`), so a post of many tests
stays bounded; a test whose post has spent that allowance states no chance and says
why. Chances worked out with a full budget are kept per test shape, so a repeated test
costs nothing.

>>> from referee.systems.trikus.duel import DieKind, Entrant
>>> masters = tuple(Entrant(name, (DieKind.LINE,) * 3) for name in "PZMK")
>>> [describe(c) for c in success_chances(5, masters[:3], Rulings())]
['36.1%', '36.1%', '36.1%']
>>> describe(Chance(0.36432, 0.0031, 4000))
'≈ 36.4%, estimated, ±0.4 points at 95%'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from referee.base.effort import Effort, outermost
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.markdown import percent
from referee.systems.trikus.duel import Entrant, PairEnd
from referee.systems.trikus.odds import OddsTooCostly, joint_ends
from referee.systems.trikus.odds_count import Counting
from referee.systems.trikus.odds_sample import LEAST, Sampling, TooFewDuels
from referee.systems.trikus.rulings import Rulings

TARGET = 0.0035  # the half-width an estimate stops at (its precision then shows ±0.4 points)
# The half-width an estimate is sure of when a count is tried first: the count may use
# every step but what the estimate needs for this. It is kept below the ±0.5 points a
# verdict promises, as the first duels may measure the spread short.
LOOSEST = 0.004
SMALL_CANCEL = 11  # dice in a test with a cancel whose joint walk is tried first
NOT_COMPUTED = (
    "chance not computed: the tests before it in this post used the work one post may "
    "spend on chances"
)


@dataclass(frozen=True)
class Cancels:
    """``on_success=cancel`` in a test (R-17): whose Failure each player would cancel,
    and the rule that settles who succeeds given the ends of the players it concerns."""

    targets: tuple[int | None, ...]
    settle: Callable[[Mapping[int, PairEnd]], set[int]] = field(compare=False, hash=False)

    @property
    def tracked(self) -> tuple[int, ...]:
        """The players a cancel concerns (cancellers and targets), in order."""
        involved = {t for t in self.targets if t is not None}
        involved |= {i for i, t in enumerate(self.targets) if t is not None}
        return tuple(sorted(involved))


@dataclass(frozen=True)
class Chance:
    """A chance of Success as a verdict states it: exact, or estimated with a margin."""

    value: Fraction | float
    margin: float | None = None  # half-width of the estimate's 95% interval; None: exact
    duels: int = 0  # seeded duels behind an estimate

    @property
    def exact(self) -> Fraction | None:
        """The exact chance, or None for an estimate."""
        return self.value if self.margin is None else None  # type: ignore[return-value]


def describe(chance: Chance | None) -> str:
    """The chance as the verdict words it (the template filter ``chance``)."""
    if chance is None:
        return NOT_COMPUTED
    if chance.margin is None:
        return percent(chance.value)
    points = math.ceil(chance.margin * 1000 - 1e-9) / 10
    return f"≈ {percent(chance.value)}, estimated, ±{max(points, 0.1):.1f} points at 95%"


def success_chances(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    cancels: Cancels | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Chance | None, ...]:
    """Each player's chance of Success in a test against the GM's ``gm_dice``.

    A player succeeds when his pair is won; with ``cancels``, the players it concerns
    succeed as it settles them. None for everyone when the post's allowance is spent.
    """
    if not entrants:
        return ()
    tracked = cancels.tracked if cancels else ()
    targets = cancels.targets if cancels else ()
    key = ("test", gm_dice, _shape(entrants), targets, _rules(rulings))

    counting = Counting(gm_dice, entrants, rulings)

    def exact(effort: Effort) -> tuple[Chance, ...]:
        if not tracked:  # each player's own ends, counted on from where the count stopped
            return tuple(Chance(p) for p in counting.run(effort)[PairEnd.WON])
        ends, joint = joint_ends(gm_dice, entrants, tracked, rulings, effort=effort)
        chance = list(ends[PairEnd.WON])
        for i in tracked:
            chance[i] = Fraction(0)
        for tracked_ends, p in joint.items():
            for i in cancels.settle(dict(zip(tracked, tracked_ends, strict=True))):  # type: ignore[union-attr]
                chance[i] += p
        return tuple(Chance(p) for p in chance)

    def success(ends: tuple[PairEnd, ...]) -> list[bool]:
        won = [end is PairEnd.WON for end in ends]
        if cancels is not None:
            settled = cancels.settle({i: ends[i] for i in tracked})
            for i in tracked:
                won[i] = i in settled
        return won

    # Players alike (pools and triggers, no cancel between them) share one estimate.
    classes: dict[object, int] = {}
    kinds = tuple(
        classes.setdefault(
            (
                len(e.hand) + e.light,
                e.escape,
                e.negotiate,
                e.gm_negotiate,
                e.light * bool(e.escape),
                i if i in tracked else -1,
            ),
            len(classes),
        )
        for i, e in enumerate(entrants)
    )
    controls = tuple((i, False) for i in range(len(entrants)))
    # The joint ends of a cancel are walked anew each time: one try. A small test (11
    # dice in all or fewer, which the walk mostly finishes in a third of the budget)
    # tries first; a larger one after the estimate's first duels, with the steps they
    # will not need (duels with triggers may need most). Each player's own ends are
    # counted on from where the count stopped.
    small = gm_dice + sum(len(e.hand) + e.light for e in entrants) <= SMALL_CANCEL
    promising: Callable[[], bool] = counting.promising
    share: int | None = 10
    if tracked:
        promising, share = (lambda: not small), (3 if small else None)
    return _worked_out(
        key, limits, exact, promising, share, gm_dice, entrants, rulings, success, controls, kinds
    )


def duel_chances(
    pool: int, entrant: Entrant, rulings: Rulings, limits: Limits = DEFAULT_LIMITS
) -> tuple[Chance | None, Chance | None]:
    """Each side's chance of Success in a duel between players: the first's pair won, or
    lost or escaped from (the second player's pool plays the GM's part)."""
    key = ("duel", pool, _shape((entrant,)), (), _rules(rulings))

    counting = Counting(pool, (entrant,), rulings)

    def exact(effort: Effort) -> tuple[Chance, ...]:
        ends = counting.run(effort)
        first = ends[PairEnd.WON][0]
        return Chance(first), Chance(ends[PairEnd.LOST][0] + ends[PairEnd.ESCAPED][0])

    def success(ends: tuple[PairEnd, ...]) -> list[bool]:
        return [ends[0] is PairEnd.WON, ends[0] in (PairEnd.LOST, PairEnd.ESCAPED)]

    first, second = _worked_out(
        key,
        limits,
        exact,
        counting.promising,
        10,
        pool,
        (entrant,),
        rulings,
        success,
        ((0, False), (0, True)),
        (0, 1),
    )
    return first, second


_KEPT: dict[tuple[object, ...], tuple[Chance, ...]] = {}  # chances worked out in full, by shape


def _worked_out(
    key: tuple[object, ...],
    limits: Limits,
    exact: Callable[[Effort], tuple[Chance, ...]],
    promising: Callable[[], bool],
    share: int | None,
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    rulings: Rulings,
    success: Callable[[tuple[PairEnd, ...]], list[bool]],
    controls: tuple[tuple[int, bool], ...],
    classes: tuple[int, ...],
) -> tuple[Chance | None, ...]:
    """Exact within the budget, else estimated; kept per shape when worked out in full.

    A quick count first (a ``share``-th of the steps; none when ``share`` is None), which
    settles most tests; else the estimate's first duels, which tell how many steps it
    will need; then, if the count looks worth it (``promising``), it goes on with every
    step but those the estimate needs for ±0.4 points (:data:`LOOSEST`); if it still
    stops, the estimate plays on with what is left.
    """
    full_key = (*key, limits.max_chance_steps)
    if full_key in _KEPT:
        return _KEPT[full_key]
    effort = _effort(limits)
    full = effort.left >= limits.max_chance_steps
    nothing = (None,) * len(controls)
    found: tuple[Chance, ...] | None = None
    try:
        if share is None:
            raise OddsTooCostly("no quick count")
        found = exact(Effort(min(effort.left, limits.max_chance_steps // share), parent=effort))
    except OddsTooCostly:
        sampling = Sampling(
            gm_dice, entrants, rulings, success, controls, classes, f"trikus {key!r}", TARGET
        )
        sampling.run(effort, until=LEAST)
        room = effort.left - sampling.steps_needed(LOOSEST)
        try:
            if room <= 0 or not promising():
                raise OddsTooCostly("not worth counting on")
            found = exact(Effort(room, parent=effort))
        except OddsTooCostly:
            sampling.run(effort)
            try:
                estimates = sampling.estimates()
            except TooFewDuels:  # the post's allowance is spent: no figure worth stating
                return nothing
            found = tuple(Chance(e.value, e.margin, e.duels) for e in estimates)
    if full:
        if len(_KEPT) >= 512:
            _KEPT.clear()
        _KEPT[full_key] = found
    return found


def _effort(limits: Limits) -> Effort:
    """A test's own budget, spent from the post's allowance for chances when in a post."""
    post = outermost()
    if post is None:
        return Effort(limits.max_chance_steps, alone=True)
    return Effort(limits.max_chance_steps, parent=post.side("chance", limits.max_post_chance_steps))


def _shape(entrants: tuple[Entrant, ...]) -> tuple[object, ...]:
    """What of each player the chances depend on (not his name, nor his dice's kinds)."""
    return tuple(
        (len(e.hand), e.light, e.escape, e.negotiate, e.gm_negotiate, e.gm_asks, e.gm_escape)
        for e in entrants
    )


def _rules(rulings: Rulings) -> tuple[object, ...]:
    return (
        rulings.together_tie,
        rulings.dead_tie,
        rulings.negotiation_consent,
        rulings.negotiations_per_test,
    )
