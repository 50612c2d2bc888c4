"""Stepped's verbs as text: each tag parses into the right request, or says the right form."""

from __future__ import annotations

from dataclasses import is_dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.errors import TagError
from referee.base.limits import Limits
from referee.notation import parse_expression
from referee.read.tags import RollDice
from referee.read.tags import parse_tag as parse_with
from referee.resolve.dispatch import verbs_for
from referee.system import ParseContext
from referee.systems.stepped.system import SYSTEM
from referee.systems.stepped.verbs import Attack, Cast, RollInitiative, RollStat
from referee.testing.demos import every_verb
from referee.testing.hostile import tag_texts

VERBS = verbs_for(SYSTEM)
USAGE = {verb.name: verb.usage for verb in VERBS.values()}


def parse_tag(text: str, context: ParseContext | None = None) -> object:
    """A tag parsed with stepped's verbs (and the core's)."""
    return parse_with(text, VERBS, context or ParseContext())


KNOWN = ParseContext(frozenset({"kara", "kara venn", "trooper 1", "leg breaker", "dax"}))

PARSED = [
    ("roll 2d6+3", None, RollDice(parse_expression("2d6+3"))),
    ("r d20", None, RollDice(parse_expression("d20"))),
    ("ROLL 4d6kh3", None, RollDice(parse_expression("4d6kh3"))),
    ("2d6+3", None, RollDice(parse_expression("2d6+3"))),
    ("roll Kara agility", None, RollStat("Kara", ("agility",))),
    ("roll Kara agility+perception -1", None, RollStat("Kara", ("agility", "perception"), -1)),
    ("roll Kara agility + perception - 1", None, RollStat("Kara", ("agility", "perception"), -1)),
    ("roll Kara str +1 +2", None, RollStat("Kara", ("strength",), 3)),
    ("roll Trooper 1 per", None, RollStat("Trooper 1", ("perception",))),
    ("roll  trooper   1  ENDU", None, RollStat("trooper 1", ("endurance",))),
    ("roll Kara Venn dexterity+firearms", None, RollStat("Kara Venn", ("dexterity", "firearms"))),
    ("roll Kara Venn melee combat", KNOWN, RollStat("Kara Venn", ("melee combat",))),
    ("roll Kara per−2", None, RollStat("Kara", ("perception",), -2)),
    ("init Kara, Trooper 1, Trooper 2", None, RollInitiative(("Kara", "Trooper 1", "Trooper 2"))),
    ("initiative Kara", None, RollInitiative(("Kara",))),
    ("init Kara,, Dax,", None, RollInitiative(("Kara", "Dax"))),
    ("init Kara Venn Trooper 1 Dax", KNOWN, RollInitiative(("Kara Venn", "Trooper 1", "Dax"))),
    ("init Kara Nobody", KNOWN, RollInitiative(("Kara Nobody",))),
    ("shoot Kara -> Trooper 1", None, Attack("shoot", "Kara", "Trooper 1")),
    (
        "shoot Kara -> Trooper 1 head with blaster pistol unaware +2",
        None,
        Attack("shoot", "Kara", "Trooper 1", "blaster pistol", "head", unaware=True, modifier=2),
    ),
    (
        "melee Dax -> Trooper 2 subdue with stun baton",
        None,
        Attack("melee", "Dax", "Trooper 2", "stun baton", subdue=True),
    ),
    (
        "shoot Kara -> Trooper 1 left arm env +1",
        None,
        Attack("shoot", "Kara", "Trooper 1", location="left arm", environment=1),
    ),
    (
        "fire Kara → Trooper 1 cover 2 RIGHT LEG - 1",
        None,
        Attack("shoot", "Kara", "Trooper 1", location="right leg", modifier=-1, environment=2),
    ),
    ("attack Kara=>Trooper 1 env-1", None, Attack("shoot", "Kara", "Trooper 1", environment=-1)),
    ("shoot Kara at Trooper 1 leg", None, Attack("shoot", "Kara", "Trooper 1", location="leg")),
    ("shoot Kara -> Trooper 1 chest", None, Attack("shoot", "Kara", "Trooper 1")),
    (
        "strike Dax -> Kara with fists +1 -3",
        None,
        Attack("melee", "Dax", "Kara", "fists", modifier=-2),
    ),
    ("hit Dax -> Right Hand Man", None, Attack("melee", "Dax", "Right Hand Man")),
    (
        "shoot Kara -> Leg Breaker head",
        KNOWN,
        Attack("shoot", "Kara", "Leg Breaker", location="head"),
    ),
    ("cast Kara Telekinesis", None, Cast("Kara", "Telekinesis")),
    ("cast Kara Venn Mind Trick +1", KNOWN, Cast("Kara Venn", "Mind Trick", 1)),
    ("cast Kara Venn Mind Trick", None, Cast("Kara", "Venn Mind Trick")),
    ("CAST  Kara   Mind\nTrick", None, Cast("Kara", "Mind Trick")),
]


