"""Applications and GM tools, end to end through the pipeline and a real store."""

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.render.notices import NoticeRenderer
from referee.testing import sheet

GM = "gm"
SHEET = """[[apply]] Here is Orla.

```
name: Orla Vex
background: experienced
strength: 2
agility: {agility}
endurance: 1
perception: 2
magic: Force 2
technique: Telekinesis d4
technique: Mind Trick d6
```
"""


def _apply(referee, fullname="t1_app", agility=2, created=1.0, author="orla_player", body=None):
    text = SHEET.format(agility=agility) if body is None else body
    return referee.referee(Post(fullname, "t3_t", author, text, created))


def _gm(referee, body, fullname, parent="t1_app", created=5.0):
    return referee.referee(Post(fullname, "t3_t", GM, body, created, parent=parent))


def test_a_sheet_with_problems_lists_each_one(open_campaign):
    """A human with 4 points in Agility is told exactly what is wrong and how to resubmit."""
    outcome = _apply(Referee(open_campaign()), agility=4)
    assert ("needs changes" in outcome.text.casefold(), "at most 3" in outcome.text) == (True, True)


def test_a_clean_sheet_awaits_approval(open_campaign):
    """A legal sheet is rendered back with 'Awaiting GM approval'."""
    outcome = _apply(Referee(open_campaign()))
    assert ("Awaiting GM approval" in outcome.text, "Orla Vex" in outcome.text) == (True, True)


def test_apply_without_a_code_block_says_how(open_campaign):
    """[[apply]] with no sheet explains the code block and the fields."""
    outcome = Referee(open_campaign()).referee(
        Post("t1_x", "t3_t", "p", "[[apply]] name: Orla", 1.0)
    )
    assert (1, "code block" in outcome.text) == (outcome.problems, True)


def test_editing_the_application_submits_a_new_version_and_keeps_the_old(open_campaign):
    """An edit of the application post is version 2; both versions stay in the store."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _apply(referee, agility=4)
    edited = _apply(referee, agility=2)
    again = _apply(referee, fullname="t1_app2", agility=2, created=3.0)
    versions = campaign.store.table("applications").get("orla vex")["versions"]
    assert (True, "version 2" in edited.text, "version 3" in again.text) == (
        edited.note_added,
        True,
        True,
    )
    assert [4, 2, 2] == [v["sheet"]["stats"]["agility"] for v in versions]


def test_revise_and_reject_record_the_gms_note(open_campaign):
    """revise and reject by reply set the status and repeat the GM's words to the player."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _apply(referee)
    revise = _gm(referee, "[[revise tell us where she trained]]", "t1_rev")
    status_after_revise = campaign.store.table("applications").get("orla vex")["status"]
    reject = _gm(referee, "[[reject she does not fit the crew]]", "t1_rej", created=6.0)
    status_after_reject = campaign.store.table("applications").get("orla vex")["status"]
    assert ("revision requested", "rejected") == (status_after_revise, status_after_reject)
    assert ("where she trained" in revise.text, "does not fit" in reject.text) == (True, True)


