"""The trikus duel (RULES.md §3.2-3.3): one die at a time, control as a state, per player-GM pair.

A test is a set of pairs, one per player against the GM; each pair is a duel, and
the GM's dice count in every pair. The duel is a small state machine of pure
functions that both :func:`play` (with a dice source) and :mod:`.odds` (enumerating
every face) drive, so the exact odds are the odds of this very code:

* :func:`prepare` before a throw: ends pairs whose roller has nothing left, lets a
  player escape or spend a Light token under his standing triggers;
* :func:`rollers`: who rolls now (every player not in control of his pair, and the
  GM while it lacks control against anyone);
* :func:`throw`: lands the dice and updates each pair (a first-throw tie voids both
  dice in that pair);
* :func:`negotiation_due`: whether a player's ``negotiate=v`` proposes a reroll of
  the GM's last die, and :func:`reroll` lands the new value.

Dice order (for :class:`~referee.base.dice.FixedDice`): within a throw the GM's die
first, then the players' in the order they were listed; a Negotiation's reroll right
after the throw it answers. A side left alone with dice in a pair without control
rolls one die, takes control and wins (R-15).

Control in a pair: the higher value controls; on equal values, whoever reached it later
(a new die equal to a side's own value reaches it again); the same moment on the first
throw voids both dice (R-14), later R-16 decides; a tie with no controller yet voids
again. A Negotiation reroll replaces the GM's die in the proposer's pair only ("Wynik
jednego Gracza nie wpływa na wyniki pozostałych"), landing after the throw it answers.
A player proposes when the GM's die of a throw took or raised the GM's control of his
pair and shows at least his ``negotiate=v``; a refused proposal counts toward R-22.

Escape (``escape=(k, v)``) is checked before each throw in which the player must roll:
the GM controls his pair at a value of at least v, and he holds 1 to k unrolled dice.
In a duel between players the second-named, in the GM's place, escapes alike
(``Entrant.gm_escape``): the first then keeps control and wins.

Either side may propose (§3.5): a player with ``negotiate=v``, the GM with its own
threshold, to each player whose policy accepts (``Entrant.gm_negotiate``), after the
players' proposals; R-22 counts them per pair. A GM that still loses suffers nothing.

Boom (R-53) counts every die that lands in the test: voided dice and Negotiation
rerolls included (each is a die rolled), Combat Difficulty dice not (they are not
part of the test). Each face booms once, when its third die lands.

Vector 1 of §3.8 (Master 3 dice against the GM's 2):

>>> from referee.base.dice import FixedDice
>>> duel = play(2, (Entrant("Michal", (DieKind.LINE,) * 3),), FixedDice([5, 7, 7, 1, 9]))
>>> [(e.number, [d.value for d in e.dice], e.control) for e in duel.throws]
[(1, [5, 7], ('Michal',)), (2, [7], ('GM',)), (3, [1], ('GM',)), (4, [9], ('Michal',))]
>>> duel.ends
(<PairEnd.WON: 'won'>,)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum

from referee.base.dice import DiceSource
from referee.systems.trikus.rulings import Rulings, TogetherTie

GM = "GM"
SIDES = 10


class Side(Enum):
    GM = "gm"
    PLAYER = "player"


class DieKind(Enum):
    """Where a die in a player's hand came from (shown in the verdict)."""

    LINE = "line"
    ALLY = "ally"
    HELPFUL = "helpful"  # a helpful item's die (§3.5)
    MORALE = "morale"
    EMPOWER = "empowerment"
    LIGHT = "light"  # a Light token spent by the light=K trigger
    GM = "gm"
    REROLL = "reroll"  # the GM's die rolled again after a Negotiation


class PairEnd(Enum):
    LIVE = "live"
    WON = "won"  # the player held control when the GM had to roll and could not
    LOST = "lost"  # the player had to roll and had nothing left
    ESCAPED = "escaped"
    DEAD_TIE = "dead tie"  # a void tie left both sides without dice


@dataclass(frozen=True)
class PairState:
    """One player's duel with the GM: each side's value and who controls."""

    gm: int | None = None
    player: int | None = None
    control: Side | None = None  # None: nothing counted yet (start, or after a void)


