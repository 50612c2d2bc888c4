"""referee's dice notation against d20 itself (Avrae's library, a test dependency).

The forms are our own list, written from d20's grammar and the behaviours its tests
and README describe. Both rollers draw from one shared stream of uniform numbers, so
for the same stream they must reach the same total; and every total d20 rolls must be
one referee's exact odds call possible. ``d%`` is left out: referee reads it as a
d100 on purpose.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import d20
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.base.errors import TagError, UserError
from referee.notation import USAGE, parse_expression, roll_expression
from referee.notation.odds import distribution
from referee.read.tags import find_tags, parse_tag
from referee.resolve.dispatch import verbs_for
from referee.system import installed_systems, load_system
from referee.testing.notation import d20_expressions

# Every expression d20's own tests and README roll, as we read them there (its d%, a
# tens die, left out): the forms a player arriving from Avrae will type first.
D20_TESTED = [
    "1d20",
    "4d6kh3",
    "(((1d6)))",
    "((1d6))",
    "(1d4, 2+2, 3d6kl1)kh1",
    "((10d6kh5)kl2)kh1",
    "4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)",
    "1 + 3 * 6",
    "1 + (3 * 6)",
    "(1 + 3) * 6",
    "1 + 2 + 3",
    "(1 + 2) + 3",
    "1 + (2 + 3)",
    "1+2+3",
    "1 + 2 + 3 + 4",
    "1 + 2 == 2",
    "1 + (2 == 2)",
    "10d6k1k2k3",
    "10d6k1ph1",
    "(1, 2, 3)k1k2",
    "1",
    "10000",
    "1.5",
    "0.5",
    ".5",
    "0d6",
    "d6",
    "1d6",
    "2d6",
    "(1)",
    "(1,)",
    "(1, 1)",
    "+1",
    "-1",
    "--1",
    "-+-++---+1",
    "1+1",
    "2 + 2",
    "2 - 2",
    "2 * 5",
    "15 / 2",
    "15 // 2",
    "13 % 2",
    "2 + 1d6",
    "2 * 1d6",
    "60 / 1d6",
    "60 // 1d6",
    "1d100 % 10",
    "1 == 1",
    "1 == 2",
    "1 > 1",
    "2 > 1",
    "1 < 1",
    "1 < 2",
    "1 >= 1",
    "1 >= 2",
    "1 <= 1",
    "2 <= 1",
    "1 != 1",
    "1 != 2",
    "(1, 2, 3, 4, 5)k3",
    "(1, 2, 3, 4, 5)k<3",
    "(1, 2, 3, 4, 5)k>3",
    "(1, 2, 3, 4, 5)kl2",
    "(1, 2, 3, 4, 5)kh2",
    "(1)k1",
    "(1)k2",
    "(1, 2, 3, 4, 5)k1k2",
    "(1, 2, 3, 4, 5)kh1kl1",
    "(1, 2, 3, 4, 5)p3",
    "(1, 2, 3, 4, 5)p1p2",
    "(1, 2, 3, 4, 5)ph1pl1",
    "1d20rr<20",
    "1d20rr>1",
    "1d1ro1",
    "1d6rol1",
    "1d1ra1",
    "1d6ral1",
    "1d2e2",
    "10d6mi6",
    "10d6mi10",
    "10d6mi2",
    "10d6ma1",
    "10d6ma0",
    "10d6ma5",
    "1d20 foo bar",
    "1d20 keep something",
    "1d20 damage",
    "1d20 **bold**",
    "1d20 please save me from this parsing weirdness",
    "1d20 I rolled a d20",
    "1d20+5",
    "2d6ro<3",
    "8d6mi2",
    "(1d4 + 1, 3, 2d6kl1)kh1",
    "4d6e6kh3",
    "3d6 [fire] + 1d4 [piercing]",
    "-(1d8 + 3) [healing]",
    "(1 [one], 2 [two], 3 [three])",
    "3d6 + 1d4 + 3",
    "-1d8 + 4 - (3, 1d4)kh1",
    "100d20",
    "1d20+" * 50 + "1d20",
    "10d20rr<20",
]

# What d20's tests expect it to refuse: too many dice or rolls, no faces, a bad
# selector, dividing by zero.
D20_REFUSED = [
    "1001d6",
    "6d0",
    "10d6mil1",
    "10 / 0",
    "10 // 0",
    "10 % 0",
    "1d20rr<21",
    "1d1rr1",
    "1d20e<21",
    "1d1e1",
]

# Our own list of the grammar's forms, one or more examples each, beyond d20's tests.
FORMS = [
    # dice and numbers
    "1d20",
    "d20",
    "4d6",
    "0d6",
    "1d1",
    "1+1",
    "1.5",
    ".5",
    "2.",
    "10000",
    # arithmetic, precedence, signs and comparisons
    "1 + 3 * 6",
    "(1 + 3) * 6",
    "1 + 2 == 2",
    "1 + (2 == 2)",
    "-1",
    "--1",
    "-+-++---+1",
    "15 / 2",
    "-15 / 2",
    "15 // 2",
    "-15 // 2",
    "13 % 2",
    "-13 % 5",
    "2 + 1d6",
    "2 * 1d6",
    "60 / 1d6",
    "60 // 1d6",
    "1d100 % 10",
    "(1d6 + 1d6) / 2",
    "1d6 * 1d6 // 1d4",
    "1 != 2",
    "1 <= 1",
    "1 < 1",
    "2 > 1",
    "1 >= 2",
    "1d20 > 10",
    "1d20 >= 1d20",
    "1d10 - 1d10 == 0",
    "1 < 2 < 3",
    "3 > 2 > 1",
    # sets and parentheses
    "(1)",
    "(1,)",
    "()",
    "((1d6))",
    "(1d6, 1d8)",
    "(1d6,)",
    "(1, 2, 3)k1k2",
    "(1)k1",
    "(1)k2",
    "(1, 2, 3, 4, 5)k3",
    "(1, 2, 3, 4, 5)k<3",
    "(1, 2, 3, 4, 5)k>3",
    "(1, 2, 3, 4, 5)kh2",
    "(1, 2, 3, 4, 5)kl2",
    "(1, 2, 3, 4, 5)kh1kl1",
    "(1, 2, 3, 4, 5)p3",
    "(1, 2, 3, 4, 5)p1p2",
    "(1, 2, 3, 4, 5)ph1pl1",
    "(1d4, 2+2, 3d6kl1)kh1",
    "((10d6kh5)kl2)kh1",
    "(2d6)kh1",
    "(4d6)p1",
    "-1d8 + 4 - (3, 1d4)kh1",
    "(1d6, 1d8, 1d10)kh2",
    "(1d20, 1d20)kl1 + 5",
    # keep and drop on dice
    "4d6kh3",
    "4d6kl1",
    "4d6k>2",
    "4d6p<3",
    "5d6p1",
    "8d6kl3kh2",
    "10d6k1k2k3",
    "10d6k1ph1",
    "2d20kh1 + 1d4 - 1",
    "6d6kh10",
    # rerolls, explosions, minimum and maximum
    "1d20rr<20",
    "1d20rr>1",
    "4d6rr1",
    "4d6rr<3",
    "1d1ro1",
    "1d6rol1",
    "4d6ro1",
    "2d6ro<3",
    "8d6ro<3",
    "1d1ra1",
    "1d6ral1",
    "3d6ra6",
    "4d6rah1",
    "1d2e2",
    "3d6e6",
    "2d10e>8",
    "4d6e6kh3",
    "10d6mi6",
    "10d6mi10",
    "10d6mi2",
    "10d6ma1",
    "10d6ma0",
    "10d6ma5",
    "8d6mi2",
    "4d6ro1mi2kh3",
    "3d6e6ro1",
    "6d6rr1k>3",
    # annotations
    "3d6 [fire] + 1d4 [piercing]",
    "-(1d8 + 3) [healing]",
    "(1 [one], 2 [two], 3 [three])",
    "4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)",
    "1d6 [a] [b]",
    # whitespace as d20's grammar allows it, and our own spellings of its forms
    "1d20\t+\n5",
    "( 1d6 , 1d8 )kh1",
    "1d20 **bold** and 1d6",
    "1d20 (fire)",
    "1d20 please",
    "4d6kh3 pleased",
    "1d6 [a]   + 2 [b]",
    "((1d6, 1d8), 1d10)kh1",
    "(1d6, (1d8, 1d10)kl1)kh1",
    "(1d20 >= 10, 1d20 >= 10)",
    "(1, 2, 3)p<2k>2",
    "(2.5, 1.5)kh1 * 3",
    "7 / 2 * 2",
    "-7 // 2",
    "-7 % 3",
    "1.5 + 1.5",
]


def test_a_comment_after_the_roll_is_its_label() -> None:
    """d20's README comment example: the words after the roll are a label, the roll is 1d20."""
    expression = parse_expression("1d20 I search the chest for traps")
    assert ("1d20", "I search the chest for traps") == (expression.text, expression.label)


