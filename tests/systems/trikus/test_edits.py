"""The GM's verbs over the trikus state through the real pipeline: undo, lines named by dice."""

from __future__ import annotations

from typing import Any

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.store.ledger import verify

from .test_system import party_sheets

THREAD = "t3_scene"
TABLES = ("characters", "trikus_party", "trikus_threads")


@pytest.fixture
def referee(open_campaign):
    return Referee(open_campaign(party_sheets(), system="trikus"))


class Table:
    """Posts in one thread, numbered, through the pipeline (HMAC dice from the test secret)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.count = 0

    def post(self, body: str, author: str = "gm", thread: str = THREAD) -> str:
        self.count += 1
        post = Post(f"t1_p{self.count}", thread, author, body, float(self.count))
        return self.referee.referee(post).text

    def state(self) -> dict[str, Any]:
        """Every character, the party record and every thread's trikus state, minus undo's
        own bookkeeping (the steps each thread notes)."""
        store = self.referee.campaign.store
        tables = {name: dict(store.table(name).items()) for name in TABLES}
        for record in tables["trikus_threads"].values():
            record.pop("steps", None)
        return tables


@pytest.fixture
def table(referee) -> Table:
    return Table(referee)


def test_undo_restores_every_value_a_test_changed(table: Table) -> None:
    """A solo test strikes a line and moves Morale; [[undo]] puts every value back."""
    table.post("[[difficulty 2]]")
    before = table.state()
    table.post("[[test Zuzia morale=0 light=0]]", author="zuzia")
    assert before != table.state()
    reply = table.post("[[undo]]")
    assert before == table.state()
    assert "is void**: taken back by the GM's undo" in reply


def test_undo_goes_back_one_change_at_a_time(table: Table) -> None:
    """Two GM edits then two undos: Light, then Morale, each back to what it was."""
    start = table.state()
    table.post("[[morale Zuzia 3]]")
    after_morale = table.state()
    table.post("[[light Zuzia 2]]")
    table.post("[[undo]]")
    assert after_morale == table.state()
    table.post("[[undo]]")
    assert start == table.state()
    assert "Nothing to undo in this thread" in table.post("[[undo]]")


def test_undo_takes_back_a_fight_round_with_its_pools(table: Table) -> None:
    """A fight's first round (pools, struck lines, Morale) is undone whole; the round reopens."""
    table.post("[[open fight 2 Ida, Zuzia]]")
    table.post("[[declare Ida]]", author="ida")
    opened = table.state()
    table.post("[[declare Zuzia]]", author="zuzia")
    assert opened != table.state()
    table.post("[[undo]]")
    assert opened == table.state()


def test_undo_is_per_thread_and_ledgered_as_a_void(table: Table) -> None:
    """[[undo]] in one thread leaves another's change alone; the ledger keeps both rows."""
    table.post("[[morale Zuzia 3]]", thread="t3_other")
    table.post("[[morale Pawel 2]]")
    assert "Nothing to undo" not in table.post("[[undo]]")
    sheets = table.state()["characters"]
    assert (3, 1) == (sheets["zuzia"]["sheet"]["morale"], sheets["pawel"]["sheet"]["morale"])
    rows = list(table.referee.campaign.store.ledger)
    assert "p2-1" == rows[-1]["outcome"]["voids"]
    assert verify(rows, b"test-secret").ok


def test_undo_is_refused_to_players_and_changes_nothing(table: Table) -> None:
    """A player's [[undo]] is refused saying only a GM may; the change stands."""
    table.post("[[morale Zuzia 3]]")
    before = table.state()
    reply = table.post("[[undo]]", author="zuzia")
    assert "Only a GM may undo a change" in reply
    assert before == table.state()


def test_a_voided_step_is_skipped_by_undo(table: Table) -> None:
    """After the GM voids the last edit by its id, [[undo]] takes back the one before it."""
    start = table.state()
    table.post("[[morale Zuzia 3]]")
    table.post("[[light Zuzia 2]]")
    table.post("[[void p2-1 wrong character]]")
    table.post("[[undo]]")
    assert start == table.state()


