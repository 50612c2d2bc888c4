"""Caps on hostile input, kept in one place.

Every size a user controls is checked against one ``Limits`` value, so a post with a
million dice or a ten-megabyte tag is refused with a clear message instead of
stalling the worker. Every number a user types is read by :func:`read_int` (ASCII
digits only, within a stated range), and every name must pass :func:`is_visible`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from referee.base.errors import UserError


@dataclass(frozen=True)
class Limits:
    """The largest input referee accepts; defaults suit a live subreddit."""

    max_dice: int = 1000  # dice in one roll expression, over all its terms
    max_sides: int = 1000  # faces on one die
    max_terms: int = 20  # actions in one declaration (a system's own sequences)
    # Numbers and dice groups in one dice expression: d20's README rolls 51 d20s.
    max_expression_terms: int = 100
    # Any +N/-N a tag or sheet adds to a roll: far beyond any die (a d20; an ordinal d10
    # reads up to 200), yet [[roll Kara agility -1000]] is refused, not rolled.
    max_modifier: int = 100
    max_number: int = 1_000_000  # a number written in dice notation, and any selector
    max_depth: int = 32  # nesting of parentheses, sets and signs in dice notation
    max_set_size: int = 50  # items in one set such as (1d6, 1d8, 1d10)
    max_rolls: int = 2000  # dice drawn by one roll, rerolls and explosions included
    max_sets: int = 20  # repeated sets such as 6x 4d6kh3
    max_total: int = 10**15  # absolute value of any total or intermediate result
    # Exact odds of one dice expression: distinct totals counted, and budget steps spent
    # (the costliest roll within the hostile-tag figure of bench/hostile_cost.py); past
    # either, the verdict says "odds not computed (too many outcomes)". A post's rolls
    # together spend at most what its step budget (max_post_steps) allows, 16 of these to
    # one of its steps.
    max_odds_outcomes: int = 10_000
    max_odds_steps: int = 150_000
    # Each player's chance of Success in a trikus test, the one tag allowed a second of
    # work: steps spent on an exact count, else on seeded duels
    # (an estimate stated with its precision). A post's tests share the post's own
    # allowance for chances (four tests' worth), apart from max_post_steps.
    max_chance_steps: int = 1_080_000
    max_post_chance_steps: int = 4_320_000
    # Steps of the searches that help a player whose text could not be read (a step is
    # about one character examined): the nearest dice notation to an
    # unreadable roll (repair), the verb, name or craft a slip was meant to be (suggest).
    # Past its budget a search gives up and the reply shows the right form without a
    # guess. One tag's searches share max_tag_steps, one post's tags max_post_steps.
    max_repair_steps: int = 6_000
    max_suggest_steps: int = 4_000
    max_tag_steps: int = 12_000
    max_post_steps: int = 150_000
    # Loop items and calls one template render may spend (a verdict spends tens, a
    # roster page of a big campaign thousands): a GM's or a backup's template that
    # loops on and on is refused, naming the file, instead of stalling the worker.
    max_template_steps: int = 200_000
    max_tag_chars: int = 2000  # characters inside one [[ ... ]]
    max_tags_per_post: int = 50  # tags resolved in one post; the rest are refused
    max_names_per_tag: int = 50  # combatants in one [[init ...]]
    max_name_chars: int = 64  # a character, weapon or technique name
    max_post_chars: int = 40_000  # Reddit's own limit for a self post
    reply_chars: int = 10_000  # Reddit's limit for one comment
    # Any number on a sheet (points, armour, wounds survived, modifiers), either sign:
    # wide enough that the rules, not the parser, explain a value like 7 points.
    max_sheet_number: int = 99
    max_wounds_change: int = 99  # wounds one [[wound]] or [[heal]] adds or takes away
    # Files a command reads because a user named them, in bytes: a larger one is refused
    # before it is read whole, and a device or a FIFO is never read (referee.base.files).
    # docs/reference/commands.md states each.
    max_sheet_file_bytes: int = 128 * 1024  # `referee import SHEET`
    max_thread_file_bytes: int = 64 * 1024 * 1024  # `referee batch THREAD.json`
    max_config_file_bytes: int = 1024 * 1024  # config.toml, and the host file of `host`
    max_table_file_bytes: int = 16 * 1024 * 1024  # characters.toml, the tables in data/
    max_secret_file_bytes: int = 4096  # the campaign secret, and `verify --secret-file`


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class BackupLimits:
    """The largest backup ``referee restore`` takes, checked before anything is written.

    Apart from :class:`Limits`, which is the budget of one post threaded through the
    tag pipeline: these are bytes and files of one archive, read by one shell command.
    A campaign's archive is a few megabytes and a few dozen files; years of a busy
    campaign's ledger stay far below these.
    """

    max_archive_bytes: int = 512 << 20  # the .tar.gz as handed over (512 MiB)
    # All it unpacks to, counted while it is unpacked (so a bomb stops here whatever its
    # headers say), and any one file of it.
    max_unpacked_bytes: int = 2 << 30  # 2 GiB
    max_file_bytes: int = 1 << 30  # 1 GiB
    max_files: int = 10_000  # members of the archive, folders included


DEFAULT_BACKUP_LIMITS = BackupLimits()

# ASCII digits only: str.isdigit() also accepts "³" and "①", which int() refuses.
_INTEGER = re.compile(r"([+-]?)0*([0-9]{1,30})")
# Zero-width characters, bidi controls and the rest of Unicode's "format" category.
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp", "Mn", "Me"})
# Letters and symbols that show as blank space (Hangul fillers, the blank Braille
# pattern): a name of them shows nothing, and inside a name they read as a space.
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def read_int(text: str, what: str, low: int, high: int) -> int:
    """``text`` as a whole number from ``low`` to ``high``, or a UserError saying the range.

    Only ASCII digits count (with an optional sign), however many leading zeros.

    >>> read_int("+3", "Strength", 1, 6)
    3
    >>> read_int("³", "The count", 0, 99)
    Traceback (most recent call last):
    ...
    referee.base.errors.UserError: The count must be a whole number from 0 to 99 written \
with the digits 0-9, not '³'.
    """
    match = _INTEGER.fullmatch(text.strip())
    value = None
    if match is not None and len(match.group(2)) <= len(str(max(abs(low), abs(high)))):
        value = int(match.group(2)) * (-1 if match.group(1) == "-" else 1)
    if value is None or not low <= value <= high:
        shown = text if len(text) <= 24 else text[:23] + "…"
        raise UserError(
            f"{what} must be a whole number from {low:,} to {high:,} written with the "
            f"digits 0-9, not '{shown}'."
        )
    return value


@lru_cache(maxsize=4096)  # names repeat post after post; each is normalised once
def is_visible(name: str) -> bool:
    """Whether ``name`` shows at least one character once normalised (NFKC) and stripped
    of zero-width and bidi controls, spaces, combining marks and blank-looking fillers.

    >>> is_visible("Kara"), is_visible("\\u200b\\u200d \\u202e"), is_visible("\\u3164")
    (True, False, False)
    """
    return any(
        unicodedata.category(char) not in _INVISIBLE_CATEGORIES and char not in BLANK_LOOKING
        for char in unicodedata.normalize("NFKC", name)
    )
