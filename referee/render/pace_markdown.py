"""The pace's pieces of Markdown: deadlines, days, time left and mentioning a player.

Template filters ``when`` (``Tue 3 Dec 18:00 UTC``), ``day`` (``Sat 5 Dec 2026``),
``hours`` (``48 hours``), ``left`` (``23 hours``) and ``mention`` (``u/kara_v``, which
pings the player: only a well-formed Reddit username is written so; anything else is
escaped like all user text).

>>> mention("kara_v"), mention("u/evil [x](y)")
('u/kara_v', 'u&#47;evil &#91;x&#93;\\\\(y\\\\)')
"""

from __future__ import annotations

import re

from referee.base.markdown import escape_markdown
from referee.resolve.pace import date_words, hours_words, left_words, when_words

_USERNAME = re.compile(r"[A-Za-z0-9_-]{3,20}")


def mention(username: str) -> str:
    """``u/NAME``, a mention Reddit turns into a ping, for a well-formed username."""
    if _USERNAME.fullmatch(username):
        return f"u/{username}"
    return escape_markdown(username, 40)


HELPERS = {
    "when": when_words,
    "day": date_words,
    "hours": hours_words,
    "left": left_words,
    "mention": mention,
}