def test_lines_are_named_by_their_dice(table: Table) -> None:
    """Struck and edited lines read "the 2-die line", never "line 2"; #N is a sheet place."""
    struck = table.post("[[test Zuzia vs 1 line=2]]")
    edited = table.post("[[line Zuzia 2-die free]]")
    placed = table.post("[[line Pawel #3 struck]]")
    assert "Zuzia strikes the 2-die line" in struck
    assert "Zuzia's 2-die line set free" in edited
    assert "Pawel's third 1-die line set struck" in placed


# ------------------------------------------------------- Dark sides: §3.7's two rulings


def _ruled(open_campaign, **rulings: bool) -> Table:
    sheets = party_sheets()
    sheets[0] = {**sheets[0], "dark_active": 1}  # Pawel has a Dark token for the GM to spend
    if rulings.get("party_writes_master_dark"):
        sheets[2] = {**sheets[2], "dark_sides": ["proud"]}  # Michal wrote his one
    if rulings.get("gm_blind_dark"):
        sheets = [{**s, "dark_sides": []} for s in sheets]
    return Table(Referee(open_campaign(sheets, system="trikus", rulings=rulings)))


APPLY_MASTER = "[[apply]]\n\n```\nname: Vey\ntier: master\nlight: calm\ndark: {dark}\n```"


def test_the_party_writes_the_masters_other_dark_sides(open_campaign) -> None:
    """party_writes_master_dark: other players write Michal's 2 sides; the GM sees them pending."""
    table = _ruled(open_campaign, party_writes_master_dark=True)
    pending = table.post("[[roster]]")
    first = table.post("[[darkside Michal cruel]]", author="pawel")
    own = table.post("[[darkside Michal vain]]", author="michal")
    stranger = table.post("[[darkside Michal vain]]", author="lurker")
    table.post("[[darkside Michal cold]]", author="zuzia")
    full = table.post("[[darkside Michal spiteful]]", author="ida")
    sides = table.state()["characters"]["michal"]["sheet"]["dark_sides"]
    assert ["proud", "cruel", "cold"] == sides
    assert "active, 2 Dark sides for the party to write" in pending
    assert "Michal's Dark side *cruel* is written (1 more for the party to write)" in first
    assert "Michal's player wrote his own Dark side" in own
    assert "Only a player of the party \\(or a GM\\)" in stranger
    assert "Michal has no Dark side left for the party to write" in full


def test_a_master_applies_with_one_dark_side_when_the_party_writes_two(open_campaign) -> None:
    """The Master's application carries 1 Dark side under party_writes_master_dark, not 3."""
    table = _ruled(open_campaign, party_writes_master_dark=True)
    three = table.post(APPLY_MASTER.format(dark="a, b, c"), author="vey")
    one = table.post(APPLY_MASTER.format(dark="sly"), author="vey2")
    assert "writes 1 Dark side\\(s\\) here, not 3 \\(the other players write the other two" in three
    assert "not 1" not in one and "writes 1 Dark side" not in one


def test_blind_dark_sides_never_reach_the_forum_and_the_player_picks(open_campaign) -> None:
    """gm_blind_dark: an application posts `dark: hidden`; spending Dark lets the player pick."""
    table = _ruled(open_campaign, gm_blind_dark=True)
    named = table.post(APPLY_MASTER.format(dark="a, b, c"), author="vey")
    hidden = table.post(APPLY_MASTER.format(dark="hidden"), author="vey2")
    spent = table.post("[[dark Pawel]]")
    sheet = table.post("[[sheet Pawel]]")
    assert "and keep your Dark sides in your own notes" in named
    assert "Dark side" not in hidden
    assert "Pawel's player picks which of his hidden Dark sides plays" in spent
    assert "dark sides" not in sheet


