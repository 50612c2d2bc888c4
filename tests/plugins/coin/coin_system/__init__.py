"""``coin``: the smallest dice system that uses the whole plug-in interface.

A character has a ``luck`` counter (0-3, on the sheet; a GM changes it in play).
``[[flip Kara 3]]`` flips three coins (d2s, drawn in order; a 2 is heads) and adds her
luck to the heads (a GM's flip may add heads: ``[[flip Kara 3 +1]]``, an option a player
may not set); ``[[luck Kara +1]]`` (GM only) changes her luck; the end of an
encounter sets every character's luck back to the sheet's. Its rulings say how many
coins a flip may hold. Written against :mod:`referee.system` only, as a third party
would: it is found through the ``referee.systems`` entry point of its pyproject.toml.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb
from typing import Any

from referee.system import (
    BaseSystem,
    Context,
    DiceSource,
    ExampleCampaign,
    GmOption,
    OddsCase,
    ParseContext,
    Resolution,
    RuleViolation,
    TagError,
    UserError,
    known_prefix,
    name_argument,
    require_control,
    trailing_modifiers,
    verb,
)


@dataclass(frozen=True)
class Rulings:
    """The coin rulings: every option has its default."""

    max_coins: int = field(default=10, metadata={"range": (1, 100)})  # coins one flip may hold


@dataclass(frozen=True)
class Character:
    name: str
    luck: int = 0  # the sheet's luck
    luck_now: int | None = None  # luck in play, when a GM changed it

    @property
    def current_luck(self) -> int:
        return self.luck if self.luck_now is None else self.luck_now


@dataclass(frozen=True)
class Flip:
    actor: str
    coins: int
    bonus: int = 0  # heads a GM adds


@dataclass(frozen=True)
class Luck:
    actor: str
    change: int


@dataclass(frozen=True)
class FlipResult:
    roller: str
    faces: tuple[int, ...]
    luck: int
    heads: int  # heads shown plus luck


@dataclass(frozen=True)
class LuckResult:
    name: str
    before: int
    after: int


class CoinSheet:
    """The sheet: ``name: Kara`` and ``luck: 1``."""

    form = "Write `name: <name>` and `luck: 0` to `3`, one per line."

    def parse(self, text: str, limits: Any, kind: str = "pc") -> dict[str, Any]:
        record: dict[str, Any] = {"kind": kind}
        problems = []
        for number, line in enumerate(text.splitlines(), start=1):
            key, colon, value = line.partition(":")
            key, value = key.strip().casefold(), value.strip()
            if not line.strip():
                continue
            if not colon or key not in ("name", "luck", "kind"):
                problems.append(f"Line {number} is not `name:` or `luck:`.")
            elif key == "luck" and not re.fullmatch("[0-9]", value):
                problems.append(f"Line {number}: luck is a digit from 0 to 3.")
            else:
                record[key] = int(value) if key == "luck" else value
        if problems or "name" not in record:
            raise UserError(" ".join([*problems, self.form]))
        return record

    def from_record(self, record: Mapping[str, Any]) -> Character:
        return Character(str(record["name"]), int(record.get("luck", 0)), record.get("luck_now"))

    def to_record(self, character: Character) -> dict[str, Any]:
        record: dict[str, Any] = {"name": character.name, "luck": character.luck}
        if character.luck_now is not None:
            record["luck_now"] = character.luck_now
        return record

    def validate(self, character: Character, rules: Any) -> list[str]:
        return [] if 0 <= character.luck <= 3 else [f"Luck is 0 to 3, not {character.luck}."]

    def amend(self, character: Character, amendment: str) -> tuple[Character, str]:
        words = amendment.split()
        if len(words) == 2 and words[0] == "luck" and words[1] in "0123":
            return replace(character, luck=int(words[1])), f"luck {words[1]}"
        raise UserError(f"'{amendment}' is not an amendment. Use: luck N.")


FLIP_USAGE = "[[flip Kara 3]] (a GM may add heads: [[flip Kara 3 +1]])"
LUCK_USAGE = "[[luck Kara +1]]"


def _actor_and_number(rest: str, context: ParseContext, usage: str) -> tuple[str, str]:
    words = rest.split()
    if len(words) < 2:
        raise TagError("Name the character, then a number.", usage)
    split = known_prefix(words, context) or len(words) - 1
    return name_argument(" ".join(words[:split]), "character", usage, context.limits), " ".join(
        words[split:]
    )


def parse_flip(rest: str, context: ParseContext) -> Flip:
    text, bonus = trailing_modifiers(" " + rest.strip(), FLIP_USAGE, context.limits)
    actor, count = _actor_and_number(text, context, FLIP_USAGE)
    if not re.fullmatch("[0-9]{1,3}", count) or int(count) < 1:
        raise TagError(f"'{count[:20]}' is not a number of coins.", FLIP_USAGE)
    return Flip(actor, int(count), bonus)


def parse_luck(rest: str, context: ParseContext) -> Luck:
    text, change = trailing_modifiers(" " + rest.strip(), LUCK_USAGE, context.limits)
    if not change:
        raise TagError("Say how much luck changes: +1 or -1.", LUCK_USAGE)
    return Luck(name_argument(text, "character", LUCK_USAGE, context.limits), change)


def resolve_flip(request: Flip, context: Context, dice: DiceSource) -> Resolution:
    character = require_control(context, request.actor, "flip")
    if request.coins > context.rules.max_coins:
        raise RuleViolation(f"A flip holds at most {context.rules.max_coins} coins.")
    faces = tuple(dice.roll(2) for _ in range(request.coins))
    luck = character.current_luck
    added = luck + request.bonus
    heads = sum(face == 2 for face in faces) + added
    chance = sum(
        (_heads(request.coins)[n] for n in range(request.coins + 1) if n + added >= heads),
        Fraction(0),
    )
    return Resolution("flip", FlipResult(character.name, faces, luck, heads), chance)


def resolve_luck(request: Luck, context: Context, dice: DiceSource) -> Resolution:
    before = context.roster.find(request.actor)
    after = max(0, min(3, before.current_luck + request.change))
    context.roster.update(replace(before, luck_now=after))
    return Resolution("luck", LuckResult(before.name, before.current_luck, after))


def _heads(coins: int) -> dict[int, Fraction]:
    """The exact chance of each number of heads among ``coins`` fair coins."""
    return {n: Fraction(comb(coins, n), 2**coins) for n in range(coins + 1)}


class Coin(BaseSystem):
    name = "coin"
    version = "1.0"
    description = "coins and luck: the smallest example of a referee dice system"
    seed = "none: an example for plug-in authors"
    verbs = (
        verb(
            "flip",
            parse_flip,
            resolve_flip,
            FLIP_USAGE,
            form="flip <character> <coins>",
            help="flips coins; heads plus the character's luck",
            example="flip Kara 3",
            gm_options=(
                GmOption(
                    "+N",
                    lambda request: isinstance(request, Flip) and request.bonus > 0,
                    "add heads to a flip",
                    "Flip without +N: the heads and the character's luck count.",
                    example="flip Kara 3 +1",
                ),
            ),
        ),
        verb(
            "luck",
            parse_luck,
            resolve_luck,
            LUCK_USAGE,
            form="luck <character> +N or -N",
            help="GM: changes a character's luck in play (0 to 3)",
            example="luck Kara +1",
            gm_only="change luck",
        ),
    )
    sheet = CoinSheet()
    rulings_type = Rulings  # read from [rulings] by the base's read_rulings

    def end_encounter(self, context: Context) -> bool:
        """Luck goes back to the sheet's for everyone."""
        reset = False
        for name in context.roster.known_names:
            character = context.roster.find(name)
            if character.luck_now is not None:
                context.roster.update(replace(character, luck_now=None))
                reset = True
        return reset

    def roster_view(self, campaign: str, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> Any:
        return {
            "campaign": campaign,
            "characters": [
                self.sheet.from_record(record["sheet"])
                for record in tables.get("characters", ())
                if record.get("approved")
            ],
        }

    def character_rows(
        self, records: Iterable[Mapping[str, Any]], rules: Any
    ) -> list[tuple[str, ...]]:
        rows: list[tuple[str, ...]] = [("name", "owner", "luck")]
        for record in records:
            character = self.sheet.from_record(record["sheet"])
            rows.append(
                (character.name, str(record.get("owner") or "-"), str(character.current_luck))
            )
        return rows

    def odds_cases(self) -> Iterable[OddsCase]:
        for coins in (1, 3, 8):
            yield OddsCase(
                f"{coins} coins: heads",
                _heads(coins),
                lambda dice, n=coins: sum(dice.roll(2) == 2 for _ in range(n)),
            )

    def example_campaign(self) -> ExampleCampaign:
        return ExampleCampaign({"characters": ({"name": "Kara", "kind": "pc", "luck": 1},)})


SYSTEM = Coin()
