"""Tests for referee.base.dice: the injected randomness sources and the published derivation."""

import hashlib
import hmac
from collections import Counter

import pytest
from scipy.stats import chisquare

from referee.base.dice import (
    FixedDice,
    GivenDice,
    HmacDice,
    RecordingDice,
    SeededDice,
    commitment,
    replay_matches,
)
from referee.base.errors import UserError


def _independent_first_roll(secret: bytes, post: str, index: int, sides: int) -> int:
    """The derivation as a player would re-implement it from the docs (verification.md)."""
    digest = hmac.new(secret, f"{post}:{index}:0".encode(), hashlib.sha256).digest()
    for offset in range(0, 32, 8):
        word = int.from_bytes(digest[offset : offset + 8], "big")
        if word < (1 << 64) - (1 << 64) % sides:
            return word % sides + 1
    raise AssertionError("all four words rejected")  # pragma: no cover - odds ~ 0


@pytest.mark.parametrize("sides", [2, 4, 6, 20, 100, 1000])
def test_hmac_dice_follow_the_published_derivation(sides):
    """The first die equals HMAC-SHA256(secret, 'post:index:0') read as the docs say."""
    expected = [_independent_first_roll(b"secret", f"t1_p{i}", i % 3, sides) for i in range(50)]
    actual = [HmacDice(b"secret", f"t1_p{i}", i % 3).roll(sides) for i in range(50)]
    assert expected == actual


@pytest.mark.parametrize("length", [0, 1, 32, 63, 64, 65, 200])
def test_hmac_dice_follow_hmac_over_several_blocks_for_any_secret_length(length):
    """Every die of a long roll is HMAC-SHA256's, block after block, whatever the secret's size."""
    secret = bytes(range(256))[:length]
    words = []
    for block in range(4):
        digest = hmac.new(secret, f"t1_q:2:{block}".encode(), hashlib.sha256).digest()
        words += [int.from_bytes(digest[at : at + 8], "big") for at in range(0, 32, 8)]
    expected = [word % 8 + 1 for word in words]  # 2**64 is a multiple of 8: nothing redrawn
    dice = HmacDice(secret, "t1_q", 2)
    assert expected == [dice.roll(8) for _ in words]


def test_hmac_dice_differ_by_secret_post_and_index():
    """Changing any of secret, post or tag index changes the dice."""

    def ten(*args):
        dice = HmacDice(*args)
        return [dice.roll(20) for _ in range(10)]

    base = ten(b"s", "t1_a", 0)
    assert (False, False, False) == (
        base == ten(b"t", "t1_a", 0),
        base == ten(b"s", "t1_b", 0),
        base == ten(b"s", "t1_a", 1),
    )


@pytest.mark.parametrize("sides", [6, 7, 20])
def test_hmac_dice_are_uniform(sides):
    """100,000 HMAC dice match the uniform distribution (chi-square, p > 1e-4)."""
    dice = HmacDice(b"uniformity", "t1_u", 0)
    counts = Counter(dice.roll(sides) for _ in range(100_000))
    assert chisquare([counts[face] for face in range(1, sides + 1)]).pvalue > 1e-4


def test_a_biased_source_fails_the_same_uniformity_check():
    """The uniformity check can fail: a d6 that never shows 6 is caught."""
    dice = SeededDice(3)
    counts = Counter(dice.roll(5) for _ in range(100_000))  # a "d6" whose 6 never comes up
    assert chisquare([counts[face] for face in range(1, 7)]).pvalue < 1e-4


def test_recording_and_replay_round_trip():
    """Recorded draws replay against the same source and fail against another."""
    recorder = RecordingDice(HmacDice(b"k", "t1_r", 2))
    for sides in (8, 8, 6, 20):
        recorder.roll(sides)
    assert (True, False) == (
        replay_matches(HmacDice(b"k", "t1_r", 2), recorder.draws),
        replay_matches(HmacDice(b"k", "t1_r", 3), recorder.draws),
    )


def test_fixed_dice_refuse_impossible_faces_and_running_out():
    """FixedDice rejects a face the die lacks and says when it has no values left."""
    dice = FixedDice([3])
    assert 3 == dice.roll(6)
    with pytest.raises(IndexError):
        dice.roll(6)


def test_given_dice_running_short_name_the_die_with_its_article():
    """Typed faces running out at the eighth die: the refusal reads "needs an 8th die"."""
    dice = GivenDice([1] * 7)
    for _ in range(7):
        dice.roll(6)
    with pytest.raises(UserError, match="The tag needs an 8th die"):
        dice.roll(6)


def test_commitment_is_the_secrets_sha256():
    """The published commitment is plain sha256 of the secret's bytes."""
    assert hashlib.sha256(b"abc").hexdigest() == commitment(b"abc")


def test_seeded_dice_roll_what_randint_gives_for_the_seed():
    """A seed gives the faces random.Random(seed).randint(1, sides) gives, die for die."""
    import random

    sides = [2, 3, 6, 7, 20, 100, 1000] * 300
    reference = random.Random(42)
    expected = [reference.randint(1, n) for n in sides]
    dice = SeededDice(42)
    assert expected == [dice.roll(n) for n in sides]


@pytest.mark.parametrize("sides", [2, 6, 20, 1000, (1 << 63) + 1])
def test_dice_drawn_many_at_once_are_the_dice_drawn_one_by_one(sides):
    """roll_many gives roll's faces and draws in order, words past the limit skipped alike."""
    # A die of 2**63 + 1 faces rejects about half the words: the skipping is exercised.
    for index in range(40):
        at_once, one_by_one = HmacDice(b"k", "t1_m", index), HmacDice(b"k", "t1_m", index)
        before = [at_once.roll(6) for _ in range(index % 5)]
        assert before == [one_by_one.roll(6) for _ in range(index % 5)]
        faces = at_once.roll_many(sides, index % 13)
        assert [one_by_one.roll(sides) for _ in range(index % 13)] == faces
        assert (one_by_one.draws, one_by_one.roll(7)) == (at_once.draws, at_once.roll(7))
    seeded, again = SeededDice(3), SeededDice(3)
    assert [again.roll(sides) for _ in range(9)] == seeded.roll_many(sides, 9)
