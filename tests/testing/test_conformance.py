"""Tests for referee.testing.conformance: the kit finds what a careless system gets wrong."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.base.errors import Forbidden
from referee.resolve import dispatch as resolve
from referee.system import GmOption, load_system
from referee.testing import make_campaign, resolve_tag, sheet, tag_context
from referee.testing.conformance import (
    Conformance,
    _gm_options,
    _mutated_examples,
    _others_characters,
    _players_bonus,
)


@pytest.fixture(autouse=True)
def _fresh_verb_tables() -> Any:
    """A test that changes a system's verbs leaves no verb table built from them."""
    yield
    resolve.verbs_for.cache_clear()


def test_a_look_alike_digit_behind_a_good_name_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """[[heal Kara ³]] crashing is found by putting hostile words in the example's slots."""
    stepped = load_system("stepped")
    heal = next(verb for verb in stepped.verbs if verb.name == "heal")

    def careless(rest: str, context: Any) -> Any:
        words = rest.split()
        if len(words) > 1 and words[-1].isdigit():  # "³".isdigit() is True...
            int(words[-1])  # ...and int("³") raises
        return heal.parse(rest, context)

    verbs = tuple(replace(v, parse=careless) if v is heal else v for v in stepped.verbs)
    monkeypatch.setattr(stepped, "verbs", verbs)
    resolve.verbs_for.cache_clear()  # the verb table is built anew from them
    report = Conformance("stepped")
    _mutated_examples(stepped, tmp_path, report, seed=1)
    reported = {problem.split(" raised ")[0] for problem in report.problems}
    assert {"verb heal: [[heal Kara ³]]", "verb heal: [[heal Kara ①]]"} == reported


def test_a_careful_system_has_nothing_reported(tmp_path: Path) -> None:
    report = Conformance("stepped")
    _mutated_examples(load_system("stepped"), tmp_path, report, seed=1)
    assert [] == report.problems


def _with_verb(monkeypatch: pytest.MonkeyPatch, system: Any, name: str, **changes: Any) -> None:
    """``system``'s verb ``name`` changed by ``changes``, its verb table built anew."""
    verbs = tuple(replace(v, **changes) if v.name == name else v for v in system.verbs)
    monkeypatch.setattr(system, "verbs", verbs)
    resolve.verbs_for.cache_clear()


def _bonus(request: Any) -> bool:
    return getattr(request, "modifier", 0) > 0


def test_the_core_refuses_a_gm_option_before_the_resolver_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player's tag setting a GM-only option never reaches the verb's resolver."""
    stepped = load_system("stepped")
    called: list[str] = []
    roll = next(verb for verb in stepped.verbs if verb.name == "roll")

    def resolver(request: Any, context: Any, dice: Any) -> Any:
        called.append(context.post.author)
        return roll.resolve(request, context, dice)

    bonus = GmOption("+N", _bonus, "add to a roll", "Roll without +N.", "roll Kara agility +2")
    _with_verb(monkeypatch, stepped, "roll", resolve=resolver, gm_options=(bonus,))
    campaign = make_campaign(tmp_path, [sheet("Kara Venn", owner="kara")])
    try:
        with pytest.raises(Forbidden) as refused:
            resolve_tag(tag_context(campaign, "kara"), "roll Kara agility +2", [3])
        resolve_tag(tag_context(campaign, "kara"), "roll Kara agility -1", [3, 2])
        resolve_tag(tag_context(campaign, "gm"), "roll Kara agility +2", [3, 2])
    finally:
        campaign.close()
    assert ("Only a GM may add to a roll. Roll without +N.", ["kara", "gm"]) == (
        refused.value.message,
        called,
    )


def test_a_gm_option_a_player_may_set_after_all_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An option declared GM-only that a player's tag still sets is found, for each poster."""
    stepped = load_system("stepped")
    never = GmOption(
        "+N",
        _bonus,
        "add to a roll",
        "Roll without +N.",
        "roll Kara agility +2",
        applies=lambda request, context: False,
    )
    _with_verb(monkeypatch, stepped, "roll", gm_options=(never,))
    report = Conformance("stepped")
    _gm_options(stepped, tmp_path, report, seed=1)
    assert [
        "verb roll: the GM-only option '+N': u/player's [[roll Kara agility +2]] was not "
        "refused as GM-only: it resolved (stat).",
        "verb roll: the GM-only option '+N': u/someone_else's [[roll Kara agility +2]] was "
        "refused for another reason first: Kara Venn belongs to u/player; only they or a GM "
        "may roll for it.",
    ] == report.problems


