"""The pace's pure rules: config, deadlines, which timer is due, who must act, away, words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.resolve.pace import (
    HOUR,
    AwayPeriod,
    OnExpiry,
    PaceConfig,
    ThreadPace,
    Timer,
    TurnClock,
    acting,
    begin_turn,
    date_words,
    deadline,
    due,
    pace_from_record,
    pace_to_record,
    parse_hours,
    parse_moment,
    read_pace,
    skip_away,
    timers,
    when_words,
)
from referee.resolve.tracker import Tracker, add, advance

T0 = datetime(2024, 12, 1, 18, 0, tzinfo=timezone.utc).timestamp()  # a Sunday


def _order(*pairs: tuple[str, int]) -> Tracker:
    tracker = Tracker()
    for name, score in pairs:
        tracker = add(tracker, name, score)
    return advance(tracker).tracker


def test_the_config_defaults_to_no_deadline_half_time_reminders_and_telling_the_gms() -> None:
    """An empty [pace] is valid: no deadline, reminders at half time, on_expiry "gm"."""
    assert (PaceConfig(None, 0.5, OnExpiry.GM), []) == read_pace({})


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"turn_hours": -4}, "pace.turn_hours = -4"),
        ({"turn_hours": 0.5}, "from 1 to 1440"),
        ({"turn_hours": "48h"}, "or 0 for no deadline"),
        ({"remind_at": 1}, "pace.remind_at = 1"),
        ({"remind_at": "half"}, "0.5 reminds a player"),
        ({"on_expiry": "kick"}, "'skip', 'gm', 'hold'"),
    ],
)
def test_each_bad_pace_value_is_refused_saying_what_to_write(table, words) -> None:
    """A wrong turn_hours, remind_at or on_expiry is one problem naming the right form."""
    _, problems = read_pace(table)
    assert 1 == len(problems) and words in problems[0]


def test_a_turn_is_reminded_at_its_share_and_expires_at_its_deadline() -> None:
    """48 hours at remind_at 0.25: the reminder 12 hours in, the expiry at 48."""
    turn = TurnClock(2, 1, 15, T0)
    found = timers("t3_a", None, turn, PaceConfig(48, 0.25))
    assert [("remind", T0 + 12 * HOUR), ("expire", T0 + 48 * HOUR)] == [
        (t.kind, t.at) for t in found
    ]


def test_the_threads_own_deadline_wins_and_off_means_none() -> None:
    """[[deadline 6h]] replaces the campaign's 48; [[deadline off]] leaves no timer at all."""
    turn = TurnClock(1, 1, 15, T0)
    config = PaceConfig(48)
    assert (T0 + 6 * HOUR, None, ()) == (
        deadline(6.0, turn, config),
        deadline(0.0, turn, config),
        timers("t3_a", 0.0, turn, config),
    )


def test_a_reminded_turn_has_only_its_expiry_and_an_expired_one_nothing() -> None:
    """Never two reminders for one turn; nothing at all once on_expiry was done."""
    config = PaceConfig(24)
    reminded = TurnClock(1, 1, 15, T0, reminded=True)
    expired = TurnClock(1, 1, 15, T0, reminded=True, expired=True)
    assert (["expire"], ()) == (
        [t.kind for t in timers("t", None, reminded, config)],
        timers("t", None, expired, config),
    )


def test_remind_at_zero_means_no_reminder() -> None:
    """remind_at = 0: the turn expires but nobody is reminded."""
    found = timers("t", None, TurnClock(1, 1, 15, T0), PaceConfig(24, 0.0))
    assert ["expire"] == [t.kind for t in found]


@given(
    since=st.floats(0, 4e9),
    hours=st.floats(1, 1440),
    share=st.floats(0.01, 0.95),
    late=st.floats(0, 3000 * HOUR),
)
def test_a_late_look_never_sends_a_reminder_once_the_time_ran_out(since, hours, share, late):
    """Whenever the worker looks, past the deadline the due timer is the expiry, never
    the reminder; before the reminder's time, nothing."""
    turn = TurnClock(1, 1, 15, since)
    found = timers("t", None, turn, PaceConfig(hours, share))
    end = since + hours * HOUR
    chosen = due(found, since + late)
    if since + late >= end:
        assert "expire" == chosen.kind
    elif since + late < found[0].at:
        assert chosen is None
    else:
        assert "remind" == chosen.kind


