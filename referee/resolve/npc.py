"""``[[npc NAME: key value, ...]]``: a GM brings a character of the campaign's system into play.

A core verb, for every system that names no ``npc`` verb of its own (stepped keeps its
own, with NPC templates). What follows the name is the system's own sheet, written
inline: one ``key value`` item per comma, or per semicolon where a value holds commas
(trikus's ``light: brave, loyal``). The system's sheet format reads it as an NPC's
sheet and its rules check it, as ``referee import`` checks a GM's sheet; a sheet the
rules refuse never enters play. Written in a private message to the bot, the NPC is
known to the GMs only, like every character a GM makes there.

>>> print(sheet_lines("Gate Guard", "primary body, secondary mind, skill: Spear 2"))
name: Gate Guard
primary: body
secondary: mind
skill: Spear 2
>>> print(sheet_lines("Pawel", "tier beginner; light brave, loyal; dark vain"))
name: Pawel
tier: beginner
light: brave, loyal
dark: vain
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.base.dice import DiceSource
from referee.base.errors import RuleViolation, TagError, UserError
from referee.base.limits import DEFAULT_LIMITS
from referee.system import Context, ParseContext, Resolution, System, Verb, refuse_look_alike
from referee.system.arguments import name_argument

NPC_USAGE = "[[npc Bandit: key value, key value]]"


@dataclass(frozen=True)
class BringNpc:
    """``[[npc NAME: sheet]]``: the name and the sheet, as ``key: value`` lines."""

    name: str
    sheet: str


@dataclass(frozen=True)
class NpcEntered:
    """A character a GM put into play: its name and the system's summary of it."""

    name: str
    summary: tuple[tuple[str, str], ...]  # (column, value) of ``referee characters``


def sheet_lines(name: str, items: str) -> str:
    """The sheet text of ``[[npc NAME: items]]``: the name, then one ``key: value`` a line.

    Items are split at semicolons if there is one, else at commas; each is ``key value``
    or ``key: value``.
    """
    separator = ";" if ";" in items else ","
    lines = [f"name: {name}"]
    for item in items.split(separator):
        item = item.strip()
        if not item:
            continue
        key, colon, value = item.partition(":")
        if not colon:
            key, _, value = item.partition(" ")
        lines.append(f"{key.strip()}: {value.strip()}")
    return "\n".join(lines)


def parse_npc(rest: str, context: ParseContext) -> BringNpc:
    """``[[npc NAME: key value, ...]]``; TagError with the form if a part is missing."""
    name, colon, items = rest.partition(":")
    if not colon or not items.strip():
        raise TagError(
            "Write the NPC's name, a colon, then its sheet in this campaign's format, one "
            "`key value` per comma (a semicolon where a value holds commas).",
            NPC_USAGE,
        )
    name = name_argument(name, "NPC", NPC_USAGE, context.limits)
    return BringNpc(name, sheet_lines(name, items))


def resolve_npc(request: BringNpc, context: Context, dice: DiceSource) -> Resolution:
    """Read the sheet with the system's sheet format, check it, and add the NPC."""
    if request.name in context.roster:
        raise RuleViolation(f"{request.name} already exists; choose another name.")
    refuse_look_alike(context, request.name)
    system = context.system
    if system is None:  # pragma: no cover - a campaign always has a system
        raise RuleViolation("This campaign has no dice system to read an NPC's sheet.")
    try:
        record = system.sheet.parse(request.sheet, context.limits, kind="npc")
    except UserError as error:  # its words on a sheet in a code block do not apply inline
        words = error.message.replace(system.sheet.form, "").strip()
        raise RuleViolation(f"{words} Write the sheet as [[{example(system)}]] does.") from None
    record["kind"] = "npc"
    character = system.sheet.from_record(record)
    problems = system.sheet.validate(character, context.rules)
    if problems:
        raise RuleViolation(
            f"{character.name} cannot enter play: {' '.join(problems)} Write the sheet as "
            f"[[{example(system)}]] does."
        )
    context.roster.add(character, None, approved=True)
    stored = context.roster.record(context.roster.key(character.name))
    header, *rows = system.character_rows([stored], context.rules)
    row = rows[0] if rows else ()
    summary = tuple(
        (str(label), str(value))
        for label, value in zip(header, row, strict=False)  # a short row: a missing cell
        if label not in ("name", "owner", "approved", "kind")
    )
    return Resolution("npc_entered", NpcEntered(character.name, summary))


def example(system: System) -> str:
    """The verb's example in ``system``: its sample sheet, written inline as an NPC's."""
    sample = str(getattr(system.sheet, "sample", "")).strip().splitlines()
    items = [line.partition(":") for line in sample if not line.startswith("name:")]
    if not items:
        return "npc Bandit: key value, key value"
    separator = "; " if any("," in value for _, _, value in items) else ", "
    inline = separator.join(f"{key.strip()} {value.strip()}" for key, _, value in items)
    return f"npc Watcher: {inline}"


def keeps_npcs(system: System) -> bool:
    """Whether ``system``'s sheet format reads a GM's character (trikus's keeps none).

    Its sample sheet, legal for a player, is read as an NPC's: refused, the system keeps
    no NPCs. A system without a sample is taken to keep them.
    """
    sheet = getattr(system, "sheet", None)
    if sheet is None:  # a system without sheets keeps no characters at all
        return False
    sample = str(getattr(sheet, "sample", "")).strip()
    if not sample:
        return True
    try:
        sheet.parse(sample, DEFAULT_LIMITS, kind="npc")
    except UserError:
        return False
    return True


def npc_verb(system: System) -> Verb | None:
    """The core's ``npc`` verb for ``system`` (whose own sheet it reads); None if it keeps none.

    A system whose sheets are players' only (trikus: the GM's side is a pool of dice set
    when a test opens) gets no ``npc`` verb.
    """
    if not keeps_npcs(system):
        return None
    return Verb(
        "npc",
        parse_npc,
        resolve_npc,
        form="npc <name>: <key> <value>, <key> <value>, ...",
        help="GM: brings a character into play from a sheet in this campaign's format, "
        "written inline (in a private message, known to the GMs only)",
        example=example(system),
        gm_only="bring a character into play",
        usage_text=f"[[{example(system)}]]",
    )
