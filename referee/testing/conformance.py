"""The system conformance kit: one call that any dice system, built-in or third-party, runs.

In a system's tests (``tmp_path`` is pytest's)::

    from referee.testing.conformance import check_system
    from my_package.system import SYSTEM

    def test_my_system_conforms(tmp_path):
        check_system(SYSTEM, tmp_path)

:func:`check_system` raises ``AssertionError`` listing every problem it found (or
returns the :class:`Conformance` it measured). It checks, against the
:class:`~referee.system.System` interface:

* **identity**: a name, a version, a one-line description and the seed it implements;
* **verbs**: each has a form, a one-line help and an example; the example parses to
  that verb and resolves (as the GM, with seeded dice) in the system's example
  campaign; a GM-only verb is refused to a player, saying so;
* **who may set what**: every option a verb declares GM-only
  (:class:`~referee.system.GmOption`) is tried, with its example, by the character's
  owner and by a stranger, who are refused by the core with the option's reason (and the
  GM's tag resolves); every roll a player's example makes (a resolution with odds) is
  posted again with a bonus he wrote himself (``+5`` after it) and must be refused or not
  read, since a bonus is a circumstance the GM decides; every verb whose example names a
  player's character is posted by a stranger, and with those characters swapped for the
  GM's NPCs by the player, and must be refused with a reason;
* **state within the rules**: a seeded random sequence of ``plays`` posts (every verb's
  and GM-only option's example, by the GM or the player, the characters swapped about,
  with ``[[void]]``, ``[[revive]]``, ``[[end encounter]]`` and restarts) leaves the
  store within the system's :meth:`~referee.system.System.invariants` after every one
  (:mod:`referee.testing.random_play`);
* **odds**: every :class:`~referee.system.OddsCase` sums to exactly 1, and ``rolls``
  seeded samples (100,000 by default) land on its outcomes as often as it says
  (chi-square p-value above ``alpha``; an outcome it calls impossible fails at once);
* **rulings**: every ruling has a default, ``[rulings]`` empty gives the defaults,
  and an unknown key is refused with a ``ConfigError`` naming the known rulings;
* **hostile tags**: every verb followed by junk (nothing, symbols, invisible
  characters, huge numbers, unknown names, a wall of text), and every verb's example
  with each of its words in turn replaced by a hostile one (look-alike digits, a huge
  or negative number, a decimal, invisible marks, a wall of text), yields a reply or
  a problem for the player (a ``UserError``), never a traceback.

Needs scipy (the ``test`` extra), like :mod:`referee.testing.odds`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from referee.base.dice import SeededDice
from referee.base.errors import ConfigError, Forbidden, UserError
from referee.pipeline.campaign import Campaign
from referee.read.tags import read_tag
from referee.resolve.dispatch import verbs_for
from referee.system import ParseContext, System, Verb, rulings_defaults
from referee.testing.campaign import example_campaign
from referee.testing.odds import chi_square_p
from referee.testing.random_play import play_at_random
from referee.testing.resolving import resolve_tag, tag_context

# What follows a verb in the hostile-tag check: each must give a problem, never a crash.
HOSTILE_TAILS = (
    "",
    "???",
    "-> ->",
    "Nobody At All",
    "Nobody -> Nobody",
    "99999999999999999999",
    "-99999999999999999999",
    "d0",
    "\u200b\u200b",
    "\u202e\u2066 -> \ufeff",
    "³ ① ٣",
    "x" * 3000,
    ", , , ,",
    ": : :",
    "with with with",
    "+ + +",
)


# What replaces each word of a verb's example in turn (a name, a number, a keyword):
# values a parser meets only in its slots, such as digits int() refuses after a good name.
HOSTILE_WORDS = (
    "³",
    "①",
    "٣",
    "99999999999999999999",
    "-1",
    "0",
    "1.5",
    "\u200b",
    "\u202e",
    "->",
    ",",
    "=",
    "x" * 300,
)


@dataclass
class Conformance:
    """What the kit measured; ``problems`` is empty when the system conforms."""

    system: str
    problems: list[str] = field(default_factory=list)
    p_values: dict[str, float] = field(default_factory=dict)  # odds case -> chi-square p
    examples: dict[str, str] = field(default_factory=dict)  # verb -> the verdict kind


def check_system(
    system: System,
    folder: Path,
    *,
    rolls: int = 100_000,
    alpha: float = 1e-4,
    seed: int = 2024,
    plays: int = 200,
) -> Conformance:
    """Run every check on ``system`` in a throw-away campaign under ``folder``.

    Raises AssertionError listing every problem; returns the measurements otherwise.
    ``alpha`` is the chi-square threshold: with a fixed ``seed`` the test is
    deterministic, and 1e-4 keeps a correct system from failing by bad luck.
    """
    report = Conformance(getattr(system, "name", "?"))
    _identity(system, report)
    _rulings(system, report)
    _verbs(system, folder, report, seed)
    _gm_options(system, folder / "gm-options", report, seed)
    _players_bonus(system, folder / "bonus", report, seed)
    _others_characters(system, folder / "others", report, seed)
    _mutated_examples(system, folder / "mutated", report, seed)
    report.problems += play_at_random(system, folder / "play", steps=plays, seed=seed)
    _odds(system, report, rolls, alpha, seed)
    if report.problems:
        raise AssertionError(
            f"The system {report.system!r} does not conform:\n- " + "\n- ".join(report.problems)
        )
    return report


def _identity(system: System, report: Conformance) -> None:
    for member in ("name", "version", "description", "seed"):
        value = getattr(system, member, None)
        if not isinstance(value, str) or not value.strip():
            report.problems.append(f"{member} must be a non-empty string, not {value!r}.")
    members = [*System.__annotations__, *(m for m in vars(System) if not m.startswith("_"))]
    missing = sorted({member for member in members if not hasattr(system, member)})
    if missing:
        report.problems.append(f"it lacks members of referee.system.System: {missing}.")


def _rulings(system: System, report: Conformance) -> None:
    try:
        defaults = rulings_defaults(system.rulings_type)
    except TypeError as error:
        report.problems.append(f"rulings: {error}.")
        return
    try:
        if system.read_rulings({}) != system.rulings_type(**defaults):
            report.problems.append("rulings: an empty [rulings] does not give the defaults.")
    except ConfigError as error:
        report.problems.append(f"rulings: an empty [rulings] is refused: {error.message}")
    try:
        system.read_rulings({"no_such_ruling_xyz": 1})
    except ConfigError as error:
        if defaults and not any(name in error.message for name in defaults):
            report.problems.append(
                f"rulings: the refusal of an unknown key names no known ruling: {error.message}"
            )
    else:
        report.problems.append("rulings: an unknown key in [rulings] is accepted.")


STRANGER = "someone_else"  # a player who owns no character of the example campaign
UNDERSTUDY = "Understudy"  # a second NPC the kit adds, a copy of the example's first


def _example_campaign(system: System, folder: Path, understudy: bool = False) -> Campaign:
    return example_campaign(system, folder, UNDERSTUDY if understudy else "")


def _verbs(system: System, folder: Path, report: Conformance, seed: int) -> None:
    example = system.example_campaign()
    campaign = _example_campaign(system, folder)
    try:
        table = verbs_for(system)
        for verb in system.verbs:
            for member in ("form", "help", "example"):
                if not getattr(verb, member, "").strip():
                    report.problems.append(f"verb {verb.name}: no {member}.")
            found, _ = _parse(verb.example, table)
            if found is None or found.name != verb.name:
                report.problems.append(
                    f"verb {verb.name}: its example [[{verb.example}]] is not read as {verb.name}."
                )
                continue
            try:
                resolution = resolve_tag(
                    tag_context(campaign, example.gm), verb.example, SeededDice(seed)
                )
                report.examples[verb.name] = resolution.kind
            except UserError as error:
                report.problems.append(
                    f"verb {verb.name}: its example [[{verb.example}]] does not resolve: "
                    f"{error.message}"
                )
            except Exception as error:  # a crash is exactly what the kit reports
                report.problems.append(
                    f"verb {verb.name}: its example [[{verb.example}]] raised "
                    f"{type(error).__name__}: {error}"
                )
            if verb.gm_only:
                _gm_only(verb.name, verb.example, campaign, example.player, seed, report)
            _hostile(verb.name, campaign, example.gm, seed, report)
    finally:
        campaign.close()


def _parse(text: str, table: Mapping[str, Verb]) -> tuple[Verb | None, Any]:
    try:
        return read_tag(text, ParseContext(), table)
    except UserError:
        return None, None


def _gm_only(
    name: str, example: str, campaign: Campaign, player: str, seed: int, report: Conformance
) -> None:
    try:
        resolve_tag(tag_context(campaign, player), example, SeededDice(seed))
    except Forbidden as error:
        if "GM" not in error.message:
            report.problems.append(f"verb {name}: a player's refusal does not say a GM may.")
        return
    except UserError:
        return  # refused for another reason (the player's view of names): still refused
    report.problems.append(f"verb {name} is GM-only, but a player's [[{example}]] resolved.")


_POSTS = iter(range(1, 10**9))  # each tag the kit posts is a post of its own


def _post(campaign: Campaign, author: str, text: str, seed: int) -> Any:
    """Resolve ``text`` as a post of its own by ``author``: the resolution, or the UserError."""
    context = tag_context(campaign, author, post=f"t1_kit{next(_POSTS)}")
    try:
        return resolve_tag(context, text, SeededDice(seed))
    except UserError as error:
        return error


def _said(outcome: Any) -> str:
    if isinstance(outcome, UserError):
        return f"{type(outcome).__name__}: {outcome.message}"
    return f"it resolved ({getattr(outcome, 'kind', outcome)})."


def _gm_options(system: System, folder: Path, report: Conformance, seed: int) -> None:
    """Each GM-only option, by its example: refused to the owner and to a stranger by the
    core with the option's own reason, resolved for the GM (after the option's set-up)."""
    example = system.example_campaign()
    table = verbs_for(system)
    for verb in system.verbs:
        for number, option in enumerate(verb.gm_options):
            said = f"verb {verb.name}: the GM-only option {option.name!r}"
            found, request = _parse(option.example, table)
            if found is None or found.name != verb.name or not option.sets(request):
                report.problems.append(f"{said}: its example [[{option.example}]] does not set it.")
                continue
            campaign = _example_campaign(system, folder / f"{verb.name}-{number}")
            try:
                for tag in option.setup:
                    done = _post(campaign, example.gm, tag, seed)
                    if isinstance(done, UserError):
                        report.problems.append(f"{said}: its set-up [[{tag}]]: {_said(done)}")
                for who in (example.player, STRANGER):
                    refused = _post(campaign, who, option.example, seed)
                    if not isinstance(refused, Forbidden):
                        report.problems.append(
                            f"{said}: u/{who}'s [[{option.example}]] was not refused as "
                            f"GM-only: {_said(refused)}"
                        )
                    elif not refused.message.startswith(f"Only a GM may {option.why}"):
                        report.problems.append(
                            f"{said}: u/{who}'s [[{option.example}]] was refused for another "
                            f"reason first: {refused.message}"
                        )
                resolved = _post(campaign, example.gm, option.example, seed)
                if isinstance(resolved, UserError):
                    report.problems.append(
                        f"{said}: the GM's [[{option.example}]] does not resolve: "
                        f"{resolved.message}"
                    )
            except Exception as error:  # a crash is exactly what the kit reports
                report.problems.append(f"{said} raised {type(error).__name__}: {error}")
            finally:
                campaign.close()


BONUS = " +5"  # what a player writes after his roll to help himself


def _players_bonus(system: System, folder: Path, report: Conformance, seed: int) -> None:
    """Each roll the player's example makes (it resolves for him, with odds), written with
    a bonus of his own after it: refused or not read, never rolled (each post in a fresh
    campaign, so the first roll's effects refuse nothing)."""
    example = system.example_campaign()
    for number, verb in enumerate(system.verbs):
        if verb.gm_only:
            continue
        said = f"verb {verb.name}: u/{example.player}'s [[{verb.example}{BONUS}]]"
        try:
            plain = _post_once(system, folder / f"{number}", example.player, verb.example, seed)
            if isinstance(plain, UserError) or getattr(plain, "chance", None) is None:
                continue  # not a roll this player makes
            text = verb.example + BONUS
            helped = _post_once(system, folder / f"{number}-bonus", example.player, text, seed)
        except Exception as error:  # a crash is exactly what the kit reports
            report.problems.append(f"{said} raised {type(error).__name__}: {error}")
            continue
        if not isinstance(helped, UserError):
            report.problems.append(
                f"{said} resolved ({getattr(helped, 'kind', helped)}): a player gave his own "
                "roll a bonus; declare it a GmOption of the verb."
            )


def _post_once(system: System, folder: Path, author: str, text: str, seed: int) -> Any:
    """``text`` posted by ``author`` in a fresh example campaign (see :func:`_post`)."""
    campaign = _example_campaign(system, folder)
    try:
        return _post(campaign, author, text, seed)
    finally:
        campaign.close()


def _spellings(name: str) -> tuple[str, ...]:
    """How an example may write a character: the whole name, or its first word."""
    return tuple(dict.fromkeys((name, name.split()[0])))


def _whole(spelling: str) -> str:
    return rf"(?<!\w){re.escape(spelling)}(?!\w)"


def _naming(text: str, name: str) -> str | None:
    """The spelling of ``name`` that ``text`` holds as whole words, if any."""
    for spelling in _spellings(name):
        if re.search(_whole(spelling), text, re.I):
            return spelling
    return None


def _others_characters(system: System, folder: Path, report: Conformance, seed: int) -> None:
    """Each verb whose example names a player's character: a stranger's copy is refused
    (the character is not his), and so is the player's with the GM's NPCs in their place."""
    example = system.example_campaign()
    sheets = example.records.get("characters", ())
    players = [str(s["name"]) for s in sheets if s.get("kind", "pc") == "pc"]
    npcs = [str(s["name"]) for s in sheets if s.get("kind", "pc") != "pc"]
    npcs += [UNDERSTUDY] if npcs else []
    campaign = _example_campaign(system, folder, understudy=True)
    try:
        for verb in system.verbs:
            if verb.gm_only:
                continue
            named = {name: spelled for name in players if (spelled := _naming(verb.example, name))}
            if not named:
                continue
            refused = _post(campaign, STRANGER, verb.example, seed)
            if not isinstance(refused, Forbidden) or not refused.message:
                report.problems.append(
                    f"verb {verb.name}: a stranger's [[{verb.example}]] (another's character) "
                    f"was not refused: {_said(refused)}"
                )
            free = [npc for npc in npcs if _naming(verb.example, npc) is None]
            if len(free) < len(named):
                continue
            text = verb.example
            for spelled, npc in zip(named.values(), free, strict=False):
                text = re.sub(_whole(spelled), npc, text, count=1, flags=re.I)
            refused = _post(campaign, example.player, text, seed)
            if not isinstance(refused, Forbidden) or not refused.message:
                report.problems.append(
                    f"verb {verb.name}: the player's [[{text}]] (the GM's NPC) was not "
                    f"refused: {_said(refused)}"
                )
    except Exception as error:  # a crash is exactly what the kit reports
        report.problems.append(f"who acts for whom raised {type(error).__name__}: {error}")
    finally:
        campaign.close()


def _hostile(name: str, campaign: Campaign, gm: str, seed: int, report: Conformance) -> None:
    for tail in HOSTILE_TAILS:
        text = f"{name} {tail}".strip()
        try:
            resolve_tag(tag_context(campaign, gm), text, SeededDice(seed))
        except UserError:
            continue
        except Exception as error:  # the kit's whole point: no traceback for a bad tag
            report.problems.append(
                f"verb {name}: [[{text[:60]}]] raised {type(error).__name__}: {error}"
            )


def _mutated_examples(system: System, folder: Path, report: Conformance, seed: int) -> None:
    """Each verb's example with one word at a time made hostile, as its GM and its player.

    The verb's own words stay, so the hostile word reaches the slot it replaces (a name,
    a count, a keyword) behind valid words, where a parser is least on its guard.
    """
    example = system.example_campaign()
    campaign = _example_campaign(system, folder)
    try:
        for verb in system.verbs:
            words = verb.example.split()
            first = len(verb.name.split())
            for place in range(first, len(words) + 1):
                for hostile in HOSTILE_WORDS:
                    mutated = [*words[:place], hostile, *words[place + 1 :]]
                    text = " ".join(mutated)
                    for author in (example.gm, example.player):
                        try:
                            resolve_tag(tag_context(campaign, author), text, SeededDice(seed))
                        except UserError:
                            continue
                        except Exception as error:  # no traceback for a bad tag
                            report.problems.append(
                                f"verb {verb.name}: [[{text[:60]}]] raised "
                                f"{type(error).__name__}: {error}"
                            )
    finally:
        campaign.close()


def _odds(system: System, report: Conformance, rolls: int, alpha: float, seed: int) -> None:
    cases = list(system.odds_cases())
    if not cases:
        report.problems.append("odds: the system declares no odds cases.")
    for number, case in enumerate(cases):
        total = sum(case.distribution.values(), Fraction(0))
        if total != 1:
            report.problems.append(f"odds {case.name}: the chances sum to {total}, not 1.")
            continue
        dice = SeededDice(f"{seed}:{number}")
        observed = Counter(case.sample(dice) for _ in range(rolls))
        impossible = set(observed) - set(case.distribution)
        if impossible:
            shown = ", ".join(map(repr, sorted(impossible, key=repr)[:5]))
            report.problems.append(
                f"odds {case.name}: outcomes it calls impossible came up: {shown}."
            )
            continue
        p = chi_square_p(observed, case.distribution, rolls)
        report.p_values[case.name] = p
        if p < alpha:
            report.problems.append(
                f"odds {case.name}: {rolls:,} rolls do not match the exact chances (p = {p:.2g})."
            )
