"""Properties: any declaration resolves or is refused with a user-facing message."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.base.dice import SeededDice
from referee.base.errors import UserError
from referee.systems.trikus.changes import Change, ChangeKind, apply
from referee.systems.trikus.combat import resolve_round, start_fight
from referee.systems.trikus.opposed import resolve_test
from referee.systems.trikus.policy import parse_policy
from referee.systems.trikus.resources import Outcome
from referee.systems.trikus.rulings import Consent, Rulings
from referee.systems.trikus.state import Party

from .conftest import make_character

EXAMPLES = int(os.environ.get("TRIKUS_EXAMPLES", "100"))

WORDS = st.sampled_from(
    [
        "line=1",
        "line=2",
        "line=3",
        "line=0",
        "morale=1",
        "morale=2",
        "morale=9",
        "empower",
        "opt-out",
        "light=1",
        "light=2",
        "escape=1,8",
        "escape=(2,5)",
        "escape=0,11",
        "escape=1",
        "negotiate=8",
        "negotiate=11",
        "on_success=keep",
        "on_success=cancel:Z",
        "on_success=cancel:Nobody",
        "attack",
        "defend:P",
        "defend:Q",
        "lose=line",
        "lose=ally",
        "use=Saber",
        "use=Rope",
        "bogus",
        "morale=",
        "line=x",
        "=",
        "defend:",
        "[[",
        "ż",
    ]
)
DECLARATION = st.lists(WORDS | st.text(max_size=8), max_size=5).map(" ".join)
RULINGS = st.sampled_from(
    [
        Rulings(),
        Rulings(negotiation_consent=Consent.ALWAYS),
        Rulings.from_mapping(
            {
                "negotiation_consent": "never",
                "loss_order": "owner",
                "helpful_die": "round",
                "refresh_timing": "on_strike",
                "dead_tie": "none",
                "combat_penalty": "out",
            }
        ),
    ]
)


def _party(morale: int, light: int, struck: bool) -> Party:
    party = Party(
        (
            make_character("P", "beginner", allies=("droid",)),
            make_character("Z", "advanced"),
            make_character("M", "master"),
        )
    )
    changes = [Change(ChangeKind.MORALE_GAINED, n, morale) for n in "PZM" if morale]
    changes += [Change(ChangeKind.LIGHT_GRANTED, n, light) for n in "PZM" if light]
    if struck:
        changes.append(Change(ChangeKind.STRIKE_LINE, "M", 0))
    return apply(party, changes)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    texts=st.lists(DECLARATION, min_size=1, max_size=3),
    names=st.permutations("PZM"),
    gm=st.integers(-1, 6),
    morale=st.integers(0, 2),
    light=st.integers(0, 2),
    struck=st.booleans(),
    fight=st.booleans(),
    rulings=RULINGS,
    seed=st.integers(0, 10**6),
)
def test_any_declaration_resolves_or_is_refused(
    texts, names, gm, morale, light, struck, fight, rulings, seed
) -> None:
    """Parse, check and resolve: a result within its bounds, or a UserError, never a crash."""
    party = _party(morale, light, struck)
    dice = SeededDice(seed)
    try:
        declared = [(name, parse_policy(text)) for name, text in zip(names, texts, strict=False)]
        if fight:
            fight_dice = max(gm, 1)
            result = resolve_round(
                party, start_fight(fight_dice), declared, dice, rulings, with_odds=False
            )
            assert result.pending or 0 <= result.fight.gm_dice <= fight_dice
        else:
            result = resolve_test(
                party, gm, declared, dice, rulings, with_odds=False, gm_negotiate=seed % 12 or None
            )
        if result.pending is None:
            assert len(declared) == len(result.participants)
            after = apply(party, result.changes)
            assert all(c.morale >= 0 and c.light >= 0 for c in after.characters)
            for p in result.participants:
                assert p.outcome in Outcome
    except UserError as refusal:
        assert refusal.message
