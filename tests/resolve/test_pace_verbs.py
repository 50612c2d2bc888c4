"""The pace's tags end to end: players' and GMs' posts through the pipeline and store."""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timezone

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.resolve import pace_state
from referee.resolve.pace import HOUR, pace_from_record
from referee.resolve.tracker import from_record
from referee.resolve.tracker_verbs import TABLE
from referee.testing import sheet

GM = "gm"
OWNERS = {"Kara Venn": "kara", "Dax Orr": "dax", "Lio Park": "lio"}
T0 = datetime(2024, 12, 1, 18, 0, tzinfo=timezone.utc).timestamp()  # a Sunday, 18:00 UTC


def shown(markdown: str) -> str:
    """A reply as a reader sees it: entities and backslash escapes undone."""
    for entity, char in (("&#91;", "["), ("&#93;", "]"), ("&#47;", "/"), ("&amp;", "&")):
        markdown = markdown.replace(entity, char)
    return re.sub(r"\\(.)", r"\1", markdown)


class Table:
    """A campaign with three players' characters and a GM's trooper; posts an hour apart."""

    def __init__(self, open_campaign, pace: str = "turn_hours = 48\n") -> None:
        sheets = [sheet(name) for name in OWNERS] + [sheet("Trooper 1", kind="npc")]
        self.campaign = open_campaign(sheets, owners=OWNERS, extra_config=f"[pace]\n{pace}")
        self.referee = Referee(self.campaign, clock=lambda: T0)
        self.numbers = itertools.count(1)
        self.hour = 0.0

    def post(self, author: str, body: str, thread: str = "t3_fight", hours: float = 1.0) -> str:
        """Post ``body`` as ``author`` ``hours`` after the last post; the bot's reply."""
        self.hour += hours
        number = next(self.numbers)
        kind = "t4" if thread.startswith("t4_") else "t1"
        post = Post(f"{kind}_p{number}", thread, author, body, T0 + self.hour * HOUR)
        return shown(self.referee.referee(post).text)

    def fight(self) -> str:
        """Kara 20, Dax 15, Lio 10, Trooper 1 at 5; round 1 begins (Kara's turn)."""
        return self.post(
            GM,
            "[[init add Kara Venn 20]] [[init add Dax Orr 15]] [[init add Lio Park 10]] "
            "[[init add Trooper 1 5]] [[next]]",
            hours=0.0,
        )

    def whose(self, thread: str = "t3_fight") -> tuple[str, ...]:
        return from_record(self.campaign.store.table(TABLE).get(thread)).current.names

    def pace(self, thread: str = "t3_fight"):
        return pace_from_record(self.campaign.store.table(pace_state.PACE).get(thread))

    def notices(self) -> dict:
        return dict(self.campaign.store.table(pace_state.NOTICES).items())


@pytest.fixture
def table(open_campaign) -> Table:
    return Table(open_campaign)


def test_the_tracker_reply_names_whose_turn_it_is_and_until_when(table) -> None:
    """With turn_hours 48, the [[next]] that begins Kara's turn Sunday 18:00 says it ends
    Tuesday 18:00; [[init list]] later says the same."""
    started = table.fight()
    listed = table.post("dax", "[[init list]]", hours=5)
    line = "round 1, **Kara Venn**'s turn, until Tue 3 Dec 18:00 UTC; then Dax Orr"
    assert (True, True) == (line in started, line in listed)


def test_no_deadline_configured_means_none_shown(open_campaign) -> None:
    """Without [pace] turn_hours the reply names whose turn it is and no deadline."""
    table = Table(open_campaign, pace="")
    started = table.fight()
    assert "**Kara Venn**'s turn; then Dax Orr" in started and "until" not in started


def test_a_gm_sets_the_threads_deadline_and_a_player_may_only_ask(table) -> None:
    """[[deadline 6h]] by the GM: the current turn ends 6 hours after it began; a player's
    is refused, but his bare [[deadline]] is answered; [[deadline off]] takes it away."""
    table.fight()
    set_by_gm = table.post(GM, "[[deadline 6h]]")
    refused = table.post("kara", "[[deadline 96h]]")
    asked = table.post("kara", "[[deadline]]")
    off = table.post(GM, "[[deadline off]]")
    listed = table.post(GM, "[[init list]]")
    assert "**Turns in this thread last 6 hours** (set by u/gm)" in set_by_gm
    assert "Kara Venn's turn, until Mon 2 Dec 00:00 UTC" in set_by_gm
    assert "Only a GM may set a thread's turn deadline" in refused
    assert "**Turns in this thread last 6 hours**." in asked
    assert "**No turn deadline in this thread**" in off and "until" not in listed


