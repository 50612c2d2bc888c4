"""The initiative tracker end to end: players' and GMs' posts through the pipeline and store."""

from __future__ import annotations

import itertools

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.resolve import tracker_verbs
from referee.resolve.tracker import advance, from_record, set_condition, to_record
from referee.resolve.tracker_verbs import TABLE
from referee.testing import sheet

GM = "gm"
OWNERS = {"Kara Venn": "kara_p", "Dax Orrel": "dax_p"}
_posts = itertools.count(1)


def _campaign(open_campaign, **kwargs):
    sheets = [sheet("Kara Venn"), sheet("Dax Orrel"), sheet("Trooper 1", kind="npc")]
    return open_campaign(sheets, owners=OWNERS, **kwargs)


def _post(referee: Referee, author: str, body: str, thread: str = "t3_fight"):
    number = next(_posts)
    return referee.referee(Post(f"t1_p{number}", thread, author, body, float(number)))


def _tracker(campaign, thread: str = "t3_fight"):
    record = campaign.store.table(TABLE).get(thread)
    return None if record is None else from_record(record)


def _owner_of_turn(campaign) -> str:
    names = _tracker(campaign).current.names
    return next((OWNERS[name] for name in names if name in OWNERS), GM)


def _someone_else(campaign) -> str:
    names = _tracker(campaign).current.names
    return next(owner for name, owner in OWNERS.items() if name not in names)


def test_a_gm_rolls_initiative_and_the_verdict_says_whose_turn_it_is(open_campaign) -> None:
    """Stepped's [[init]] starts round 1 at the highest total, said under the roll."""
    campaign = _campaign(open_campaign)
    outcome = _post(Referee(campaign), GM, "[[init Kara, Dax, Trooper 1]]")
    tracker = _tracker(campaign)
    first = " & ".join(tracker.current.names)
    assert (1, 3, True) == (
        tracker.round,
        len(tracker.combatants),
        f"Initiative: round 1, **{first}**'s turn" in outcome.text,
    )


def test_a_player_may_next_only_on_his_own_turn(open_campaign) -> None:
    """Another player's [[next]] is refused saying whose turn it is; the owner's moves it on."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax]]")
    before = _tracker(campaign)
    if len(before.groups) == 1:  # both rolled the same: a GM's next makes it round 2
        pytest.skip("equal totals: no turn belongs to one player alone")
    refused = _post(referee, _someone_else(campaign), "[[next]]")
    unchanged = _tracker(campaign)
    moved = _post(referee, _owner_of_turn(campaign), "[[next]]")
    assert (1, True, before, 0) == (
        refused.problems,
        "turn, not a character of u&#47;" in refused.text,
        unchanged,
        moved.problems,
    )
    assert before.groups[1].names == _tracker(campaign).current.names


@pytest.mark.parametrize(("next_by", "refused"), [("anyone", 0), ("gm", 1)])
def test_the_campaign_option_next_by_widens_or_narrows_who_may_next(
    open_campaign, next_by: str, refused: int
) -> None:
    """[initiative] next_by = "anyone" lets any player move the turn on; "gm" lets none."""
    campaign = _campaign(open_campaign, extra_config=f'[initiative]\nnext_by = "{next_by}"\n')
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax, Trooper 1]]")
    player = _owner_of_turn(campaign) if next_by == "gm" else "bystander"
    assert refused == _post(referee, player, "[[next]]").problems


def test_next_runs_through_the_order_into_a_new_round(open_campaign) -> None:
    """A GM's [[next]] after the last turn starts round 2 at the top, and says so."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax, Trooper 1]]")
    turns = len(_tracker(campaign).groups)
    texts = [_post(referee, GM, "[[next]]").text for _ in range(turns)]
    assert (2, True) == (_tracker(campaign).round, "**Round 2 begins:" in texts[-1])


def test_gm_adds_and_removes_combatants_mid_fight(open_campaign) -> None:
    """[[init add Goblin 30]] acts from the next round; [[init remove]] takes one out."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax]]")
    added = _post(referee, GM, "[[init add Goblin 30]]")
    removed = _post(referee, GM, "[[init remove Dax]]")
    names = [c.name for c in _tracker(campaign).combatants]
    assert ("acting from the next round" in added.text, "Dax Orrel leaves" in removed.text) == (
        True,
        True,
    )
    assert ["Goblin", "Kara Venn"] == names


def test_a_player_may_not_place_himself_where_initiative_is_rolled(open_campaign) -> None:
    """In stepped a player's [[init add Kara 30]] is refused and told to roll instead."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Trooper 1]]")
    outcome = _post(referee, "kara_p", "[[init add Kara 30]]")
    assert (1, "write &#91;&#91;init Kara Venn&#93;&#93;") == (
        outcome.problems,
        "write &#91;&#91;init Kara Venn&#93;&#93;" if "init Kara Venn" in outcome.text else "",
    )


