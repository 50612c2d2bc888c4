"""A system built on :class:`referee.system.BaseSystem` gives its name, verbs and sheet and
passes the conformance kit: every other member's default works (roster, rows, seeding,
rulings, the example campaign from the sheet's sample), and its result's ledger_facts
is what the ledger keeps."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from referee.pipeline.tag import outcome_summary
from referee.render.roster import RosterRenderer
from referee.system import (
    BaseSystem,
    ConfigError,
    NoRulings,
    OddsCase,
    Resolution,
    System,
    TagError,
    UserError,
    leading_name,
    registry,
    require_control,
    verb,
)
from referee.testing.campaign import make_campaign
from referee.testing.conformance import check_system
from referee.testing.resolving import resolve_tag, tag_context

# --- the guide's example (docs/plugins.md) starts here
LADDER = {n: word for n, word in enumerate(("Mediocre", "Average", "Fair", "Good"))}
LADDER.update({-1: "Poor", -2: "Terrible", 4: "Great", 5: "Superb", 6: "Fantastic"})
USAGE = "[[fate Kara fight]]"


@dataclass(frozen=True)
class FateRoll:
    name: str
    skill: str
    faces: tuple[int, ...]  # four Fate dice: -1, 0 or +1
    rating: int
    total: int

    def ledger_facts(self) -> dict[str, Any]:
        return {"total": self.total}


@dataclass(frozen=True)
class Character:
    name: str
    skills: tuple[tuple[str, int], ...]
    kind: str = "pc"


class FateSheet:
    form = "Write `name: <name>` and `skills: fight 2, notice 1` (ratings 0 to 4)."
    sample = "name: Kara\nskills: fight 2, notice 1"

    def parse(self, text: str, limits: Any, kind: str = "pc") -> dict[str, Any]:
        lines = dict(line.partition(":")[::2] for line in text.splitlines()[:20])
        name, skills = lines.get("name", "").strip(), lines.get("skills", "")
        pairs = [item.split() for item in skills.casefold().split(",")[:20]]
        if not name or not all(len(p) == 2 and re.fullmatch("[0-4]", p[1]) for p in pairs):
            raise UserError(self.form)
        return {"name": name[:40], "kind": kind, "skills": {s: int(r) for s, r in pairs}}

    def from_record(self, record: dict[str, Any]) -> Character:
        skills = tuple(dict(record["skills"]).items())
        return Character(record["name"], skills, record.get("kind", "pc"))

    def to_record(self, character: Character) -> dict[str, Any]:
        return {"name": character.name, "kind": character.kind, "skills": dict(character.skills)}

    def validate(self, character: Character, rules: Any) -> list[str]:
        return []

    def amend(self, character: Any, amendment: str) -> tuple[Any, str]:
        raise UserError("A Fate sheet takes no amendments: ask the player to [[revise]] it.")


def parse_fate(rest: str, context: Any) -> tuple[str, str]:
    name, words = leading_name(rest.split(), context, USAGE)
    if len(words) != 1:
        raise TagError("Name the character, then one skill.", USAGE)
    return name, words[0].casefold()


def resolve_fate(request: tuple[str, str], context: Any, dice: Any) -> Resolution:
    character = require_control(context, request[0], "roll")
    rating = dict(character.skills).get(request[1], 0)
    faces = tuple(dice.roll(3) - 2 for _ in range(4))
    total = max(-2, min(6, sum(faces) + rating))
    return Resolution("fate", FateRoll(character.name, request[1], faces, rating, total))


def four_df() -> dict[int, Fraction]:
    sums = [sum(faces) for faces in product((-1, 0, 1), repeat=4)]
    return {n: Fraction(sums.count(n), 81) for n in range(-4, 5)}


class Fate(BaseSystem):
    name = "fate"
    description = "4dF plus a skill, read on the Fate ladder"
    seed = "Fate Core's ladder and dice"
    verbs = (
        verb(
            "fate",
            parse_fate,
            resolve_fate,
            form="fate <character> <skill>",
            help="4dF + a skill, read on the ladder",
            example="fate Kara fight",
        ),
    )
    sheet = FateSheet()

    def odds_cases(self) -> list[OddsCase]:
        return [OddsCase("4dF", four_df(), lambda dice: sum(dice.roll(3) - 2 for _ in range(4)))]

    def template_helpers(self) -> dict[str, Any]:
        return {"ladder": LADDER, "fate": lambda face: "0+-"[face]}


# --- the guide's example ends here


SYSTEM = Fate()


@pytest.fixture
def fate_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The Fate system found by name, as an installed plug-in's entry point finds it."""
    monkeypatch.setitem(sys.modules, "fate_example", sys.modules[__name__])
    monkeypatch.setattr(registry, "_plugins", lambda: {"fate": "fate_example:SYSTEM"})
    registry.load_system.cache_clear()
    yield
    registry.load_system.cache_clear()


