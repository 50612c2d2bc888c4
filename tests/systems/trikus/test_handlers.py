"""Tests and fights by post: Negotiation between two players, and overturning duels and rounds."""

from __future__ import annotations

import pytest

from referee.base.errors import Forbidden, RuleViolation
from referee.pipeline.campaign import Campaign
from referee.systems.trikus.resources import Outcome

from .test_system import lines, outcomes, party_sheets, state, tag


@pytest.fixture
def campaign(open_campaign) -> Campaign:
    return open_campaign(party_sheets(), system="trikus")


# A duel between players: Michal (Master, 3 dice) named first, Zuzia (Advanced, her 2-die
# line) second, in the GM's place: each throw her die lands first, then his.


def test_a_players_negotiation_waits_for_the_other_players_answer(campaign: Campaign) -> None:
    """Z5 M3; M4; M9 (takes control); Z9 (takes it back): Michal asks to reroll her 9 and the
    duel waits for Zuzia; her yes rerolls it to 2, and Michal wins with his 9."""
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Michal negotiate=8", author="michal")
    waiting = tag(campaign, "declare Zuzia", [5, 3, 4, 9, 9], author="zuzia").result
    with pytest.raises(Forbidden, match="only they or a GM may answer this Negotiation"):
        tag(campaign, "answer yes", author="michal")
    with pytest.raises(RuleViolation, match="waits for Zuzia's player"):
        tag(campaign, "go")
    played = tag(campaign, "answer yes", [2], author="zuzia").result
    (reroll,) = [e for e in played.duel.events if hasattr(e, "proposer")]
    assert ("Michal", "Zuzia", 9) == (
        waiting.pending.proposer,
        waiting.answerer,
        waiting.pending.die,
    )
    assert ("Michal", 9, True, 2) == (reroll.proposer, reroll.old, reroll.agreed, reroll.new)
    assert {"Michal": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE} == outcomes_of(played)
    assert ["struck"] == lines(campaign, "michal")  # no Catastrophe for the winner


def outcomes_of(played) -> dict[str, Outcome]:
    return {k.name: k.outcome for k in played.takings}


def test_the_second_players_negotiation_is_answered_by_the_first(campaign: Campaign) -> None:
    """Z3 M8 (his 8 takes control): Zuzia asks, Michal says no; Z9; M2; M1: Zuzia wins, and a
    refused Negotiation costs her nothing."""
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Michal", author="michal")
    waiting = tag(campaign, "declare Zuzia negotiate=8", [3, 8], author="zuzia").result
    played = tag(campaign, "answer no", [9, 2, 1], author="michal").result
    (reroll,) = [e for e in played.duel.events if hasattr(e, "proposer")]
    assert ("GM", "Michal") == (waiting.pending.proposer, waiting.answerer)
    assert ("GM", "Michal", False) == (reroll.proposer, reroll.whose, reroll.agreed)
    assert {"Michal": Outcome.FAILURE, "Zuzia": Outcome.SUCCESS} == outcomes_of(played)


def test_a_standing_accept_answers_at_once_and_the_losing_proposer_suffers(
    campaign: Campaign,
) -> None:
    """Zuzia accepts: Z9 M2, Michal's reroll of her 9 gives 1; Z5; M3; M4: he lost after his
    Negotiation, so he suffers a Catastrophe (his 3-die line lost)."""
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Zuzia accept", author="zuzia")
    played = tag(campaign, "declare Michal negotiate=9", [9, 2, 1, 5, 3, 4], author="michal")
    kinds = [c.kind.name for c in played.result.changes if c.who == "Michal"]
    assert {"Michal": Outcome.FAILURE, "Zuzia": Outcome.SUCCESS} == outcomes(played)
    assert ("CATASTROPHE" in kinds, ["lost"]) == (True, lines(campaign, "michal"))


def test_r22_limits_each_players_proposals(open_campaign) -> None:
    """negotiations_per_test = 0 refuses a player's negotiate in a duel, saying so."""
    ruled = open_campaign(party_sheets(), system="trikus", rulings={"negotiations_per_test": 0})
    tag(ruled, "open duel Michal, Zuzia")
    with pytest.raises(RuleViolation, match="never agrees to a Negotiation"):
        tag(ruled, "declare Michal negotiate=8", author="michal")


