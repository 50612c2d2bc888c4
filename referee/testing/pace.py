"""A fight on the local Reddit with turn deadlines, for the pace's tests and trials.

    pace(hours, expiry)     the ``[pace]`` table of config.toml
    PLAYERS, SHEETS, ORDER  four players' characters, and the GM's tag that starts
                            their fight (Kara 20, Dax 15, Lio 10, Mox 5)
    Fight(server, harness)  one thread's fight: post as a player, run the worker on the
                            fake clock, read the tracker and turn clock from the store,
                            find the bot's notices by their marks
    bot_pms(server, user)   the bot's private messages to ``user``

>>> pace(48, "skip").splitlines()[1]
'turn_hours = 48'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.render.notices import notice_mark
from referee.resolve import pace_state
from referee.resolve.pace import HOUR, TurnClock, pace_from_record
from referee.resolve.tracker import Tracker, from_record
from referee.resolve.tracker_verbs import TABLE
from referee.testing.campaign import sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, Live

PLAYERS = {"Kara Venn": "kara", "Dax Orr": "dax", "Lio Park": "lio", "Mox Rell": "mox"}
SHEETS = [sheet(name, owner=owner) for name, owner in PLAYERS.items()]
ORDER = (
    "[[init add Kara Venn 20]] [[init add Dax Orr 15]] [[init add Lio Park 10]] "
    "[[init add Mox Rell 5]] [[next]]"
)


def pace(hours: float = 24, expiry: str = "skip", remind_at: float = 0.5) -> str:
    """The ``[pace]`` table (it may follow the ``[reddit]`` lines a harness writes)."""
    return f'[pace]\nturn_hours = {hours}\nremind_at = {remind_at}\non_expiry = "{expiry}"\n'


def bot_pms(server: FakeReddit, user: str, words: str = "") -> list[dict[str, Any]]:
    """The bot's private messages to ``user`` holding ``words``, oldest first."""
    return [m for m in server.messages_to(user) if m["author"] == server.bot and words in m["body"]]


@dataclass
class Fight:
    """One thread's fight on the local Reddit, and what the store says of it."""

    server: FakeReddit
    harness: Live
    thread: str = ""
    seen: dict[int, TurnClock] = field(default_factory=dict)  # every turn looked at, by number

    def start(self, order: str = ORDER) -> Fight:
        """Open the thread as the GM and post the order (round 1 begins at once)."""
        self.thread = self.server.submit(SUB, "gm", "The ambush", "Roll for it.")
        self.server.comment(self.thread, "gm", order)
        return self

    def _store(self) -> Any:
        assert self.harness.campaign is not None
        return self.harness.campaign.store

    def tracker(self) -> Tracker:
        """The thread's initiative as the store holds it."""
        return from_record(self._store().table(TABLE).get(self.thread))

    def turn(self) -> TurnClock:
        """The current turn's clock (and noted in ``seen``)."""
        turn = pace_from_record(self._store().table(pace_state.PACE).get(self.thread)).turn
        assert turn is not None
        self.seen.setdefault(turn.serial, turn)
        return turn

    def whose(self) -> tuple[str, ...]:
        """Whose turn it is."""
        current = self.tracker().current
        return current.names if current is not None else ()

    def run(self, hours: float) -> None:
        """Step the worker as ``referee run`` would for ``hours`` of the fake clock."""
        self.harness.run_until(self.server.clock.now() + hours * HOUR)

    def act(self, player: str, text: str = "I act. [[roll 1d20]] [[next]]") -> str:
        """Comment in the thread as ``player``; the comment's fullname."""
        return self.server.comment(self.thread, player, text)

    def notices(self, kind: str, serial: int) -> list[dict[str, Any]]:
        """The bot's comments carrying the mark of turn ``serial``'s ``kind`` notice
        ("remind", "expire" or "vacant")."""
        mark = notice_mark(f"{kind}:{self.thread}:{serial}")
        return [c for c in self.server.comments_by(self.server.bot) if mark in c["body"]]
