"""Caps on hostile input, kept in one place.

Every size a user controls is checked against one ``Limits`` value, so a post with a
million dice or a ten-megabyte tag is refused with a clear message instead of
stalling the worker.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The largest input referee accepts; defaults suit a live subreddit."""

    max_dice: int = 1000  # dice in one roll expression, over all its terms
    max_sides: int = 1000  # faces on one die
    max_terms: int = 20  # dice groups and constants in one expression
    max_modifier: int = 1000  # absolute value of any numeric modifier
    max_number: int = 1_000_000  # a number written in dice notation, and any selector
    max_depth: int = 32  # nesting of parentheses, sets and signs in dice notation
    max_set_size: int = 50  # items in one set such as (1d6, 1d8, 1d10)
    max_rolls: int = 2000  # dice drawn by one roll, rerolls and explosions included
    max_sets: int = 20  # repeated sets such as 6x 4d6kh3
    max_total: int = 10**15  # absolute value of any total or intermediate result
    max_tag_chars: int = 2000  # characters inside one [[ ... ]]
    max_tags_per_post: int = 50  # tags resolved in one post; the rest are refused
    max_names_per_tag: int = 50  # combatants in one [[init ...]]
    max_name_chars: int = 64  # a character, weapon or technique name
    max_post_chars: int = 40_000  # Reddit's own limit for a self post
    reply_chars: int = 10_000  # Reddit's limit for one comment


DEFAULT_LIMITS = Limits()