def test_an_option_whose_example_does_not_set_it_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GM-only option tried with an example that does not set it proves nothing: reported."""
    stepped = load_system("stepped")
    wrong = GmOption("+N", _bonus, "add to a roll", "Roll without +N.", "roll Kara agility -2")
    _with_verb(monkeypatch, stepped, "roll", gm_options=(wrong,))
    report = Conformance("stepped")
    _gm_options(stepped, tmp_path, report, seed=1)
    assert [
        "verb roll: the GM-only option '+N': its example [[roll Kara agility -2]] does not set it."
    ] == report.problems


def test_a_verb_acting_for_anyone_s_character_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verb whose resolver forgot the owner check is found by a stranger's example and by
    the player's example in the GM's NPC's name."""
    stepped = load_system("stepped")
    cast = next(verb for verb in stepped.verbs if verb.name == "cast")

    def careless(request: Any, context: Any, dice: Any) -> Any:
        context.gms = frozenset({context.post.author.casefold()})  # everyone a GM here
        return cast.resolve(request, context, dice)

    _with_verb(monkeypatch, stepped, "cast", resolve=careless)
    report = Conformance("stepped")
    _others_characters(stepped, tmp_path, report, seed=1)
    assert [
        "verb cast: a stranger's [[cast Kara Telekinesis]] (another's character) was not "
        "refused: it resolved (cast).",
        "verb cast: the player's [[cast Trooper 1 Telekinesis]] (the GM's NPC) was not "
        "refused: UnknownName: Trooper 1 knows no techniques, so cannot cast 'Telekinesis'.",
    ] == report.problems


# -- every system's GM options tried; a bonus a player gives himself found -----------

# The circumstances only a GM sets, by system: each must be declared (and so tried).
GM_DECIDES = {
    "stepped": {
        ("roll", "+N"),
        ("shoot", "unaware"),
        ("shoot", "env N or cover N"),
        ("shoot", "+N"),
        ("melee", "unaware"),
        ("melee", "env N or cover N"),
        ("melee", "+N"),
        ("cast", "+N"),
        ("stat", "+N"),
    },
    "edge": {("roll", "+N"), ("move", "+N")},
    "pool": {("roll", "diff N"), ("roll", "diff N (where none is set)"), ("roll", "+N dice")},
    "hits": {("roll", "adv N"), ("roll", "a number of dice")},
    "trikus": {("test", "vs N")},
}


@pytest.mark.parametrize("name", sorted(GM_DECIDES))
def test_the_kit_tries_every_gm_option_of_every_system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Each system declares the circumstances a GM sets, and the kit tries each: with
    every declaration made to let players through, each is reported for the player."""
    system = load_system(name)
    declared = {(verb.name, option.name) for verb in system.verbs for option in verb.gm_options}
    verbs = tuple(
        replace(
            verb,
            gm_options=tuple(
                replace(option, applies=lambda request, context: False)
                for option in verb.gm_options
            ),
        )
        for verb in system.verbs
    )
    monkeypatch.setattr(system, "verbs", verbs)
    resolve.verbs_for.cache_clear()  # the verb table is built anew from the patched verbs
    report = Conformance(name)
    _gm_options(system, tmp_path, report, seed=1)
    reported = {
        (problem.split(":")[0].removeprefix("verb "), problem.split("'")[1])
        for problem in report.problems
        if "u/player's" in problem  # not refused as GM-only, or for another reason first
    }
    assert (set(), declared) == (GM_DECIDES[name] - declared, reported)


def test_a_bonus_a_player_gives_his_own_roll_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A system that forgot to declare +N GM-only: the player's example with +5 after it
    resolves, and the kit says so, for each roll verb."""
    stepped = load_system("stepped")
    for name in ("roll", "cast"):
        _with_verb(monkeypatch, stepped, name, gm_options=())
    report = Conformance("stepped")
    _players_bonus(stepped, tmp_path, report, seed=1)
    assert [
        "verb roll: u/player's [[roll Kara agility+perception -1 +5]] resolved (stat): a "
        "player gave his own roll a bonus; declare it a GmOption of the verb.",
        "verb cast: u/player's [[cast Kara Telekinesis +5]] resolved (cast): a player gave "
        "his own roll a bonus; declare it a GmOption of the verb.",
    ] == report.problems


@pytest.mark.parametrize("name", sorted(GM_DECIDES))
def test_no_system_lets_a_player_give_his_roll_a_bonus(tmp_path: Path, name: str) -> None:
    """No built-in system rolls a player's example with +5 written after it."""
    report = Conformance(name)
    _players_bonus(load_system(name), tmp_path, report, seed=1)
    assert [] == report.problems