def test_approve_with_amendments_changes_the_sheet(open_campaign):
    """The GM moves one technique, forbids another and makes her named; she survives 3."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _apply(referee)
    outcome = _gm(
        referee,
        "[[approve with move Telekinesis to d6, forbid Mind Trick, named]]",
        "t1_ok",
    )
    stored = campaign.store.table("characters").get("orla vex")
    techniques = stored["sheet"]["magic"][0]["techniques"]
    assert (0, True, "orla_player") == (outcome.problems, stored["approved"], stored["owner"])
    assert ([{"name": "Telekinesis", "tier": "d6"}], True, 3) == (
        techniques,
        stored["sheet"]["named"],
        stored["sheet"]["wounds_survived"],
    )


def test_approving_a_sheet_that_breaks_the_rules_needs_force(open_campaign):
    """A GM is told what still breaks the rules, and 'with force' approves it anyway."""
    referee = Referee(open_campaign())
    _apply(referee, agility=4)
    refused = _gm(referee, "[[approve]]", "t1_no")
    forced = _gm(referee, "[[approve with force]]", "t1_yes", created=6.0)
    assert (1, "approve with force" in refused.text, 0) == (refused.problems, True, forced.problems)


def test_gm_actions_go_into_the_ledger(open_campaign):
    """Every GM decision and tool use is a ledger row, with no dice."""
    campaign = open_campaign([sheet("Trooper 1", kind="npc")])
    referee = Referee(campaign)
    _apply(referee)
    _gm(
        referee,
        "[[approve]] [[npc Trooper 2 as trooper]] [[wound Trooper 1 +1]] [[end encounter]]",
        "t1_gm",
    )
    kinds = [row["kind"] for row in campaign.store.ledger if row["post"] == "t1_gm"]
    assert ["decision", "npc", "wounds", "encounter"] == kinds


def test_npcs_from_templates_and_inline_stats(open_campaign):
    """Template and inline NPCs join the roster; a taken name and a bad template are refused."""
    campaign = open_campaign([sheet("Trooper 1", kind="npc")])
    referee = Referee(campaign)
    body = (
        "[[npc Sergeant Holt as veteran]] "
        "[[npc Bandit: str 3, agi 2, end 2, per 2, named, tough 2]] "
        "[[npc Trooper 1 as trooper]] [[npc Ghost as wraith]]"
    )
    outcome = referee.referee(Post("t1_n", "t3_t", GM, body, 1.0))
    table = campaign.store.table("characters")
    assert (2, True, 2) == (
        outcome.problems,
        table.get("sergeant holt")["approved"],
        table.get("bandit")["sheet"]["wounds_survived"],
    )
    assert ("already exists" in outcome.text, "veteran" in outcome.text) == (True, True)


def test_wound_and_heal_change_state(open_campaign):
    """A GM's wound kills a mook at once; heal restores a PC to fighting."""
    campaign = open_campaign([sheet("Trooper 1", kind="npc"), sheet("Kara Venn", wounds=2)])
    referee = Referee(campaign)
    outcome = referee.referee(Post("t1_w", "t3_t", GM, "[[wound Trooper 1 +1]] [[heal Kara]]", 1.0))
    table = campaign.store.table("characters")
    assert ("dead", 0) == (
        "dead" if table.get("trooper 1")["sheet"]["wounds"] == 1 else "alive",
        table.get("kara venn")["sheet"]["wounds"],
    )
    assert "**dead**" in outcome.text


def test_end_encounter_clears_the_initiative_order(open_campaign):
    """After [[end encounter]] the thread has no initiative order."""
    campaign = open_campaign([sheet("Kara Venn")])
    referee = Referee(campaign)
    referee.referee(Post("t1_i", "t3_t", GM, "[[init Kara]]", 1.0))
    had = "t3_t" in campaign.store.table("initiative")
    referee.referee(Post("t1_e", "t3_t", GM, "[[end encounter]]", 2.0))
    assert (True, False) == (had, "t3_t" in campaign.store.table("initiative"))


def test_a_players_sheet_that_sets_its_wound_track_or_kind_is_told_so(open_campaign):
    """[[apply]] with tough: 0 and kind: npc gets both problems at once and is not stored."""
    campaign = open_campaign()
    body = SHEET.format(agility=2).replace("strength: 2", "strength: 2\ntough: 0\nkind: npc")
    outcome = Referee(campaign).referee(Post("t1_app", "t3_t", "orla_player", body, 1.0))
    assert (1, True, True, None) == (
        outcome.problems,
        "always survives 3 wounds" in outcome.text,
        "always a player character" in outcome.text,
        campaign.store.table("applications").get("orla vex"),
    )