@pytest.mark.parametrize("text", ["[[deadline soon]]", "[[deadline 0h]]", "[[deadline 99d]]"])
def test_a_turn_time_that_cannot_be_is_refused_with_the_form(table, text) -> None:
    """Unreadable or out-of-range turn times are refused, showing [[deadline 48h]]."""
    reply = table.post(GM, text)
    assert "[[deadline 48h]]" in reply
    assert None is table.pace().turn and table.pace().hours is None


def test_pass_ends_only_ones_own_turn_and_moves_it_on(table) -> None:
    """Dax may not pass Kara's turn; Kara's [[pass]] moves it to Dax, whatever next_by."""
    table.fight()
    refused = table.post("dax", "[[pass]]")
    passed = table.post("kara", "[[pass]]", hours=2)
    assert "It is Kara Venn's turn, not a character of u/dax's" in refused
    assert "**Kara Venn passes.** The turn passes on." in passed
    assert ("Dax Orr",) == table.whose()
    assert "**Dax Orr**'s turn, until Tue 3 Dec 21:00 UTC" in passed  # from the pass on


def test_pass_in_a_shared_turn_leaves_it_to_the_others(open_campaign) -> None:
    """Kara and Dax share a score: Kara's [[pass]] leaves the turn to Dax; his moves it on."""
    table = Table(open_campaign)
    table.post(
        GM, "[[init add Kara Venn 12]] [[init add Dax Orr 12]] [[init add Lio Park 8]] [[next]]"
    )
    first = table.post("kara", "[[pass]]")
    second = table.post("dax", "[[pass]]")
    assert "**Kara Venn passes.** Dax Orr still to act." in first
    assert ("Lio Park",) == table.whose()
    assert "**Dax Orr passes.** The turn passes on." in second


def test_away_passes_a_characters_turns_over_until_the_day(table) -> None:
    """Dax's player says he is away until Wednesday: [[next]] from Kara goes to Lio with a
    note; on Wednesday Dax's turn is his again."""
    table.fight()
    away = table.post("dax", "[[away Dax until 2024-12-04]]")
    moved = table.post("kara", "[[next]]")
    assert "**Dax Orr is away until Wed 4 Dec 2024**" in away
    assert "Dax Orr is away: passed over." in moved and ("Lio Park",) == table.whose()
    table.post(GM, "[[next]]")  # the trooper
    table.post(GM, "[[next]]", hours=60)  # Wednesday 07:00: round 2, Kara
    table.post("kara", "[[next]]")
    assert ("Dax Orr",) == table.whose()


def test_away_on_ones_own_turn_passes_it_and_only_the_player_or_a_gm_may(table) -> None:
    """Lio may not send Kara away; Kara's player may, on her turn, which passes to Dax."""
    table.fight()
    refused = table.post("lio", "[[away Kara until 2024-12-10]]")
    moved = table.post("kara", "[[away Kara until 2024-12-10]]")
    back = table.post(GM, "[[away Kara off]]")
    assert "only its player or a GM may say it is away" in refused
    assert "Kara Venn is away: passed over. The turn passes on." in moved
    assert ("Dax Orr",) == table.whose()
    assert "**Kara Venn is back**" in back and [] == list(
        table.campaign.store.table(pace_state.AWAY).keys()
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[[away Kara until 2024-11-30]]", "That day has begun already"),
        ("[[away Kara until 2031-01-01]]", "within 366 days"),
        ("[[away Kara until tomorrow]]", "is not a date"),
        ("[[away Kara]]", "Name the character and the day"),
        ("[[away Nobody until 2024-12-05]]", "no character on the roster"),
    ],
)
def test_an_away_period_that_cannot_be_is_refused_saying_why(table, text, words) -> None:
    """A past day, a far one, no date, no day, no such character: each refused, nothing kept."""
    reply = table.post("kara", text)
    assert words in reply and 0 == len(table.campaign.store.table(pace_state.AWAY))


def test_remind_me_keeps_the_players_choice(table) -> None:
    """[[remind me by message]] then [[remind me never]]: the last one stands."""
    first = table.post("kara", "[[remind me by message]]")
    second = table.post("kara", "[[remind me never]]")
    bad = table.post("kara", "[[remind me by pigeon]]")
    players = table.campaign.store.table(pace_state.PLAYERS)
    assert "you will be reminded by private message" in first
    assert "you will not be reminded" in second and "by message, in thread, or never" in bad
    assert "never" == pace_state.remind_by(players, "KARA").value


