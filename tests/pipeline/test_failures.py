"""Tests for referee.pipeline.failures and the pipeline's post isolation: one bad post
costs itself."""

import tempfile
from pathlib import Path

import jinja2
import pytest

from referee.base.errors import ConfigError
from referee.base.posts import Post
from referee.live.shell_requests import retry_failure
from referee.pipeline.campaign import Campaign
from referee.pipeline.failures import FAILURE_REPLY, FailureLog
from referee.pipeline.flow import Referee
from referee.testing import make_campaign, sheet

SHEETS = [sheet("Kara Venn", owner="kara"), sheet("Trooper 1", kind="npc")]
POISON = "t1_poison"


def _post(fullname, body, author="gm", created=1.0):
    return Post(fullname, "t3_thread", author, body, created, parent="t3_thread")


def _poisoned(referee, how="unwritable"):
    """Make the reply of POISON break the way a hidden bug would, after its tags resolved."""
    render = referee.renderer.render
    calls = []

    def broken(reply):
        if reply.post_fullname == POISON:
            calls.append(reply.post_fullname)
            if how == "template":
                raise jinja2.TemplateError("'verdict' is undefined")
            return render(reply) + "\ud800"  # a value the store cannot write
        return render(reply)

    referee.renderer.render = broken
    return calls


def test_a_failing_post_is_undone_recorded_answered_and_the_next_post_is_refereed(
    open_campaign,
):
    """A post that fails after rolling and adding an NPC leaves no trace but its failure
    record and the notice; the posts around it are refereed and the store flushes."""
    campaign = open_campaign(SHEETS)
    referee = Referee(campaign)
    _poisoned(referee)
    good = referee.referee(_post("t1_a", "[[roll d6]]"))
    bad = referee.referee(
        _post(POISON, "[[roll d20]] [[npc Bandit: str 2, agi 2, end 2, per 2]]", created=2.0)
    )
    after = referee.referee(_post("t1_c", "[[npc Bandit: str 3, agi 2, end 2, per 2]]", created=3))
    campaign.store.flush()
    failure = FailureLog(campaign.store).get(POISON)
    assert (False, True, False) == (good.failed, bad.failed, after.failed)
    assert FAILURE_REPLY.format(post=POISON) == bad.text
    assert "TypeError: the store cannot write this record" in failure.error
    assert ["a-1", "c-1"] == [row["roll_id"] for row in campaign.store.ledger]
    assert "**Bandit enters play**" in after.text


@pytest.mark.parametrize("how", ["unwritable", "template"])
def test_a_failed_post_is_answered_once_and_never_refereed_again_by_itself(tmp_path, how):
    """After a restart the failed post replays its notice without running again."""
    campaign = make_campaign(tmp_path, SHEETS)
    with campaign:
        referee = Referee(campaign)
        calls = _poisoned(referee, how)
        first = referee.referee(_post(POISON, "[[roll d6]]"))
    with Campaign(campaign.config, campaign.secret) as reopened:
        referee = Referee(reopened)
        again = _poisoned(referee, how)
        second = referee.referee(_post(POISON, "[[roll d6]]"))
    assert (1, [], first.text, True, True) == (
        len(calls),
        again,
        second.text,
        second.failed,
        second.replayed,
    )


def test_retry_after_a_fix_referees_the_post_and_marks_the_notice_for_editing(open_campaign):
    """retry_failure runs the stored post again; a delivered notice is due to be edited."""
    campaign = open_campaign(SHEETS)
    referee = Referee(campaign)
    _poisoned(referee)
    referee.referee(_post(POISON, "[[roll d6]]"))
    record = referee.posts.get(POISON)
    referee.posts.put(POISON, {**record, "delivery": {"state": "delivered", "reply": "t1_r"}})
    fixed = Referee(campaign)  # the fix: a referee without the bug
    outcome = retry_failure(fixed, POISON)
    record = fixed.posts.get(POISON)
    assert (False, 1, True, "t1_r", 0) == (
        outcome.failed,
        outcome.new_rolls,
        record["delivery"]["edit_pending"],
        record["delivery"]["reply"],
        len(fixed.failures),
    )


def test_retry_of_a_post_that_did_not_fail_says_so(open_campaign):
    """Retrying an unknown post is refused with a pointer to the list."""
    with pytest.raises(ConfigError, match="referee failures"):
        retry_failure(Referee(open_campaign(SHEETS)), "t1_nothing")


def test_a_failed_edit_of_an_application_keeps_its_reply_and_adds_the_notice_once(
    open_campaign,
):
    """An edited application that fails keeps the first verdict, with the notice below."""
    campaign = open_campaign(SHEETS)
    referee = Referee(campaign)
    sheet_text = "[[apply]]\n\n```\nname: Orla\nstrength: 2\n```\n"
    first = referee.referee(_post(POISON, sheet_text, author="orla"))
    _poisoned(referee)
    edited = _post(POISON, sheet_text.replace("2", "3"), author="orla")
    failed = referee.referee(edited)
    again = referee.referee(edited)
    assert (True, True, False) == (failed.failed, failed.note_added, again.note_added)
    assert failed.text.startswith(first.text.rstrip("\n"))
    assert failed.text == again.text
    assert 1 == failed.text.count("could not handle this post")


def test_the_failure_record_survives_any_error_text():
    """An error quoting a lone surrogate or pages of text is still recorded, cut short."""
    with tempfile.TemporaryDirectory() as folder:
        campaign = make_campaign(Path(folder), SHEETS)
        with campaign:
            log = FailureLog(campaign.store)
            log.record(_post("t1_x", "[[roll d6 \ud800]]"), ValueError("\udfff" * 5000), "now")
        with Campaign(campaign.config, campaign.secret) as reopened:
            failure = FailureLog(reopened.store).get("t1_x")
    assert ("ValueError: \ufffd", True) == (failure.error[:13], len(failure.error) <= 2000)