def test_a_gms_negotiation_answer_is_refused_to_players(campaign: Campaign) -> None:
    """A test waits on the GM's answer: a player's [[answer yes]] is refused, naming the GM."""
    tag(campaign, "test Zuzia vs 2 negotiate=5", [6, 3])
    with pytest.raises(Forbidden, match="Only a GM may answer a Negotiation"):
        tag(campaign, "answer yes", author="zuzia")


# ------------------------------------------------------------------------- overturn


def test_the_gm_overturns_a_duel_between_players_after_a_boom(campaign: Campaign) -> None:
    """Z5 M5 (void); Z7 M5: three 5s, a Boom; M3: Zuzia won. Overturned: Michal succeeds."""
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Michal", author="michal")
    played = tag(campaign, "declare Zuzia", [5, 5, 7, 5, 3], author="zuzia").result
    morale = state(campaign, "zuzia")["morale"]
    turned = tag(campaign, "overturn").result
    assert ((5, 2),) == tuple((b.face, b.throw) for b in played.booms)
    assert {"Michal": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE} == outcomes_of(turned)
    assert (1, 0, 1) == (
        morale,
        state(campaign, "zuzia")["morale"],
        state(campaign, "michal")["morale"],
    )


def test_the_gm_overturns_a_fight_round_and_the_fight_goes_on(campaign: Campaign) -> None:
    """Ida (line die + droid) vs GM 2: G4 I4 void; G4 I2: three 4s; Ida lost, the droid died.
    Overturned: Ida won the round, the GM loses a die, the droid lives, +1 Morale."""
    tag(campaign, "open fight 2 Ida")
    lost = tag(campaign, "declare Ida", [4, 4, 4, 2], author="ida").result
    turned = tag(campaign, "overturn").result
    ida = state(campaign, "ida")
    thread = campaign.store.table("trikus_threads").get("t3_a")
    assert ({"Ida": Outcome.FAILURE}, 1) == (outcomes_of(lost), lost.fight.pools[0].dice)
    assert {"Ida": Outcome.SUCCESS} == outcomes_of(turned)
    assert (1, 2, ["R4 droid"], 1) == (
        turned.fight.gm_dice,
        turned.fight.pools[0].dice,
        ida["allies"],
        ida["morale"],
    )
    assert (["Ida"], 2) == (thread["open"]["participants"], thread["open"]["round"])


def test_an_overturn_is_refused_once_the_party_changed(campaign: Campaign) -> None:
    """After the Boom round, a GM edit: the round stands, and the refusal says why."""
    tag(campaign, "open fight 2 Ida")
    tag(campaign, "declare Ida", [4, 4, 4, 2], author="ida")
    tag(campaign, "morale Ida 3")
    with pytest.raises(RuleViolation, match="party has changed since"):
        tag(campaign, "overturn")


def test_a_round_without_a_boom_is_not_overturned(campaign: Campaign) -> None:
    """Vector 3's first round has no Boom: the GM's overturn is refused."""
    tag(campaign, "open fight 2 Ida")
    tag(campaign, "declare Ida", [4, 4, 9, 2], author="ida")
    with pytest.raises(RuleViolation, match="no Boom"):
        tag(campaign, "overturn")


def test_a_refused_proposal_counts_toward_r22(campaign: Campaign) -> None:
    """Z3 M8: Zuzia asks, Michal refuses; Z9; M10 takes control again, but Zuzia has made
    her one Negotiation (R-22): no second proposal, and Michal wins."""
    tag(campaign, "open duel Michal, Zuzia")
    tag(campaign, "declare Michal", author="michal")
    tag(campaign, "declare Zuzia negotiate=1", [3, 8], author="zuzia")
    played = tag(campaign, "answer no", [9, 10], author="michal").result
    rerolls = [e for e in played.duel.events if hasattr(e, "proposer")]
    assert (None, 1) == (played.pending, len(rerolls))
    assert {"Michal": Outcome.SUCCESS, "Zuzia": Outcome.FAILURE} == outcomes_of(played)