def test_only_players_not_passed_nor_away_must_act_and_a_gms_turn_has_none() -> None:
    """Of a turn shared by Kara (player), Dax (passed), Lio (away) and a GM's trooper,
    Kara must act; once she too passes, the trooper's GM runs the turn: nobody's clock."""
    order = _order(("Kara", 12), ("Dax", 12), ("Lio", 12), ("Trooper 1", 12))
    owners = {"Kara": "kara", "Dax": "dax", "Lio": "lio"}.get
    away = {"lio": AwayPeriod("Lio", T0 + 10 * HOUR)}
    turn = TurnClock(1, 1, 12, T0, passed=("Dax",))
    assert ((("Kara", "kara"),), ()) == (
        acting(order, turn, owners, away, T0),
        acting(order, TurnClock(1, 1, 12, T0, passed=("Dax", "Kara")), owners, away, T0),
    )
    assert (("Lio", "lio"),) == acting(
        order, TurnClock(1, 1, 12, T0, passed=("Dax", "Kara")), owners, away, T0 + 11 * HOUR
    )


def test_away_turns_are_passed_over_in_order_and_a_round_at_most() -> None:
    """Kara away: from her turn the order moves to Dax; everyone away: one round, no more."""
    order = _order(("Kara", 17), ("Dax", 12), ("Trooper 1", 5))
    kara = {"kara": AwayPeriod("Kara", T0 + HOUR)}
    moved = skip_away(order, kara, T0)
    everyone = {
        "kara": AwayPeriod("Kara", T0 + HOUR),
        "dax": AwayPeriod("Dax", T0 + HOUR),
        "trooper 1": AwayPeriod("Trooper 1", T0 + HOUR),
    }
    round_trip = skip_away(order, everyone, T0)
    assert (("Kara",), ("Dax",), False) == (
        moved.names,
        moved.tracker.current.names,
        moved.new_round,
    )
    assert (("Kara", "Dax", "Trooper 1"), 2, ("Kara",)) == (
        round_trip.names,
        round_trip.tracker.round,
        round_trip.tracker.current.names,
    )
    assert () == skip_away(order, kara, T0 + HOUR).names  # back when the period ends


def test_a_thread_pace_survives_its_record_and_a_new_turn_counts_up() -> None:
    """to_record/from_record keep every field (and unknown ones); begin_turn numbers turns."""
    pace = ThreadPace(36.0, TurnClock(4, 2, 12, T0, "t1_x", ("Dax",), True, False), {"later": 1})
    again = pace_from_record(pace_to_record(pace, "t3_a"))
    nxt = begin_turn(again, _order(("Kara", 17)), T0 + 5, "t1_y")
    assert pace == again
    assert (5, 1, 17, T0 + 5, "t1_y", ()) == (
        nxt.turn.serial,
        nxt.turn.round,
        nxt.turn.score,
        nxt.turn.since,
        nxt.turn.post,
        nxt.turn.passed,
    )


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("48h", 48.0),
        ("48 hours", 48.0),
        ("1 hour", 1.0),
        ("2d", 48.0),
        ("1.5 days", 36.0),
        ("36hrs", 36.0),
        ("soon", None),
        ("-4h", None),
        ("48", None),
        ("9" * 40 + "h", None),
    ],
)
def test_turn_times_read_in_hours_or_days(text, hours) -> None:
    """Hours or days, with or without a space; anything else is no time."""
    assert hours == parse_hours(text)


def test_dates_read_as_utc_midnight_or_a_time_and_impossible_ones_are_none() -> None:
    """2026-12-05 is its midnight UTC; 18:00 that day; the 30th of February is no date."""
    day = datetime(2026, 12, 5, tzinfo=timezone.utc).timestamp()
    assert (day, day + 18 * HOUR, None, None) == (
        parse_moment("2026-12-05"),
        parse_moment("2026-12-05 18:00"),
        parse_moment("2026-02-30"),
        parse_moment("0000-01-01"),
    )


def test_deadlines_read_as_players_say_them() -> None:
    """Tue 3 Dec 18:00 UTC, and a day with its year for away periods."""
    assert ("Tue 3 Dec 18:00 UTC", "Wed 4 Dec 2024") == (
        when_words(T0 + 48 * HOUR),
        date_words(T0 + 3 * 24 * HOUR - 18 * HOUR),
    )


def test_due_picks_nothing_before_time() -> None:
    """No timer is due before its moment."""
    assert due((Timer("remind", "t", 1, 10.0),), 9.9) is None
