"""Keeping the pace on the local Reddit: deadlines, reminders, expiry, pass, away, catch-up.

Real PRAW against FakeReddit, the worker on the fake clock, stepped as ``referee run``
steps it (:meth:`~referee.testing.worker.Live.run_until`). Players post through the
server; what they read is what the bot posted there or sent them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.resolve.pace import HOUR
from referee.testing.pace import PLAYERS, SHEETS, Fight, bot_pms, pace
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, Live, fake_reddit

IDLE = 600  # poll_seconds: a simulated week is read in ten-minute steps


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    """FakeReddit whose subreddit two GMs moderate; the four players have accounts."""
    with fake_reddit(moderators=("gm", "gm2")) as fake:
        for player in PLAYERS.values():
            fake.add_user(player)
        yield fake


def _unescaped(text: str) -> str:
    for entity, char in (("&#91;", "["), ("&#93;", "]"), ("&#47;", "/")):
        text = text.replace(entity, char)
    return text.replace("\\", "")


def test_a_week_of_a_four_player_fight_with_one_slow_player(server, live) -> None:
    """Four players, 24-hour turns, on_expiry "skip". Dax, Lio and Mox act two hours into
    their turns; Kara never does. Over a simulated week each of Kara's turns gets one
    reminder naming u/kara at 12 hours and one line passing her turn on at 24, each within
    one idle poll of its moment; nobody else is ever reminded; every tag is answered once."""
    fight = Fight(server, live(pace(24, "skip"), sheets=SHEETS, poll=IDLE)).start()
    start = server.clock.now()
    acted: set[int] = set()
    karas: list[int] = []
    tagged = []
    while server.clock.now() < start + 7 * 24 * HOUR:
        fight.run(0.5)
        turn, whose = fight.turn(), fight.whose()
        if whose == ("Kara Venn",):
            if turn.serial not in karas:
                karas.append(turn.serial)
        elif turn.serial not in acted and server.clock.now() - turn.since >= 2 * HOUR:
            tagged.append(fight.act(PLAYERS[whose[0]]))
            acted.add(turn.serial)
    fight.run(1)
    ended = karas[:-1] if server.clock.now() < fight.seen[karas[-1]].since + 24 * HOUR else karas
    reminders = [fight.notices("remind", serial) for serial in karas]
    expiries = [fight.notices("expire", serial) for serial in ended]
    assert len(ended) >= 4
    assert [1] * len(karas) == [len(found) for found in reminders]
    assert [1] * len(ended) == [len(found) for found in expiries]
    for serial, (reminder,) in zip(karas, reminders, strict=True):
        due = fight.seen[serial].since + 12 * HOUR
        assert 0 <= reminder["created_utc"] - due <= IDLE
        assert reminder["body"].startswith("u/kara — **Kara Venn**'s turn")
    for serial, (expiry,) in zip(ended, expiries, strict=True):
        due = fight.seen[serial].since + 24 * HOUR
        assert 0 <= expiry["created_utc"] - due <= IDLE
        assert "**Time ran out for Kara Venn**" in expiry["body"]
        assert "**Dax Orr**'s turn, until" in expiry["body"] and "u/dax" in expiry["body"]
    bot = server.comments_by(server.bot)
    reminded = [c for c in bot if "is running out" in c["body"]]
    assert len(karas) == len(reminded)  # nobody else was reminded
    replies = [c["parent_id"] for c in bot]
    assert [] == [post for post in tagged if replies.count(post) != 1]
    assert fight.tracker().round >= 5


@pytest.mark.parametrize("expiry", ["skip", "gm", "hold"])
def test_each_on_expiry_mode_does_its_one_thing_once(server, live, expiry) -> None:
    """At Kara's deadline: "skip" passes the turn with a line; "gm" sends each GM one
    message to act for her, the turn stays; "hold" sends nothing and the turn stays, shown
    as run out. Two days later, still only that one thing for her turn."""
    fight = Fight(server, live(pace(24, expiry), sheets=SHEETS, poll=IDLE)).start()
    fight.run(25)
    after_deadline = fight.whose()
    fight.run(48)
    lines = fight.notices("expire", 1)
    gm_messages = [bot_pms(server, gm, "ran out at") for gm in ("gm", "gm2")]
    server.comment(fight.thread, "dax", "[[init list]]")
    fight.run(0.5)
    listed = _unescaped(server.comments_by(server.bot)[-1]["body"])
    if expiry == "skip":
        assert (1, [[], []], ("Dax Orr",)) == (len(lines), gm_messages, after_deadline)
        assert ("Mox Rell",) == fight.whose()  # Dax's and Lio's turns ran out in turn
    elif expiry == "gm":
        assert ([], [1, 1], ("Kara Venn",)) == (lines, [len(m) for m in gm_messages], fight.whose())
        (message,) = gm_messages[0]
        assert "Time is up for Kara Venn" == message["subject"]
        assert "played by u/kara" in _unescaped(message["body"])
        assert "its time ran out" in listed
    else:
        assert ([], [[], []], ("Kara Venn",)) == (lines, gm_messages, fight.whose())
        assert "**Kara Venn**'s turn, its time ran out" in listed


def test_reminders_go_in_the_thread_or_by_message_as_each_player_asked(server, live) -> None:
    """Kara asked for messages, Dax for the thread (the default), Lio never: Kara's
    reminder is a private message with a link; Dax's is a reply that pings u/dax; Lio
    gets none."""
    fight = Fight(server, live(pace(24, "skip"), sheets=SHEETS, poll=IDLE))
    thread = server.submit(SUB, "gm", "Setup", "Say how you like reminders.")
    server.comment(thread, "kara", "[[remind me by message]]")
    server.comment(thread, "lio", "[[remind me never]]")
    fight.start()
    fight.run(25)  # Kara reminded, then her turn passes to Dax
    fight.run(25)  # Dax reminded, then to Lio
    fight.run(25)  # Lio: not reminded
    (to_kara,) = bot_pms(server, "kara", "is running out")
    dax = server.reddit("dax")
    mentions = [m for m in dax.inbox.mentions() if "is running out" in m.body]
    assert "Your turn: Kara Venn, until" in to_kara["subject"]
    assert f"https://www.reddit.com/comments/{fight.thread[3:]}/" in to_kara["body"]
    assert ([], 1, []) == (
        fight.notices("remind", 1),
        len(fight.notices("remind", 2)),
        fight.notices("remind", 3),
    )
    assert 1 == len(mentions) and mentions[0].body.startswith("u/dax — **Dax Orr**'s turn")
    assert [] == bot_pms(server, "lio")


def test_pass_and_away_by_private_message_move_the_turn_on(server, live) -> None:
    """Kara passes; on Dax's turn his player writes to the bot that he is away: the bot
    passes his turn with a line naming Lio; his turns are skipped until he is back."""
    fight = Fight(server, live(pace(24, "gm"), sheets=SHEETS, poll=IDLE)).start()
    fight.run(1)
    fight.act("kara", "Nothing to do. [[pass]]")
    fight.run(1)
    server.send_message("dax", server.bot, "away", "[[away Dax until 2023-11-30]]")
    fight.run(1)
    (answer,) = bot_pms(server, "dax", "is away until")
    line = fight.notices("vacant", 2)
    assert (("Lio Park",), 1) == (fight.whose(), len(line))
    assert "**Dax Orr is away**: the turn passes on" in line[0]["body"]
    assert "**Lio Park**'s turn, until" in line[0]["body"] and "u/lio" in line[0]["body"]
    assert "**Dax Orr is away until Thu 30 Nov 2023**" in _unescaped(answer["body"])
    fight.act("lio")
    fight.run(1)
    fight.act("mox")
    fight.run(1)
    fight.act("kara")
    fight.run(1)
    assert ("Lio Park",) == fight.whose()  # Dax passed over again, in the [[next]] itself


def test_catchup_by_thread_and_by_message(server, live) -> None:
    """Lio asks in the thread: the reply says a message is coming, and the message lists
    the verdicts since his last post, linked, and whose turn it is. Asked by private
    message, the answer is a line per thread he plays in."""
    fight = Fight(server, live(pace(24, "gm"), sheets=SHEETS, poll=IDLE)).start()
    fight.run(0.5)
    server.comment(fight.thread, "lio", "Watching the door.")
    fight.run(0.5)
    kara = fight.act("kara")
    fight.run(0.5)
    dax = fight.act("dax", "[[roll 2d6]] I dive for cover.")
    fight.run(0.5)
    server.comment(fight.thread, "lio", "What did I miss? [[catchup]]")
    fight.run(0.5)
    server.send_message("lio", server.bot, "catch me up", "[[catchup]]")
    fight.run(1)
    (thread_reply,) = [c for c in server.comments_by(server.bot) if "on its way" in c["body"]]
    (catchup, private) = bot_pms(server, "lio")
    body = _unescaped(catchup["body"])
    assert "the catch-up (3 verdicts since your last post here)" in _unescaped(thread_reply["body"])
    assert f"Catch-up: thread {fight.thread[3:]}" == catchup["subject"]
    assert f"/comments/{fight.thread[3:]}/_/{kara[3:]}/) u/kara: `roll 1d20`" in body
    assert f"/comments/{fight.thread[3:]}/_/{dax[3:]}/) u/dax: `roll 2d6`" in body
    # A blank line ends the list: Reddit would read "Now" as part of the last verdict.
    assert "\n\nNow: round 1, **Dax Orr**'s turn, until" in body
    assert "**Catch-up for u/lio**, thread by thread:" in _unescaped(private["body"])
    # Each thread is named by its title, as the players know it, not by its id.
    link = f"(https://www.reddit.com/comments/{fight.thread[3:]}/)"
    assert body.startswith(f"**Catch-up** in [The ambush]{link}")
    assert f"* [The ambush]{link}" in _unescaped(private["body"])


def test_a_restart_mid_week_keeps_every_clock(server, live) -> None:
    """The worker crashes six hours into Kara's turn and starts again: her reminder still
    comes at twelve hours and her turn still passes at twenty-four, once each."""
    harness = live(pace(24, "skip"), sheets=SHEETS, poll=IDLE)
    fight = Fight(server, harness).start()
    fight.run(6)
    fight.harness.restart()
    fight.run(7)
    (reminder,) = fight.notices("remind", 1)
    fight.harness.restart()
    fight.run(12)
    (expiry,) = fight.notices("expire", 1)
    start = server.thing(fight.thread)["created_utc"]  # the order was posted with it
    assert ("Dax Orr",) == fight.whose()
    assert 12 * HOUR <= reminder["created_utc"] - start <= 12 * HOUR + IDLE
    assert 24 * HOUR <= expiry["created_utc"] - start <= 24 * HOUR + IDLE


def test_an_idle_fight_costs_no_request_until_a_timer_is_due(tmp_path) -> None:
    """Between a turn's start and its reminder the worker asks Reddit exactly what it asks
    for a campaign without deadlines: the timers are read from the store alone."""
    counts = []
    for config in (pace(48, "skip"), ""):
        with fake_reddit() as server:
            harness = Live(server, tmp_path / str(len(counts)), config, sheets=SHEETS, poll=IDLE)
            try:
                Fight(server, harness).start()
                harness.run_until(server.clock.now() + HOUR)
                before = server.count()
                harness.run_until(server.clock.now() + 20 * HOUR)
                counts.append(server.count() - before)
            finally:
                harness.close()
    assert counts[0] == counts[1] > 0


def test_a_verdict_goes_out_before_a_reminder_due_at_the_same_moment(server, live) -> None:
    """A tagged post is read after Kara's reminder fell due (a ``run --once`` from cron):
    the bot answers the post first, then reminds her."""
    fight = Fight(server, live(pace(24, "skip"), sheets=SHEETS, poll=IDLE)).start()
    fight.run(11.5)
    post = server.comment(fight.thread, "dax", "[[roll 1d6]]")
    server.clock.advance(0.6 * HOUR)
    report = fight.harness.worker.cycle()
    bot = server.comments_by(server.bot)
    reply_at = next(i for i, c in enumerate(bot) if c["parent_id"] == post)
    reminder_at = next(i for i, c in enumerate(bot) if "is running out" in c["body"])
    assert (1, 1) == (report.delivered, report.notices)
    assert reply_at < reminder_at
