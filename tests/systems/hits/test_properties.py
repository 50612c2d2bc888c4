"""hits under Hypothesis: any request resolves within its bounds or is a user-facing error."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.systems.hits import duels, influence, odds, rolls, scene, stress, xp
from referee.systems.hits.rulings import Rulings
from referee.systems.hits.sheet import (
    Attribute,
    Stake,
    Wager,
    character_from_dict,
    edit_counter,
    new_character,
)
from referee.systems.hits.state import state_from_dict

hostile = st.integers(min_value=-5, max_value=1_500) | st.integers(
    min_value=-(10**9), max_value=10**9
)
small = st.integers(min_value=-3, max_value=12)
names = st.text(min_size=0, max_size=8)
rulings = st.builds(
    Rulings,
    advantage=st.sampled_from(["face", "extra_dice"]),
    crit_face=st.sampled_from(["natural", "modified"]),
    all_in=st.sampled_from(["ordinary", "natural"]),
    group_level=st.sampled_from(["roller", "highest"]),
    second_knockout=st.sampled_from(["out", "rewager"]),
    xp_mode=st.sampled_from(["standard", "fast"]),
)
specs = st.builds(rolls.PoolSpec, small, small, small) | st.builds(
    rolls.PoolSpec, hostile, hostile, hostile
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=20,
)
KARA = new_character("Kara", Attribute.BODY, Attribute.MIND)
OGRE = new_character("Ogre", Attribute.BODY, Attribute.TALENT, player=False)


def _requests(draw: Any) -> Any:
    """One request of any kind, as a thunk, with hostile arguments."""
    r = draw(rulings)
    dice = SeededDice(draw(st.integers(0, 2**32)))
    kind = draw(st.sampled_from(sorted(REQUESTS)))
    return kind, REQUESTS[kind](draw, r, dice)


REQUESTS: dict[str, Any] = {
    "level": lambda d, r, dice: lambda: rolls.roll_level(d(specs), d(small), dice, r),
    "level odds": lambda d, r, dice: lambda: odds.level_odds(d(specs), d(small), r),
    "opposed": lambda d, r, dice: (
        lambda: rolls.roll_opposed(
            d(st.lists(st.tuples(names, specs), max_size=4)),
            dice,
            r,
            award_ties_to_all=d(st.booleans()),
        )
    ),
    "opposed odds": lambda d, r, dice: (
        lambda: odds.opposed_odds(
            d(st.lists(st.builds(rolls.PoolSpec, small, small, small), max_size=3)), r
        )
    ),
    "group": lambda d, r, dice: (
        lambda: rolls.roll_group(d(st.lists(st.tuples(names, specs, small), max_size=4)), dice, r)
    ),
    "group odds": lambda d, r, dice: (
        lambda: odds.group_odds(
            d(
                st.lists(
                    st.tuples(st.builds(rolls.PoolSpec, small, small, small), small), max_size=3
                )
            ),
            r,
        )
    ),
    "quick": lambda d, r, dice: (
        lambda: rolls.roll_quick(
            rolls.QuickSpec(tuple(d(st.lists(hostile, max_size=4))), d(hostile), d(hostile)), dice
        )
    ),
    "harm": lambda d, r, dice: (
        lambda: stress.take_harm(
            KARA,
            d(st.sampled_from(list(scene.Mode))),
            stress=d(hostile),
            wounds=d(hostile),
            rulings=r,
        )
    ),
    "stakes": lambda d, r, dice: (
        lambda: stress.raise_stakes(
            stress.take_harm(KARA, scene.Mode.COMBAT, wounds=d(small) % 5, rulings=r).character,
            Stake(d(st.sampled_from(list(Wager))), d(names)),
            scene.Mode.COMBAT,
            r,
        )
    ),
    "all in": lambda d, r, dice: (
        lambda: influence.all_in(
            scene.CampaignClock(),
            influence.gain(KARA, d(small) % 3),
            rolls.roll_level(d(specs), d(small), dice, r),
            dice,
            r,
        )
    ),
    "intermission": lambda d, r, dice: (
        lambda: stress.intermission([KARA, OGRE], d(st.lists(names)))
    ),
    "chapter": lambda d, r, dice: (
        lambda: xp.end_chapter(
            scene.start_chapter(scene.CampaignClock(), ()).clock, [KARA, OGRE], r
        )
    ),
    "awaken": lambda d, r, dice: lambda: xp.awaken(KARA, d(hostile), d(hostile), d(hostile)),
    "sheet": lambda d, r, dice: lambda: character_from_dict(d(json_values)),
    "state": lambda d, r, dice: lambda: state_from_dict(d(json_values)),
    "edit": lambda d, r, dice: lambda: edit_counter(KARA, d(names | st.just("xp")), d(hostile)),
    "timer": lambda d, r, dice: (
        lambda: scene.advance_timer(
            scene.create_timer(scene.CampaignClock(), d(names), d(hostile), d(names)).clock,
            d(names),
            d(hostile),
        )
    ),
    "xp": lambda d, r, dice: (
        lambda: xp.choose_gains(
            xp.award_xp(KARA, d(hostile), r).character,
            xp.LevelGains(
                (d(st.sampled_from(list(Attribute))), d(st.sampled_from(list(Attribute)))),
                d(st.none() | st.sampled_from(list(Attribute))),
            ),
            r,
        )
    ),
    "duel": lambda d, r, dice: (
        lambda: duels.resolve_duel(
            *(lambda res: (res.book, res.clock, d(small), res.characters[0], res.characters[1]))(
                duels.declare_duel(
                    duels.DuelBook(),
                    scene.start_scene(
                        scene.CampaignClock(), (), d(st.sampled_from(list(scene.Mode)))
                    ).clock,
                    influence.gain(KARA, d(small) % 4),
                    OGRE,
                    d(hostile),
                    d(hostile),
                )
            ),
            dice,
            r,
            d(st.none() | small),
        )
    ),
}


# 300 examples in CI; `--hypothesis-profile long` (tests/conftest.py) raises it.
@settings(max_examples=max(300, settings().max_examples), deadline=None)
@given(st.data())
def test_any_request_resolves_or_is_a_user_error(data):
    """Every engine entry point, fed hostile values, answers or raises a UserError only."""
    kind, request = _requests(data.draw)
    try:
        request()
    except UserError as error:
        assert error.message.strip(), kind