def test_a_player_joins_a_running_fight_by_rolling_but_not_twice(open_campaign) -> None:
    """Kara's player rolls into the GM's fight; rolling again is refused and changes nothing."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Trooper 1]]")
    joined = _post(referee, "kara_p", "[[init Kara]]")
    after_join = _tracker(campaign)
    again = _post(referee, "kara_p", "[[init Kara]]")
    assert (0, "the running initiative" in joined.text, 1, after_join) == (
        joined.problems,
        True,
        again.problems,
        _tracker(campaign),
    )
    assert "initiative is rolled once a fight" in again.text


def test_a_gm_rolling_again_starts_a_new_order(open_campaign) -> None:
    """A GM's roll naming someone already in the order replaces it and says who left."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Trooper 1]]")
    _post(referee, GM, "[[next]]")
    again = _post(referee, GM, "[[init Kara, Dax]]")
    tracker = _tracker(campaign)
    assert ({"Kara Venn", "Dax Orrel"}, 1, True) == (
        {c.name for c in tracker.combatants},
        tracker.round,
        "Trooper 1 left it" in again.text,
    )


def test_a_condition_expires_at_the_right_turn_and_the_verdict_says_so(open_campaign) -> None:
    """Stunned for 1 round on the first turn ends when round 2 reaches that turn again."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Goblin 20]] [[init add Kara 10]] [[next]]")
    set_it = _post(referee, GM, "[[init effect Kara stunned 1]]")
    kara_turn = _post(referee, GM, "[[next]]")
    ending = _post(referee, GM, "[[next]]")
    assert (True, True, True) == (
        "**Kara Venn is stunned** for 1 round" in set_it.text,
        "*stunned* until round 2" in kara_turn.text,
        "Kara Venn is no longer *stunned*." in ending.text,
    )
    assert () == _tracker(campaign).find("Kara").conditions


def test_a_player_removes_only_conditions_he_set(open_campaign) -> None:
    """The GM's 'stunned' on Kara stays when her player tries to clear it; his own mark goes."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Kara 10]] [[init effect Kara stunned 2]]")
    _post(referee, "kara_p", "[[init effect Kara Venn inspired]]")
    refused = _post(referee, "kara_p", "[[init re Kara stunned]]")
    cleared = _post(referee, "kara_p", "[[init re Kara inspired]]")
    kept = [c.name for c in _tracker(campaign).find("Kara").conditions]
    assert (1, 0, ["stunned"]) == (refused.problems, cleared.problems, kept)
    assert "A GM put stunned on Kara Venn; only a GM may remove it" in refused.text


def test_a_player_may_not_put_a_condition_on_another_players_character(open_campaign) -> None:
    """Dax's player pinning 'cursed' on Kara for 99 rounds is refused, saying who may; he
    still marks his own character and the GM's combatants."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Kara 10]] [[init add Dax 8]] [[init add Goblin 5]]")
    refused = _post(referee, "dax_p", "[[init effect Kara cursed 99]]")
    own = _post(referee, "dax_p", "[[init effect Dax inspired]] [[init effect Goblin prone 1]]")
    tracker = _tracker(campaign)
    assert (1, 0, (), ["inspired"], ["prone"]) == (
        refused.problems,
        own.problems,
        tracker.find("Kara").conditions,
        [c.name for c in tracker.find("Dax").conditions],
        [c.name for c in tracker.find("Goblin").conditions],
    )
    assert "only u&#47;kara\\_p or a GM may put a condition on it" in refused.text, refused.text


def test_a_player_removes_what_another_player_put_on_his_character(open_campaign) -> None:
    """A mark another player left on Kara (as older versions let him) is hers to remove,
    while the GM's on her stays the GM's."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Kara 10]] [[init effect Kara stunned 2]]")
    pinned, _ = set_condition(_tracker(campaign), "Kara Venn", "cursed", 99, "dax_p")
    campaign.store.table(TABLE).put("t3_fight", to_record(pinned, "t3_fight"))
    cleared = _post(referee, "kara_p", "[[init re Kara cursed]]")
    refused = _post(referee, "kara_p", "[[init re Kara stunned]]")
    kept = [c.name for c in _tracker(campaign).find("Kara").conditions]
    assert (0, 1, ["stunned"]) == (cleared.problems, refused.problems, kept)
    assert "A GM put stunned on Kara Venn; only a GM may remove it" in refused.text


def test_removing_every_condition_takes_the_players_and_leaves_the_gms(open_campaign) -> None:
    """[[init re Kara]] by her player takes what players put on her, not the GM's."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Kara 10]] [[init effect Kara stunned 2]]")
    pinned, _ = set_condition(_tracker(campaign), "Kara Venn", "cursed", 99, "dax_p")
    campaign.store.table(TABLE).put("t3_fight", to_record(pinned, "t3_fight"))
    outcome = _post(referee, "kara_p", "[[init re Kara]]")
    kept = [c.name for c in _tracker(campaign).find("Kara").conditions]
    assert (0, ["stunned"]) == (outcome.problems, kept)


def test_a_failed_tag_leaves_the_tracker_as_it_was(open_campaign) -> None:
    """Of two tags in one post the refused one changes nothing; the other is kept."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    outcome = _post(referee, GM, "[[init add Goblin 14]] [[init add Goblin 3]]")
    assert (1, [("Goblin", 14)]) == (
        outcome.problems,
        [(c.name, c.score) for c in _tracker(campaign).combatants],
    )