def test_without_blind_dark_the_gm_picks_among_the_sides_he_sees(open_campaign) -> None:
    """By default the GM spends Dark and picks the side: the verdict lists them."""
    spent = _ruled(open_campaign).post("[[dark Pawel]]")
    assert "a Dark side comes into play (the GM picks greedy)" in spent


def test_after_an_advancement_the_player_writes_his_sides_anew(table: Table) -> None:
    """[[advance]] asks for new sides; the player writes 2 and 2; a wrong count says the tier's."""
    table.post("[[advance Pawel]]")
    early = table.post("[[sides Zuzia light: a, b; dark: c, d]]", author="zuzia")
    wrong = table.post("[[sides Pawel light: brave; dark: vain]]", author="pawel")
    other = table.post("[[sides Pawel light: brave, kind; dark: vain, rash]]", author="zuzia")
    table.post("[[sides Pawel light: brave, kind; dark: vain, rash]]", author="pawel")
    sheet = table.state()["characters"]["pawel"]["sheet"]
    assert "sides are written; a player writes them anew after an advancement" in early
    assert "An advanced writes 2 Light side\\(s\\), not 1; 2 Dark side\\(s\\), not 1" in wrong
    assert "only they or a GM may write the sides of" in other
    assert (["brave", "kind"], ["vain", "rash"], False) == (
        sheet["light_sides"],
        sheet["dark_sides"],
        sheet["sides_due"],
    )


def test_blind_dark_hides_sides_written_before_the_ruling(open_campaign) -> None:
    """Sheets stored with Dark sides (the ruling switched on later): [[sheet]] shows none."""
    blind = open_campaign(party_sheets(), system="trikus", rulings={"gm_blind_dark": True})
    table = Table(Referee(blind))
    assert "vain" in str(table.state()["characters"]["zuzia"]["sheet"]["dark_sides"])
    shown = table.post("[[sheet Zuzia]]")
    assert ("vain" in shown, "light sides: bold" in shown) == (False, True)


UNDONE_CASES = [
    # (the posts before the undo, by author; what the undo's reply says was taken back)
    ([("[[light Zuzia 2]]", "gm")], "undone: Zuzia."),
    ([("[[master Grom]]", "gm")], "undone: the master NPCs."),
    ([("[[difficulty 2]]", "gm")], "undone: the difficulty set in this thread."),
    ([("[[open fight 2 Ida, Zuzia]]", "gm")], "undone: the fight opened in this thread."),
    (
        [("[[open test 2 Ida, Zuzia]]", "gm"), ("[[declare Ida]]", "ida")],
        "undone: Ida's declaration.",
    ),
    (
        [("[[difficulty 2]]", "gm"), ("[[test Pawel]]", "pawel")],
        "undone: Pawel, the test played in this thread.",
    ),
]


@pytest.mark.parametrize(("posts", "undone"), UNDONE_CASES)
def test_undo_names_exactly_what_it_took_back(
    table: Table, posts: list[tuple[str, str]], undone: str
) -> None:
    """The undo's reply names the change taken back, never tests where there were none."""
    for body, author in posts:
        table.post(body, author=author)
    reply = table.post("[[undo]]")
    assert undone in reply


def test_an_advanced_application_refusal_reads_an_advanced(table: Table) -> None:
    """An Advanced applying with the wrong side counts is told "An advanced writes ...\""""
    text = "[[apply]]\n\n```\nname: Vey\ntier: advanced\nlight: calm\ndark: sly\n```"
    refused = table.post(text, author="vey")
    assert "An advanced writes 2 Light side\\(s\\), not 1" in refused
    assert "A advanced" not in refused


def test_an_advanced_striking_a_line_he_lacks_reads_an_advanced(table: Table) -> None:
    """Zuzia (Advanced) naming a 3-die line is told "an advanced's lines have ..."."""
    table.post("[[difficulty 2]]")
    refused = table.post("[[test Zuzia line=3]]", author="zuzia")
    assert "an advanced's lines have" in refused