@pytest.mark.parametrize(("text", "context", "expected"), PARSED, ids=[case[0] for case in PARSED])
def test_parse_tag(text: str, context: ParseContext | None, expected: object) -> None:
    """Every verb form parses to its request, keeping the player's spelling of names."""
    assert expected == parse_tag(text, context or ParseContext())


OPTIONS = (
    "After the target write any of: head, arm, leg, left/right arm or leg, unaware, subdue, "
    "with <weapon>, env N or cover N, +N or -N."
)
# What an unknown verb's refusal lists: every verb of a stepped campaign once, in help order
# (test_an_unknown_verb_lists_every_verb checks what that order is).
LISTED = ", ".join(dict.fromkeys(verb.name for verb in VERBS.values()))
SMALL = ParseContext(limits=Limits(max_name_chars=10, max_names_per_tag=2, max_modifier=5))

REFUSED = [
    ("", None, "This tag is empty. Start it with a verb.", "roll"),
    (
        "sht Kara -> Trooper 1",
        None,
        f"'sht' is not a roll verb. Verbs: {LISTED}. Did you mean shoot?",
        None,  # the usage is the tag corrected: tests/test_suggest.py
    ),
    (
        "xyzzy",
        None,
        f"'xyzzy' is not a roll verb. Verbs: {LISTED}. [[help]] lists them with their forms.",
        None,  # no verb's form: none is what the player meant
    ),
    ("roll", None, "Say what to roll: dice like 2d6+3, or a character and a stat.", "roll"),
    (
        "roll Kara",
        None,
        "Name a character and a stat to roll, like 'Kara agility', not just 'Kara'.",
        "roll",
    ),
    (
        "roll Kara agility+",
        None,
        "Join stats with +, like agility+perception. Stats: strength, agility, endurance, "
        "perception.",
        "roll",
    ),
    ("roll 2d0", None, "'2d0' has no faces; a die has 1 to 1,000 sides.", None),
    ("roll Kara agility +6", SMALL, "'+6' is more than the ±5 a modifier may be.", "roll"),
    (
        "roll Kara agility +3 +3",
        SMALL,
        "The modifiers add up to +6, beyond the ±5 a modifier may be.",
        "roll",
    ),
    (
        "roll Kara agility +99999999999",
        None,
        "'+99999999999' is more than the ±100 a modifier may be.",
        "roll",
    ),
    ("init", None, "Name who rolls initiative, separated by commas.", "init"),
    ("init , ,", None, "Name who rolls initiative, separated by commas.", "init"),
    (
        "init a, b, c",
        SMALL,
        "This tag names 3 combatants; one tag may name at most 2. Split them over several tags.",
        "init",
    ),
    (
        "init Kara, Commander Longname",
        SMALL,
        "The combatant's name 'Commander Longname' is 18 characters long; names may be at most 10.",
        "init",
    ),
    (
        "shoot Kara Trooper 1",
        None,
        "Put -> between the attacker and the target: shoot <attacker> -> <target>.",
        "shoot",
    ),
    ("shoot -> Trooper 1", None, "Name the attacker.", "shoot"),
    ("shoot Kara ->", None, "Name the target.", "shoot"),
    ("shoot Kara -> head", None, "Name the target.", "shoot"),
    ("melee Dax -> Kara with", None, "Name the weapon.", "melee"),
    (
        "shoot Kara -> Trooper 1 head leg",
        None,
        "Name one hit location, not both head and leg.",
        "shoot",
    ),
    (
        "shoot Kara -> Trooper 1 with a with b",
        None,
        "Name one weapon, after a single 'with'.",
        "shoot",
    ),
    (
        "shoot Kara -> Trooper 1 head quickly",
        None,
        f"'quickly' is not an attack option. {OPTIONS}",
        "shoot",
    ),
    ("shoot Kara -> Trooper 1 env", None, "Give a number after 'env', like 'env +1'.", "shoot"),
    (
        "shoot Kara -> Trooper 1 cover x",
        None,
        "Give a number after 'cover', like 'cover +1'.",
        "shoot",
    ),
    ("shoot Kara -> Trooper 1 env 9", SMALL, "'9' is more than the ±5 a modifier may be.", "shoot"),
    (
        "shoot Kara -> Trooper 1 +3 +3",
        SMALL,
        "The modifiers add up to +6, beyond the ±5 a modifier may be.",
        "shoot",
    ),
    (
        "shoot Kara -> Trooper 1 env 3 cover 3",
        SMALL,
        "The environment modifiers add up to +6, beyond the ±5 a modifier may be.",
        "shoot",
    ),
    (
        "shoot Commander Longname -> Kara",
        SMALL,
        "The attacker's name 'Commander Longname' is 18 characters long; names may be at most 10.",
        "shoot",
    ),
    ("cast Kara", None, "Name the caster and then the technique.", "cast"),
    ("cast", None, "Name the caster and then the technique.", "cast"),
    (
        "cast Kara Extremely Long Technique",
        SMALL,
        "The technique's name 'Extremely Long Technique' is 24 characters long; names may be "
        "at most 10.",
        "cast",
    ),
]