def test_a_score_may_be_rolled_and_is_in_the_ledger(open_campaign) -> None:
    """[[init add Goblin 1d20+2]] places the goblin at the roll's total, its die in the ledger."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    outcome = _post(referee, GM, "[[init add Goblin 1d20+2]]")
    score = _tracker(campaign).find("Goblin").score
    row = list(campaign.store.ledger)[-1]
    assert (True, 1, score - 2) == (
        3 <= score <= 22,
        len(row["draws"]),
        row["draws"][0][1],
    )
    assert f"joins the initiative at {score}" in outcome.text


def test_end_encounter_clears_the_tracker_and_list_then_says_how_to_start(open_campaign) -> None:
    """After [[end encounter]] (or [[init end]]) the thread has no order; list says so."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax]]")
    ended = _post(referee, GM, "[[init end]]")
    listed = _post(referee, "kara_p", "[[init list]]")
    assert (None, True, 1) == (
        _tracker(campaign),
        "The initiative order is cleared." in ended.text,
        listed.problems,
    )
    assert "no initiative order yet" in listed.text


def test_only_a_gm_ends_the_encounter_through_init_end(open_campaign) -> None:
    """A player's [[init end]] is refused and the order stays."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax]]")
    outcome = _post(referee, "kara_p", "[[init end]]")
    assert (1, True) == (outcome.problems, _tracker(campaign) is not None)


def test_threads_keep_their_own_trackers(open_campaign) -> None:
    """A fight in one thread does not move the order of another."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Goblin 5]]", thread="t3_a")
    _post(referee, GM, "[[init add Ogre 9]] [[next]]", thread="t3_b")
    assert (0, 1) == (_tracker(campaign, "t3_a").round, _tracker(campaign, "t3_b").round)


@pytest.mark.parametrize(
    ("tag", "says"),
    [
        ("[[init add Goblin]]", "Give Goblin a score"),
        ("[[init add Goblin 99999]]", "An initiative score must be"),
        ("[[init effect Kara]]", "Name the combatant, then the condition"),
        ("[[init effect Kara stunned 5000]]", "A condition's rounds must be"),
        ("[[next now]]", "alone"),
        ("[[init remove Nobody]]", "is not in this thread's initiative"),
    ],
)
def test_bad_tracker_tags_say_how_to_fix_them(open_campaign, tag: str, says: str) -> None:
    """Each malformed tracker tag gets one problem naming what to write."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init add Kara 10]]")
    outcome = _post(referee, GM, tag)
    assert (1, True) == (outcome.problems, says in outcome.text)


def test_a_system_without_initiative_sets_the_order_by_hand(open_campaign) -> None:
    """In edge a player places his own character, not another's; [[init Kara]] says how."""
    campaign = open_campaign(
        [
            {"name": "Kara Venn", "cool": 1, "hard": 0, "hot": 1, "sharp": 1, "weird": -1},
            {"name": "Dax", "cool": 0, "hard": 2, "hot": -1, "sharp": 1, "weird": 0},
        ],
        owners=OWNERS | {"Dax": "dax_p"},
        system="edge",
    )
    referee = Referee(campaign)
    own = _post(referee, "kara_p", "[[init add Kara 12]]")
    other = _post(referee, "kara_p", "[[init add Dax 20]]")
    rolled = _post(referee, "kara_p", "[[init Kara]]")
    assert (0, 1, 1) == (own.problems, other.problems, rolled.problems)
    assert "rolls no initiative" in rolled.text


def test_next_after_a_void_moves_on_from_the_turn_the_void_put_back(open_campaign) -> None:
    """A voided [[next]] puts the turn back; the following [[next]] starts from there."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax, Trooper 1]]")
    started = _tracker(campaign)
    moved = _post(referee, GM, "[[next]]")
    voided = _post(referee, GM, f"[[void {moved.post.id36}-1 moved too soon]]")
    after_void = _tracker(campaign)
    _post(referee, GM, "[[next]]")
    assert (0, started, advance(started).tracker) == (
        voided.problems,
        after_void,
        _tracker(campaign),
    )


def test_a_tracker_write_rolled_back_is_not_read_back(open_campaign) -> None:
    """A tag's change to the tracker, undone when the tag fails, is gone for the next tag."""
    campaign = _campaign(open_campaign)
    referee = Referee(campaign)
    _post(referee, GM, "[[init Kara, Dax, Trooper 1]]")
    started = _tracker(campaign)
    context = referee.session.context(Post("t1_undone", "t3_fight", GM, "", 0.0))
    tracker_verbs.save(context, advance(started).tracker)
    written = tracker_verbs.load(context)
    context.changes.rollback()
    assert (advance(started).tracker, started) == (written, tracker_verbs.load(context))