def test_a_gm_cannot_make_a_player_character_tough(open_campaign):
    """[[approve with tough 2]] on a PC is refused: player characters survive 3 wounds."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _apply(referee)
    outcome = _gm(referee, "[[approve with tough 2]]", "t1_ok")
    assert (1, True, None) == (
        outcome.problems,
        "always survives 3 wounds" in outcome.text,
        campaign.store.table("characters").get("orla vex"),
    )


def test_an_npc_surviving_one_wound_is_refused(open_campaign):
    """Seed: a tough NPC survives 2 or 3; [[npc Bandit: ..., tough 1]] is refused."""
    campaign = open_campaign()
    body = "[[npc Bandit: str 3, agi 2, end 2, per 2, tough 1]]"
    outcome = Referee(campaign).referee(Post("t1_n", "t3_t", GM, body, 1.0))
    assert (1, True, None) == (
        outcome.problems,
        "An NPC survives 0 wounds" in outcome.text,
        campaign.store.table("characters").get("bandit"),
    )


def test_magic_points_come_out_of_the_budget_and_obey_the_cap(open_campaign):
    """R-60: a noncombatant human with Force 6 is told both the cap and the overspend."""
    body = SHEET.format(agility=1).replace("experienced", "noncombatant")
    body = body.replace("strength: 2", "strength: 1").replace("Force 2", "Force 6")
    outcome = _apply(Referee(open_campaign()), body=body)
    assert (True, True) == (
        "Force has 6 points; a human may have at most 3" in outcome.text,
        "The stats and magic spend 7 points" in outcome.text,
    )


def test_free_magic_points_are_the_gms(open_campaign):
    """R-60 "free": Force 2 beside a full budget of stats is no overspend."""
    body = SHEET.format(agility=2).replace("endurance: 1", "endurance: 3")
    outcome = _apply(Referee(open_campaign(rulings={"magic_points": "free"})), body=body)
    assert "Awaiting GM approval" in outcome.text


def test_an_inline_npc_missing_stats_is_refused_and_leaves_the_name_free(open_campaign):
    """[[npc Ghoul: str 2, agi 2]] is refused like a sheet; the full Ghoul then enters and acts."""
    campaign = open_campaign()
    referee = Referee(campaign)
    refused = referee.referee(Post("t1_g1", "t3_t", GM, "[[npc Ghoul: str 2, agi 2]]", 1.0))
    body = "[[npc Ghoul: str 2, agi 2, end 2, per 2]] [[roll Ghoul endurance]]"
    accepted = referee.referee(Post("t1_g2", "t3_t", GM, body, 2.0))
    assert (1, True, 0, 2) == (
        refused.problems,
        "Endurance has no points" in refused.text and "Perception has no points" in refused.text,
        accepted.problems,
        accepted.new_rolls,
    )


def test_an_inline_npc_out_of_range_is_refused(open_campaign):
    """[[npc Bandit: str 9]] is refused (9 points is no die) and Bandit is not on the roster."""
    campaign = open_campaign()
    outcome = Referee(campaign).referee(Post("t1_b", "t3_t", GM, "[[npc Bandit: str 9]]", 1.0))
    assert (1, True, None) == (
        outcome.problems,
        "Strength has 9 points" in outcome.text,
        campaign.store.table("characters").get("bandit"),
    )


def test_one_point_over_the_budget_reads_in_the_singular(open_campaign):
    """A sheet one point over is told "so 1 is over", not "so 1 are over"."""
    outcome = _apply(Referee(open_campaign()), agility=3)
    assert (True, False) == ("so 1 is over" in outcome.text, "1 are" in outcome.text)


def _hidden_orla(referee):
    """The GM makes an NPC named Orla Vex in a private message: players never see her."""
    body = "[[npc Orla Vex: str 2, agi 2, end 2, per 2]]"
    referee.referee(Post("t4_npc", "t4_npc", GM, body, 0.5), private=True)


def test_applying_under_a_hidden_npcs_name_does_not_reveal_her(open_campaign):
    """A player applying as Orla Vex is answered as if no Orla existed (she is the GM's secret)."""
    referee = Referee(open_campaign())
    _hidden_orla(referee)
    outcome = _apply(referee)
    assert (0, True, False) == (
        outcome.problems,
        "Awaiting GM approval" in outcome.text,
        "already in play" in outcome.text or "No character" in outcome.text,
    )


def test_approving_over_another_character_is_refused_and_leaves_it_untouched(open_campaign):
    """The GM approving Orla Vex while his hidden NPC holds the name is told, not overwritten."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _hidden_orla(referee)
    _apply(referee)
    applications = campaign.store.table("applications")
    before = (campaign.store.table("characters").get("orla vex"), applications.get("orla vex"))
    outcome = _gm(referee, "[[approve]]", "t1_ok")
    after = (campaign.store.table("characters").get("orla vex"), applications.get("orla vex"))
    assert (1, None) == (outcome.problems, after[0]["owner"])
    assert before == after


def test_refusing_an_approval_over_a_hidden_npc_tells_the_thread_nothing_of_her(open_campaign):
    """The thread reads a generic refusal; the GM alone is told, privately, that his NPC
    holds the name and what to do."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _hidden_orla(referee)
    _apply(referee)
    outcome = _gm(referee, "[[approve]]", "t1_ok")
    notices = [n for n in campaign.store.table("notices").values() if n["template"] == "gm_reason"]
    public = outcome.text.casefold()
    assert (1, True, False, False, False) == (
        outcome.problems,
        "the gm has been told why by private message" in public,
        "roster" in public,
        "rename" in public,
        "known to the gms only" in public,
    ), outcome.text
    assert [("message", GM)] == [(n["channel"], n["to"]) for n in notices]
    reason = notices[0]["data"]["reason"]
    assert (True, True, True) == (
        "already on the roster" in reason,
        "[[rename Orla Vex -> ...]]" in reason,
        "known to the GMs only" in reason,
    )
    text = NoticeRenderer().render("gm_reason", notices[0]["data"], notices[0]["key"], "message")
    assert (True, True) == ("approve" in text, "rename Orla Vex" in text), text


def test_a_gm_approving_in_private_is_told_the_hidden_reason_at_once(open_campaign):
    """In a GM's private message nobody else reads the answer: it says why outright."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _hidden_orla(referee)
    _apply(referee)
    body = "[[approve Orla Vex]]"
    outcome = referee.referee(Post("t4_ok", "t4_ok", GM, body, 5.0), private=True)
    assert (1, True) == (outcome.problems, "already on the roster" in outcome.text)


def test_a_player_reapplying_for_his_own_character_may_be_approved_again(open_campaign):
    """Re-approval of the same owner's character replaces his sheet (the way to amend it)."""
    campaign = open_campaign()
    referee = Referee(campaign)
    _apply(referee)
    _gm(referee, "[[approve]]", "t1_ok")
    body = SHEET.format(agility=1).replace("perception: 2", "perception: 3")
    _apply(referee, fullname="t1_app2", created=6.0, body=body)
    outcome = _gm(referee, "[[approve]]", "t1_ok2", parent="t1_app2", created=7.0)
    stored = campaign.store.table("characters").get("orla vex")
    assert (0, "orla_player", 1) == (
        outcome.problems,
        stored["owner"],
        stored["sheet"]["stats"]["agility"],
    )


def test_a_decision_that_names_no_application_shows_one_waiting_here(open_campaign):
    """[[approve]] not in reply to an application is shown the form with a waiting one's name."""
    campaign = open_campaign()
    referee = Referee(campaign)
    before = _gm(referee, "[[approve]]", "t1_early", parent="t3_t")
    _apply(referee, body=SHEET.format(agility=2).replace("Orla Vex", "Ida Marr"))
    after = _gm(referee, "[[reject]]", "t1_late", parent="t3_t", created=6.0)
    shown = ("approve NAME&#93;&#93;" in before.text, "reject Ida Marr\\: the sheet" in after.text)
    assert (True, True) == shown, (before.text, after.text)
