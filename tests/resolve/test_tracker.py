"""The initiative tracker's rules: turns by score, rounds, additions mid-fight, conditions."""

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.resolve.tracker import (
    Tracker,
    add,
    advance,
    from_record,
    remove,
    set_condition,
    to_record,
)


def _order(*pairs: tuple[str, int]) -> Tracker:
    tracker = Tracker()
    for name, score in pairs:
        tracker = add(tracker, name, score)
    return tracker


def _turns(tracker: Tracker, steps: int) -> list[tuple[int, tuple[str, ...]]]:
    seen = []
    for _ in range(steps):
        tracker = advance(tracker).tracker
        assert tracker.current is not None
        seen.append((tracker.round, tracker.current.names))
    return seen


def test_equal_scores_share_one_turn_and_rounds_wrap() -> None:
    """Highest first, equal scores act together, and the last turn leads to a new round."""
    tracker = _order(("Goblin", 12), ("Kara", 17), ("Dax", 12))
    assert [
        (1, ("Kara",)),
        (1, ("Goblin", "Dax")),
        (2, ("Kara",)),
        (2, ("Goblin", "Dax")),
    ] == _turns(tracker, 4)


def test_a_newcomer_above_the_pointer_waits_for_the_next_round() -> None:
    """Added at 20 while 12 has the turn, the newcomer first acts at the top of round 2."""
    tracker = advance(advance(_order(("Kara", 17), ("Goblin", 12))).tracker).tracker
    joined = add(add(tracker, "Ogre", 20), "Rat", 3)
    assert [(1, ("Rat",)), (2, ("Ogre",)), (2, ("Kara",))] == _turns(joined, 3)


def test_a_condition_lasts_its_rounds_from_the_turn_it_was_set() -> None:
    """Stunned for 1 round during Kara's turn ends when round 2 comes back to Kara's turn."""
    tracker = advance(_order(("Kara", 17), ("Goblin", 12), ("Rat", 3))).tracker
    tracker, _ = set_condition(tracker, "Goblin", "stunned", 1, "gm")
    ended = []
    for _ in range(4):
        step = advance(tracker)
        tracker = step.tracker
        ended.append((tracker.round, tracker.turn, [e.condition.name for e in step.expired]))
    assert [(1, 12, []), (1, 3, []), (2, 17, ["stunned"]), (2, 12, [])] == ended


def test_a_condition_set_before_the_fight_counts_from_the_top_of_round_one() -> None:
    """Winded for 1 round before round 1 ends at the start of round 2."""
    tracker, _ = set_condition(_order(("Kara", 17), ("Goblin", 12)), "Kara", "winded", 1, "gm")
    ends = []
    for _ in range(3):
        step = advance(tracker)
        tracker = step.tracker
        ends.append(len(step.expired))
    assert [0, 0, 1] == ends


def test_a_condition_without_rounds_never_expires() -> None:
    """A condition set with no duration stays through any number of rounds."""
    tracker, _ = set_condition(_order(("Kara", 17)), "Kara", "prone", None, "gm")
    for _ in range(10):
        tracker = advance(tracker).tracker
    assert ("prone",) == tuple(c.name for c in tracker.combatants[0].conditions)


def test_setting_a_condition_again_replaces_it() -> None:
    """Stunned twice is one stunned, with the second duration."""
    tracker = _order(("Kara", 17))
    tracker, _ = set_condition(tracker, "Kara", "Stunned", 1, "gm")
    tracker, _ = set_condition(tracker, "Kara", "stunned", 3, "gm")
    assert [("stunned", 3)] == [(c.name, c.rounds) for c in tracker.combatants[0].conditions]


def test_find_takes_a_first_name_and_any_case() -> None:
    """'kara' finds Kara Venn; a first word shared by two finds neither."""
    tracker = _order(("Kara Venn", 17), ("Trooper 1", 5), ("Trooper 2", 4))
    assert ("Kara Venn", None) == (
        getattr(tracker.find("kara"), "name", None),
        tracker.find("trooper"),
    )


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(st.sampled_from("ABCDEFG"), st.integers(-5, 25)),
        min_size=1,
        max_size=7,
        unique_by=lambda pair: pair[0],
    ),
    st.integers(0, 12),
    st.lists(st.sampled_from("ABCDEFG"), max_size=3),
)
def test_records_round_trip_and_removal_keeps_order(pairs, steps, removed) -> None:
    """A tracker survives its record unchanged; removing names keeps everyone else's order."""
    tracker = _order(*pairs)
    for _ in range(steps):
        tracker = advance(tracker).tracker
    tracker, _ = set_condition(tracker, pairs[0][0], "marked", 2, "gm")
    after = tracker
    for name in removed:
        after = remove(after, name)
    scores = [c.score for c in after.combatants]
    assert (tracker, sorted(scores, reverse=True)) == (
        from_record(to_record(tracker, "t3_x")),
        scores,
    )