def test_a_system_of_name_verbs_and_sheet_passes_the_conformance_kit(
    fate_installed: None, tmp_path: Path
) -> None:
    """Every default of the base holds up under the kit: rulings, seeding, the example
    campaign from the sheet's sample, invariants, undo, the end of an encounter."""
    report = check_system(SYSTEM, tmp_path / "kit", rolls=20_000)
    assert ({"fate": "fate"}, []) == (report.examples, report.problems)
    assert isinstance(SYSTEM, System)


def test_the_ledger_keeps_what_ledger_facts_says(fate_installed: None, tmp_path: Path) -> None:
    """A result's ledger_facts is what its ledger row keeps beside the dice."""
    campaign = make_campaign(tmp_path, [{**SHEET, "owner": "ann"}], system="fate")
    try:
        verdict = resolve_tag(tag_context(campaign, "ann"), "fate Kara fight", [3, 3, 2, 1])
    finally:
        campaign.close()
    assert {"total": 3} == outcome_summary(verdict)


def test_the_default_roster_shows_the_stored_sheets(fate_installed: None) -> None:
    """Without a roster.md.j2 of its own, the system's roster renders with the core's."""
    records = [
        {"name": "Kara", "owner": "ann", "approved": True, "sheet": SHEET},
        {
            "name": "Orc",
            "owner": None,
            "approved": True,
            "sheet": {**SHEET, "name": "Orc", "kind": "npc"},
        },
        {"name": "Zed", "owner": "bo", "approved": False, "sheet": {**SHEET, "name": "Zed"}},
    ]
    page = RosterRenderer(None, SYSTEM).render(
        SYSTEM.roster_view("Harbour", {"characters": records})
    )
    assert page.startswith("# Harbour: roster\n\n*Kept by the referee bot")
    assert "| Kara | ann | pc | fight 2, notice 1 |" in page
    assert "| Orc | \\- | npc | fight 2, notice 1 |" in page
    assert "Zed" not in page
    assert ("name", "owner", "approved", "kind", "skills") == SYSTEM.character_rows(records, None)[
        0
    ]
    assert ("Zed", "bo", "no", "pc", "fight 2, notice 1") == SYSTEM.character_rows(records, None)[3]


def test_rulings_default_to_none_and_refuse_any_key() -> None:
    """A system without rulings reads an empty [rulings] and refuses a key, naming none."""
    assert NoRulings() == SYSTEM.read_rulings({})
    with pytest.raises(ConfigError, match="'luck' is not a ruling"):
        SYSTEM.read_rulings({"luck": 1})


SHEET = {"name": "Kara", "kind": "pc", "skills": {"fight": 2, "notice": 1}}


def test_the_guide_shows_this_example_as_it_is() -> None:
    """docs/plugins.md's worked example is the system above, word for word, and its template."""
    guide = (Path(__file__).parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8")
    source = Path(__file__).read_text(encoding="utf-8")
    start = source.index("\n", source.index("# --- the guide's example (docs/plugins.md) starts"))
    example = source[start + 1 : source.index("# --- the guide's example ends")].rstrip()
    template = (Path(__file__).parent / "templates" / "verdict_fate.md.j2").read_text()
    assert example in guide
    assert template.strip() in guide


def test_a_result_without_ledger_facts_keeps_nothing_more() -> None:
    """The ledger reads no attribute names off a result: without ledger_facts, no facts."""

    @dataclass(frozen=True)
    class Silent:
        total: int
        hit: bool

    assert {} == outcome_summary(Resolution("silent", Silent(3, True)))  # type: ignore[arg-type]