ALL_FORMS = list(dict.fromkeys(D20_TESTED + FORMS))


def test_the_table_covers_d20s_tests_and_readme() -> None:
    """The table holds 104 expressions from d20's tests and README and 10 it refuses."""
    assert (104, 10) == (len(D20_TESTED), len(D20_REFUSED))


class Stream:
    """One stream of uniform numbers read by both rollers: our ``roll`` and d20's ``randrange``."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self.randrange(sides) + 1

    def randrange(self, n: int) -> int:
        return int(self._random.random() * n)


def theirs(text: str, stream: Stream, monkeypatch: pytest.MonkeyPatch) -> int | None:
    monkeypatch.setattr(d20.expression, "random", stream)
    try:
        return d20.roll(text, allow_comments=True).total
    except d20.RollError:
        return None


def ours(text: str, stream: Stream) -> int | None:
    try:
        return roll_expression(parse_expression(text), stream).total
    except UserError:
        return None


@pytest.mark.parametrize("text", ALL_FORMS)
def test_same_total_as_d20_for_the_same_dice(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 50 streams of dice, referee and d20 reach the same total every time."""
    mine = [ours(text, Stream(seed)) for seed in range(50)]
    d20s = [theirs(text, Stream(seed), monkeypatch) for seed in range(50)]
    assert d20s == mine


