"""The permission matrix: who may do what, for every role and verb, through the pipeline.

Roles: the owner of Kara Venn, another player (who owns Dax), a GM, and a stranger
with no character. Every refusal must be a clear reply, never silence.
"""

import pytest

from referee.base.posts import Post
from referee.pipeline.flow import Referee
from referee.testing import sheet

OWNER, OTHER, GM, STRANGER = "kara_player", "dax_player", "gm", "passer_by"
ROLES = (OWNER, OTHER, GM, STRANGER)

KARA = sheet(
    "Kara Venn",
    owner=OWNER,
    magic=[{"name": "Force", "points": 2, "techniques": [{"name": "Telekinesis", "tier": "d4"}]}],
)
SHEETS = [KARA, sheet("Dax Orrel", owner=OTHER), sheet("Trooper 1", kind="npc")]
SPEEDER = {
    "name": "Kara's Speeder",
    "craft": "vehicle",
    "class": "light",
    "owner": OWNER,
    "weapon": "d6",
    "speed": "d6",
    "armour": "d4",
    "sensors": "d4",
}
BIKE = {
    "name": "Swoop Bike",
    "craft": "vehicle",
    "class": "light",
    "pilot": "Kara Venn",
    "weapon": "d6",
    "speed": "d10",
    "armour": 0,
    "sensors": 0,
}
APPLICATION = """[[apply]]

```
name: Orla Vex
background: experienced
strength: 2
agility: 2
endurance: 3
perception: 2
```
"""

# verb -> (tag, who may do it)
MATRIX = {
    "roll dice": ("[[roll 2d6+3]]", set(ROLES)),
    "roll stat": ("[[roll Kara agility]]", {OWNER, GM}),
    "init": ("[[init Kara]]", {OWNER, GM}),
    "shoot": ("[[shoot Kara -> Trooper 1]]", {OWNER, GM}),
    "melee": ("[[melee Kara -> Trooper 1]]", {OWNER, GM}),
    "cast": ("[[cast Kara Telekinesis]]", {OWNER, GM}),
    "apply": (APPLICATION.replace("Orla Vex", "Nell Quill"), set(ROLES)),
    "approve": ("[[approve Orla Vex]]", {GM}),
    "reject": ("[[reject Orla Vex: not this time]]", {GM}),
    "revise": ("[[revise Orla Vex: more detail please]]", {GM}),
    "npc": ("[[npc Trooper 9 as trooper]]", {GM}),
    "wound": ("[[wound Trooper 1 +1]]", {GM}),
    "heal": ("[[heal Kara]]", {GM}),
    "end": ("[[end encounter]]", {GM}),
    "vehicle stat": ("[[stat Kara's Speeder speed]]", {OWNER, GM}),
    "vehicle stat, piloted": ("[[stat Swoop Bike speed]]", {OWNER, GM}),
    "vehicle shoot": ("[[shoot Kara's Speeder -> Trooper 1]]", {OWNER, GM}),
    "vehicle init": ("[[init Swoop Bike, Trooper 1]]", {GM}),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("verb", list(MATRIX))
def test_permission_matrix(open_campaign, verb, role):
    """Each role may do exactly what the matrix allows; a refusal says who may and why."""
    referee = Referee(open_campaign(SHEETS, crafts=[SPEEDER, BIKE]))
    # An application by someone else exists for the decision verbs to act on.
    referee.referee(Post("t1_app", "t3_t", "applicant", APPLICATION, 1.0))
    body, allowed = MATRIX[verb]
    outcome = referee.referee(Post("t1_act", "t3_t", role, body, 2.0))
    refused = outcome.problems == 1
    assert (role not in allowed) == refused, outcome.text
    if refused:
        reasons = ("Only a GM", "only a GM", "belongs to", "flown by", "choose another name")
        assert any(word in outcome.text for word in reasons), outcome.text


def test_a_character_awaiting_approval_may_not_act(open_campaign):
    """The applicant's own character is refused until a GM approves it, then acts."""
    referee = Referee(open_campaign(SHEETS))
    referee.referee(Post("t1_app", "t3_t", "applicant", APPLICATION, 1.0))
    before = referee.referee(Post("t1_try", "t3_t", "applicant", "[[roll Orla agility]]", 2.0))
    referee.referee(Post("t1_ok", "t3_t", GM, "[[approve]]", 3.0, parent="t1_app"))
    after = referee.referee(Post("t1_again", "t3_t", "applicant", "[[roll Orla agility]]", 4.0))
    assert (1, True, 0) == (before.problems, "not approved yet" in before.text, after.problems)


def test_gms_come_from_config_and_from_the_caller(open_campaign):
    """A moderator the worker knows of is a GM as much as config.toml's list."""
    campaign = open_campaign(SHEETS)
    as_moderator = Referee(campaign, gms=["Mod_Person"]).referee(
        Post("t1_m", "t3_t", "mod_person", "[[wound Trooper 1 +1]]", 1.0)
    )
    assert 0 == as_moderator.problems