def land(pair: PairState, gm_die: int | None, player_die: int | None, together: Side) -> PairState:
    """The pair after dice landing at one moment; unchanged (a void) on a first-throw tie."""
    if pair.control is None:
        if gm_die is not None and player_die is not None:
            if gm_die == player_die:
                return pair
            return PairState(gm_die, player_die, Side.GM if gm_die > player_die else Side.PLAYER)
        if gm_die is not None:
            return PairState(gm_die, None, Side.GM)
        if player_die is not None:
            return PairState(None, player_die, Side.PLAYER)
        return pair
    old_gm, old_player = pair.gm or 0, pair.player or 0
    gm_value, player_value = max(old_gm, gm_die or 0), max(old_player, player_die or 0)
    if gm_value != player_value:
        control = Side.GM if gm_value > player_value else Side.PLAYER
    else:
        # A new die showing the side's value reaches it again, later ("Remis wystarcza").
        gm_now = gm_die == gm_value
        player_now = player_die == player_value
        if gm_now and player_now:
            control = together
        elif gm_now:
            control = Side.GM
        elif player_now:
            control = Side.PLAYER
        else:
            control = pair.control
    return PairState(gm_value or None, player_value or None, control)


@dataclass(frozen=True)
class Entrant:
    """A player as the duel sees him: his hand and his standing triggers (§3.6)."""

    name: str
    hand: tuple[DieKind, ...]  # dice committed, rolled in this order
    light: int = 0  # Light tokens the trigger may spend, one whenever he must roll with none
    escape: tuple[int, int] | None = None  # (k, v): withdraw with <= k unrolled dice vs >= v
    negotiate: int | None = None  # propose a reroll of a GM die >= v that took control
    # The GM's standing proposal to reroll this player's die >= v that took control,
    # set only when the player's policy accepts it (a refusal would change nothing).
    gm_negotiate: int | None = None
    # The other side's proposal waits for this player's answer (a duel between players
    # whose first-named did not declare ``accept``); False: agreed at once.
    gm_asks: bool = False
    # The second-named's escape in a duel between players: (k, v, t), with <= k unrolled
    # dice (his t Light tokens left out) vs >= v.
    gm_escape: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class DuelState:
    """Everything the rest of a duel depends on (hashable: the odds memoise on it)."""

    gm_left: int
    hands: tuple[int, ...]  # dice each player still holds
    lights: tuple[int, ...]  # Light tokens each trigger may still spend
    pairs: tuple[PairState, ...]
    ends: tuple[PairEnd, ...]
    proposals: tuple[int, ...]  # Negotiations each player has proposed
    gm_proposals: tuple[int, ...]  # Negotiations the GM has proposed in each pair

    @property
    def over(self) -> bool:
        return all(end is not PairEnd.LIVE for end in self.ends)


def start(gm_dice: int, entrants: tuple[Entrant, ...]) -> DuelState:
    """The state before the first throw."""
    count = len(entrants)
    return DuelState(
        gm_dice,
        tuple(len(e.hand) for e in entrants),
        tuple(e.light for e in entrants),
        (PairState(),) * count,
        (PairEnd.LIVE,) * count,
        (0,) * count,
        (0,) * count,
    )


def _player_must_roll(pair: PairState) -> bool:
    return pair.control is not Side.PLAYER