@pytest.mark.parametrize("text", ALL_FORMS)
def test_every_total_d20_rolls_is_one_the_odds_allow(text: str) -> None:
    """500 totals of d20's own random rolls all lie where referee's exact odds are not zero,
    and every total referee gives a 3% chance or more turns up among them."""
    exact = distribution(parse_expression(text))
    assert exact is not None
    random.seed(f"d20 {text}")
    seen = {d20.roll(text, allow_comments=True).total for _ in range(500)}
    possible = {total for total, chance in exact.items() if chance > 0}
    likely = {total for total, chance in exact.items() if chance >= 0.03}
    assert (set(), set()) == (seen - possible, likely - seen)


@pytest.mark.parametrize("text", D20_REFUSED)
def test_what_d20_refuses_gets_a_message(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rolls d20 cannot finish (endless rerolls, too many dice, dividing by 0) get a message."""
    assert (None, None) == (theirs(text, Stream(1), monkeypatch), ours(text, Stream(1)))


STEPPED = verbs_for(load_system("stepped"))  # its roll verb also reads character rolls


def _claimed_by(name: str) -> Callable[[str], bool]:
    """What a system's own roll verb claims before notation (a pool's "roll 1+2+3")."""
    own = next((verb for verb in load_system(name).verbs if verb.name == "roll"), None)
    return (own and own.claims) or (lambda rest: False)


@pytest.mark.parametrize("system", sorted(installed_systems()))
def test_a_tag_of_d20_notation_is_a_dice_roll(system: str) -> None:
    """``[[roll X]]`` and a bare ``[[X]]``, found in a post, are read as dice in every
    system, never as a character roll; only what a system's roll verb claims as its own
    dice pool (a bare sum of numbers in the pool system) is the system's."""
    verbs = verbs_for(load_system(system))
    claimed = _claimed_by(system)
    misread = []
    for text in ALL_FORMS:
        scan = find_tags(f"Kara acts: [[roll {text}]] and [[{text}]].")
        requests = [parse_tag(tag.text, verbs) for tag in scan.tags]
        expected = [parse_expression(text)] * 2
        if claimed(text):
            expected[0] = None
        read = [getattr(request, "expression", None) for request in requests]
        if read != expected:
            misread.append(text)
    assert [] == misread


@pytest.mark.parametrize("text", D20_REFUSED)
def test_a_tag_d20_refuses_is_answered_as_notation(text: str) -> None:
    """What d20 refuses is read as dice too: refused as notation (its usage line), or
    parsed and then refused when rolled; never "Name a character"."""
    try:
        request = parse_tag(f"roll {text}", STEPPED)
    except TagError as error:
        assert USAGE == error.usage
    else:
        assert parse_expression(text) == request.expression


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=d20_expressions(), seed=st.integers(0, 2**16))
def test_any_d20_expression_rolls_the_same_here(text: str, seed: int) -> None:
    """Any expression of d20's grammar parses here and, on the same dice, totals the same."""
    d20.parse(text)  # the strategy only writes what d20 reads
    parse_expression(text)
    stream = Stream(seed)
    original = d20.expression.random
    d20.expression.random = stream  # type: ignore[assignment]
    try:
        try:
            expected = d20.roll(text).total
        except d20.RollError:
            expected = None
    finally:
        d20.expression.random = original
    assert expected == ours(text, Stream(seed))