def test_catchup_in_a_thread_queues_a_private_message_of_the_verdicts_since(table) -> None:
    """Kara posts, three verdicts follow, she asks: the reply says a message is on its way,
    and the queued message lists those three in order, with whose turn it is now."""
    table.fight()
    table.post("kara", "[[roll 1d20]] I shoot.")
    table.post("dax", "[[roll 2d6]]")
    table.post(GM, "[[roll 1d8]] [[next]]")
    reply = table.post("kara", "[[catchup]]")
    (notice,) = table.notices().values()
    threads = notice["data"]["threads"]
    tags = [line["tag"] for line in threads[0]["lines"]]
    assert "the catch-up (3 verdicts since your last post here)" in reply
    assert ("message", "kara", ["roll 2d6", "roll 1d8", "next"]) == (
        notice["channel"],
        notice["to"],
        tags,
    )
    assert (["Dax Orr"], True) == (threads[0]["whose"], threads[0]["until"] is not None)


def test_catchup_by_private_message_answers_with_a_line_per_thread(table) -> None:
    """By private message, [[catchup]] is answered there: each thread Kara plays in, with
    the verdicts since her last post and whose turn it is; nothing is queued."""
    table.fight()
    table.post("kara", "[[roll 1d20]]")
    table.post("dax", "[[roll 2d6]]", thread="t3_other")
    table.post("kara", "[[roll 1d6]]", thread="t3_other")
    table.post(GM, "[[roll 1d8]]", thread="t3_other")
    table.post("dax", "[[roll 1d4]]")
    table.post(GM, "[[roll 1d4]]")
    reply = table.post("kara", "[[catchup]]", thread="t4_conversation")
    assert "**Catch-up for u/kara**, thread by thread:" in reply
    assert "fight/): 2 verdicts since your last post; round 1, **Kara Venn**'s turn, until" in reply
    assert "other/): 1 verdict since your last post." in reply
    assert {} == table.notices()


def test_ending_the_encounter_stops_the_turn_clock(table) -> None:
    """[[end encounter]] leaves the thread's own deadline but no turn to time."""
    table.fight()
    table.post(GM, "[[deadline 24h]]")
    table.post(GM, "[[end encounter]]")
    assert (24.0, None) == (table.pace().hours, table.pace().turn)


def test_a_voided_next_puts_the_turn_clock_back(table) -> None:
    """[[void]] of the [[next]] that began Dax's turn puts Kara's turn and its clock back."""
    table.fight()
    reply = table.post("kara", "[[next]]")
    roll_id = reply.split("^(roll ")[1].split(")")[0]
    table.post(GM, f"[[void {roll_id} wrong thread]]")
    assert (("Kara Venn",), 1) == (table.whose(), table.pace().turn.serial)


def test_a_deadline_set_on_a_turn_that_had_none_counts_from_the_tag(open_campaign) -> None:
    """No campaign deadline: turns are untimed. The GM's [[deadline 6h]] three hours into
    Kara's turn gives her six hours from then; the next turn gets six from its start."""
    table = Table(open_campaign, pace="")
    table.fight()
    set_later = table.post(GM, "[[deadline 6h]]", hours=3)
    moved = table.post("kara", "[[next]]", hours=1)
    assert "Kara Venn's turn, until Mon 2 Dec 03:00 UTC" in set_later
    assert "**Dax Orr**'s turn, until Mon 2 Dec 04:00 UTC" in moved


def test_a_catchup_names_each_thread_by_its_title_escaped(table) -> None:
    """A thread is named by the title the bot read, its Markdown escaped: a title cannot
    break the link or add one of its own."""
    table.fight()
    table.post("kara", "[[roll 1d20]]")
    titles = table.campaign.store.table(pace_state.THREAD_TITLES)
    titles.put("t3_fight", {"title": "Ambush](https://evil.example) *now*"})
    asked = Post("t4_asked", "t4_conversation", "kara", "[[catchup]]", T0 + 2 * HOUR)
    raw = table.referee.referee(asked).text  # as Reddit gets it, not unescaped for reading
    assert "* [Ambush&#93;\\(https\\:&#47;&#47;evil\\.example\\) \\*now\\*](https://" in raw