@pytest.mark.parametrize(
    ("text", "context", "message", "verb"), REFUSED, ids=[case[0] or "empty" for case in REFUSED]
)
def test_parse_refusals(
    text: str, context: ParseContext | None, message: str, verb: str | None
) -> None:
    """Each malformed tag is refused with a message for the player and the verb's right form."""
    with pytest.raises(TagError) as caught:
        parse_tag(text, context or ParseContext())
    usage = caught.value.usage if verb is None else USAGE[verb]
    assert (message, usage) == (caught.value.message, caught.value.usage)


def test_an_unknown_verb_lists_every_verb() -> None:
    """An unknown verb's refusal names every verb once: roll, stepped's own, the core's, help."""
    with pytest.raises(TagError) as caught:
        parse_tag("xyzzy")
    listed = caught.value.message.split("Verbs: ", 1)[1].split(".", 1)[0].split(", ")
    own = [verb.name for verb in SYSTEM.verbs]
    assert (sorted(every_verb(SYSTEM)), own, "help") == (
        sorted(listed),
        listed[: len(own)],
        listed[-1],
    )


words = st.sampled_from(
    [
        "roll",
        "r",
        "init",
        "shoot",
        "melee",
        "cast",
        "fire",
        "Kara",
        "Trooper",
        "1",
        "->",
        "at",
        "with",
        "head",
        "left",
        "arm",
        "env",
        "cover",
        "+2",
        "-1",
        "+",
        "2d6",
        "d%",
        "kh3",
        ",",
        "unaware",
        "subdue",
        "agility+per",
        "99999999",
        "−",
        "→",
        "[[",
        "`",
    ]
)


@settings(max_examples=500)
@given(st.lists(words, max_size=12).map(" ".join) | st.text(max_size=80))
def test_parse_tag_raises_only_tag_errors(text: str) -> None:
    """For any text, parse_tag returns a request or raises TagError, nothing else."""
    try:
        request = parse_tag(text, ParseContext(frozenset({"kara", "trooper 1"})))
    except TagError as error:
        assert isinstance(error.message, str) and isinstance(error.usage, str)
    else:
        # Any text may spell a verb ("STAT 0 0", "APPLY"): whatever it read is a request
        # value of referee's own, never None or a raw string.
        assert (True, True) == (
            is_dataclass(request),
            type(request).__module__.startswith("referee."),
        )


# ---------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize("digit", ["³", "²", "①", "٣", "߃", "০"])
def test_a_heal_count_in_look_alike_digits_is_a_clear_problem(digit: str) -> None:
    """[[heal Kara ³]] says to write the count in 0-9 instead of raising ValueError."""
    with pytest.raises(TagError) as caught:
        parse_tag(f"heal Kara {digit}", KNOWN)
    assert f"Write how many wounds to heal with the digits 0-9, not '{digit}'." == (
        caught.value.message
    )


def test_a_huge_heal_count_says_the_allowed_range() -> None:
    """A count past the limit is refused with the range it must be in."""
    with pytest.raises(TagError) as caught:
        parse_tag("heal Kara 99999999999999999999", KNOWN)
    assert caught.value.message.startswith(
        "The number of wounds must be a whole number from 1 to 99"
    )


@pytest.mark.parametrize(
    "text",
    [
        "npc \u200b\u200b: str 2, agi 2, end 2, per 2",
        "npc \u202e\u2066 as trooper",
        "init Kara, \u200d",
        "shoot \ufeff -> Trooper 1",
        "approve \u200b with named",
        "wound \u2060 +1",
    ],
)
def test_an_invisible_name_is_refused(text: str) -> None:
    """A name of zero-width or bidi characters only is a problem, never an empty bold name."""
    with pytest.raises(TagError) as caught:
        parse_tag(text, KNOWN)
    assert "name shows nothing but invisible characters" in caught.value.message


@given(tag_texts(VERBS))
def test_parse_tag_raises_only_tag_errors_on_hostile_tags(text: str) -> None:
    """Every verb with hostile arguments (surrogates, look-alike digits, huge numbers):
    parse_tag returns a request whose numbers are bounded, or raises TagError only."""
    limits = KNOWN.limits
    try:
        request = parse_tag(text, KNOWN)
    except TagError as error:
        assert isinstance(error.message, str) and isinstance(error.usage, str)
        return
    for name in ("modifier", "environment", "change"):
        value = getattr(request, name, 0) or 0
        assert abs(value) <= limits.max_modifier