def _gm_must_roll(pair: PairState) -> bool:
    return pair.control is not Side.GM


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare` did before a throw, for the log."""

    escaped: tuple[int, ...] = ()
    lit: tuple[int, ...] = ()  # players who spent a Light token
    ended: tuple[int, ...] = ()  # pairs that ended (won, lost or dead tie)
    gm_escaped: bool = False  # the other side withdrew (its escape, a duel between players)


def prepare(state: DuelState, entrants: tuple[Entrant, ...]) -> tuple[DuelState, Prepared]:
    """Apply escapes and Light triggers, and end each pair whose roller has nothing left."""
    hands, lights, ends = list(state.hands), list(state.lights), list(state.ends)
    gm_escaped = False
    escaped: list[int] = []
    lit: list[int] = []
    ended: list[int] = []
    for i, (pair, entrant) in enumerate(zip(state.pairs, entrants, strict=True)):
        if ends[i] is not PairEnd.LIVE:
            continue
        if _player_must_roll(pair):
            rule = entrant.escape
            if (
                rule is not None
                and pair.control is Side.GM
                and 1 <= hands[i] <= rule[0]
                and (pair.gm or 0) >= rule[1]
            ):
                ends[i] = PairEnd.ESCAPED
                escaped.append(i)
                continue
            if hands[i] == 0 and lights[i] > 0:
                hands[i], lights[i] = 1, lights[i] - 1
                lit.append(i)
        other = entrant.gm_escape  # the other player escapes: this one keeps control and wins
        held = pair.control is Side.PLAYER and (pair.player or 0) >= (other or (0, 0))[1]
        if other and held and 1 <= state.gm_left - other[2] <= other[0]:
            ends[i], gm_escaped = PairEnd.WON, True
            ended.append(i)
            continue
        player_can, gm_can = hands[i] > 0, state.gm_left > 0
        if pair.control is Side.GM and not player_can:
            ends[i] = PairEnd.LOST
        elif pair.control is Side.PLAYER and not gm_can:
            ends[i] = PairEnd.WON
        elif pair.control is None and not player_can and not gm_can:
            ends[i] = PairEnd.DEAD_TIE
        else:
            continue
        ended.append(i)
    if not (escaped or lit or ended or gm_escaped):
        return state, _NOTHING
    new = DuelState(
        state.gm_left,
        tuple(hands),
        tuple(lights),
        state.pairs,
        tuple(ends),
        state.proposals,
        state.gm_proposals,
    )
    return new, Prepared(tuple(escaped), tuple(lit), tuple(ended), gm_escaped)


_NOTHING = Prepared()


def rollers(state: DuelState) -> tuple[bool, tuple[int, ...]]:
    """Whether the GM rolls now, and which players do (call after :func:`prepare`)."""
    live = [i for i, end in enumerate(state.ends) if end is PairEnd.LIVE]
    gm = state.gm_left > 0 and any(_gm_must_roll(state.pairs[i]) for i in live)
    players = tuple(i for i in live if _player_must_roll(state.pairs[i]) and state.hands[i] > 0)
    return gm, players


def throw(
    state: DuelState, gm_die: int | None, player_dice: dict[int, int], together: Side
) -> tuple[DuelState, tuple[int, ...]]:
    """Land one throw; returns the new state and the pairs where a tie voided both dice."""
    pairs = list(state.pairs)
    voided: list[int] = []
    for i, pair in enumerate(state.pairs):
        if state.ends[i] is not PairEnd.LIVE:
            continue
        player_die = player_dice.get(i)
        pairs[i] = land(pair, gm_die, player_die, together)
        if pair.control is None and gm_die is not None and gm_die == player_die:
            voided.append(i)
    hands = tuple(h - (1 if i in player_dice else 0) for i, h in enumerate(state.hands))
    gm_left = state.gm_left - (1 if gm_die is not None else 0)
    new = DuelState(
        gm_left, hands, state.lights, tuple(pairs), state.ends, state.proposals, state.gm_proposals
    )
    return new, tuple(voided)


def _value(pair: PairState, side: Side) -> int | None:
    return pair.gm if side is Side.GM else pair.player


def _took_control(
    before: DuelState,
    after: DuelState,
    i: int,
    die: int | None,
    side: Side,
    threshold: int | None,
    made: int,
    rulings: Rulings,
) -> bool:
    """Whether ``side``'s ``die`` just took or raised its control of pair ``i`` and shows at
    least ``threshold``, with fewer than R-22's Negotiations (``made``) proposed there."""
    pair, old = after.pairs[i], before.pairs[i]
    return (
        threshold is not None
        and die is not None
        and after.ends[i] is PairEnd.LIVE
        and made < rulings.negotiations_per_test
        and pair.control is side
        and die == _value(pair, side)
        and die > (_value(old, side) or 0)
        and die >= threshold
    )


def negotiation_due(
    before: DuelState,
    after: DuelState,
    gm_die: int | None,
    i: int,
    entrant: Entrant,
    rulings: Rulings,
) -> bool:
    """Whether player ``i`` proposes a reroll of the GM die that just took or raised control."""
    made = after.proposals[i]
    return _took_control(before, after, i, gm_die, Side.GM, entrant.negotiate, made, rulings)


def propose(state: DuelState, i: int) -> DuelState:
    """Count player ``i``'s proposal (made whether or not the GM agrees)."""
    proposals = tuple(n + (1 if j == i else 0) for j, n in enumerate(state.proposals))
    return replace(state, proposals=proposals)


def _relanded(
    before: DuelState,
    after: DuelState,
    i: int,
    rerolled: Side,
    other_die: int | None,
    new_value: int,
    together: Side,
) -> DuelState:
    """Pair ``i`` with ``rerolled``'s last die replaced by ``new_value``, landing after the
    other side's die of the same throw."""
    if rerolled is Side.GM:
        pair = land(land(before.pairs[i], None, other_die, together), new_value, None, together)
    else:
        pair = land(land(before.pairs[i], other_die, None, together), None, new_value, together)
    pairs = tuple(pair if j == i else p for j, p in enumerate(after.pairs))
    return replace(after, pairs=pairs)


def reroll(
    before: DuelState,
    after: DuelState,
    i: int,
    player_die: int | None,
    new_value: int,
    together: Side,
) -> DuelState:
    """Player ``i``'s pair with the GM's last die replaced by ``new_value`` (landing later)."""
    return _relanded(before, after, i, Side.GM, player_die, new_value, together)


def gm_negotiation_due(
    before: DuelState,
    after: DuelState,
    player_die: int | None,
    i: int,
    entrant: Entrant,
    rulings: Rulings,
) -> bool:
    """Whether the GM proposes (and player ``i`` accepts) rerolling the die that took control.

    Not in a pair whose GM die the player already had rerolled in this throw.
    """
    made = after.gm_proposals[i]
    return after.proposals[i] == before.proposals[i] and _took_control(
        before, after, i, player_die, Side.PLAYER, entrant.gm_negotiate, made, rulings
    )


def gm_reroll(
    before: DuelState,
    after: DuelState,
    i: int,
    gm_die: int | None,
    new_value: int,
    together: Side,
) -> DuelState:
    """Pair ``i`` with the player's last die replaced by ``new_value`` (landing later)."""
    relanded = _relanded(before, after, i, Side.PLAYER, gm_die, new_value, together)
    counted = tuple(n + (1 if j == i else 0) for j, n in enumerate(after.gm_proposals))
    return replace(relanded, gm_proposals=counted)


def together_side(rulings: Rulings) -> Side:
    return Side.PLAYER if rulings.together_tie is TogetherTie.PLAYER else Side.GM


# --- playing a duel with a dice source -------------------------------------------------


@dataclass(frozen=True)
class Die:
    """One die as it landed."""

    who: str  # "GM" or the player's name
    value: int
    kind: DieKind


@dataclass(frozen=True)
class Throw:
    """Dice landing at one moment, and who controls each pair after them."""

    number: int
    dice: tuple[Die, ...]
    control: tuple[str | None, ...]  # per pair: "GM", the player's name, or None (void)
    voided: tuple[str, ...] = ()  # players whose pair voided its first-throw tie


@dataclass(frozen=True)
class Reroll:
    """A Negotiation: one side proposed, the other answered, and the die's new value.

    A player proposes rerolling the GM's die; the GM (``proposer == "GM"``) proposes
    rerolling the player's, named in ``whose``.
    """

    number: int  # the throw it answers
    proposer: str
    old: int
    agreed: bool
    new: int | None
    control: tuple[str | None, ...]
    whose: str = GM  # the side whose die was rerolled


@dataclass(frozen=True)
class Note:
    """Something that happened between throws: an escape, a Light token, a pair's end."""

    before: int  # the throw it precedes
    who: str
    what: str  # "escaped", "light", "won", "lost", "dead tie"


Event = Throw | Reroll | Note


@dataclass(frozen=True)
class Boom:
    """Three dice of one face in a test (R-53): flagged when the third lands."""

    face: int
    throw: int


@dataclass(frozen=True)
class PendingNegotiation:
    """The duel stopped: a proposal awaits the other side's answer (the GM's, "ask")."""

    proposer: str  # a player's name, or "GM" (the GM's side: the second player in a duel)
    die: int  # the die to reroll
    throw: int
    whose: str = GM  # the side whose die it is, who answers


@dataclass(frozen=True)
class Duel:
    """A played duel: its log, each pair's end, and the draws that produced it."""

    entrants: tuple[Entrant, ...]
    gm_dice: int
    events: tuple[Event, ...]
    final: DuelState
    booms: tuple[Boom, ...]
    draws: tuple[int, ...]  # every value drawn, in order, to replay or resume
    pending: PendingNegotiation | None = None

    @property
    def throws(self) -> tuple[Throw, ...]:
        return tuple(e for e in self.events if isinstance(e, Throw))

    @property
    def ends(self) -> tuple[PairEnd, ...]:
        return self.final.ends

    def value(self, i: int) -> int:
        """The player's value in his pair at the end (for ordering successes)."""
        return self.final.pairs[i].player or 0

    def rolled(self, name: str) -> tuple[Die, ...]:
        return tuple(d for t in self.throws for d in t.dice if d.who == name)


def _controls(state: DuelState, entrants: tuple[Entrant, ...]) -> tuple[str | None, ...]:
    return tuple(
        None if p.control is None else GM if p.control is Side.GM else e.name
        for p, e in zip(state.pairs, entrants, strict=True)
    )


def play(
    gm_dice: int,
    entrants: tuple[Entrant, ...],
    dice: DiceSource,
    rulings: Rulings | None = None,
    answers: tuple[bool, ...] = (),
) -> Duel:
    """Play a duel to its end, or to a Negotiation the GM has not answered yet.

    ``answers`` are the GM's answers to the proposals made so far under ``"ask"``, in
    order; with ``"always"`` / ``"never"`` the GM's standing consent answers.
    """
    rulings = rulings or Rulings()
    together = together_side(rulings)
    state = start(gm_dice, entrants)
    events: list[Event] = []
    draws: list[int] = []
    faces: Counter[int] = Counter()
    booms: list[Boom] = []
    rolled = [0] * len(entrants)
    lit_now = [False] * len(entrants)
    answers_left = list(answers)
    number = 0

    def draw(throw_number: int) -> int:
        value = dice.roll(SIDES)
        draws.append(value)
        faces[value] += 1
        if faces[value] == 3:
            booms.append(Boom(value, throw_number))
        return value

    while True:
        state, prepared = prepare(state, entrants)
        for i in prepared.escaped:
            events.append(Note(number + 1, entrants[i].name, "escaped"))
        if prepared.gm_escaped:
            events.append(Note(number + 1, GM, "escaped"))
        for i in prepared.lit:
            lit_now[i] = True
            events.append(Note(number + 1, entrants[i].name, "light"))
        for i in prepared.ended:
            events.append(Note(number + 1, entrants[i].name, state.ends[i].value))
        if state.over:
            break
        gm_rolls, players = rollers(state)
        number += 1
        gm_die = draw(number) if gm_rolls else None
        player_dice: dict[int, int] = {}
        landed = [Die(GM, gm_die, DieKind.GM)] if gm_die is not None else []
        for i in players:
            player_dice[i] = draw(number)
            hand = entrants[i].hand
            kind = DieKind.LIGHT if lit_now[i] else hand[rolled[i]]
            lit_now[i] = False
            if kind is not DieKind.LIGHT:
                rolled[i] += 1
            landed.append(Die(entrants[i].name, player_dice[i], kind))
        before = state
        state, voided = throw(state, gm_die, player_dice, together)
        events.append(
            Throw(
                number,
                tuple(landed),
                _controls(state, entrants),
                tuple(entrants[i].name for i in voided),
            )
        )
        for i, entrant in enumerate(entrants):
            if not negotiation_due(before, state, gm_die, i, entrant, rulings):
                continue
            assert gm_die is not None
            consent = rulings.negotiation_consent.value
            if consent == "never":
                continue
            state = propose(state, i)
            if consent == "ask":
                if not answers_left:
                    pending = PendingNegotiation(entrant.name, gm_die, number)
                    return Duel(
                        entrants, gm_dice, tuple(events), state, tuple(booms), tuple(draws), pending
                    )
                agreed = answers_left.pop(0)
            else:
                agreed = True
            new = draw(number) if agreed else None
            if new is not None:
                state = reroll(before, state, i, player_dice.get(i), new, together)
            events.append(
                Reroll(number, entrant.name, gm_die, agreed, new, _controls(state, entrants))
            )
        for i, entrant in enumerate(entrants):
            die = player_dice.get(i)
            if gm_negotiation_due(before, state, die, i, entrant, rulings):
                assert die is not None
                agreed = True
                if entrant.gm_asks:
                    if not answers_left:
                        pending = PendingNegotiation(GM, die, number, entrant.name)
                        log = (tuple(events), state, tuple(booms), tuple(draws))
                        return Duel(entrants, gm_dice, *log, pending)
                    agreed = answers_left.pop(0)
                if agreed:
                    new = draw(number)
                    state = gm_reroll(before, state, i, gm_die, new, together)
                else:  # refused, the proposal still counts toward R-22
                    new = None
                    counted = tuple(n + (j == i) for j, n in enumerate(state.gm_proposals))
                    state = replace(state, gm_proposals=counted)
                controls = _controls(state, entrants)
                events.append(Reroll(number, GM, die, agreed, new, controls, entrant.name))
    return Duel(entrants, gm_dice, tuple(events), state, tuple(booms), tuple(draws))
