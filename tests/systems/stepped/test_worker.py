"""stepped on the live worker (real PRAW, FakeReddit): what only a GM writes, by post."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from referee.base.markdown import escape_markdown
from referee.testing import sheet
from referee.testing.reddit_server import FakeReddit
from referee.testing.worker import SUB, fake_reddit

SHEETS = [
    sheet("Kara Venn", owner="kara_plays"),
    sheet("Captain Rhoss", kind="npc", named=True, wounds_survived=3),
]


@pytest.fixture
def server() -> Iterator[FakeReddit]:
    with fake_reddit() as fake:
        yield fake


def _reply(server: FakeReddit, post: str) -> str:
    (reply,) = [c["body"] for c in server.replies_to(post)]
    return reply


def test_a_players_unaware_is_refused_by_post_and_the_gms_is_an_automatic_hit(
    server: FakeReddit, live
) -> None:
    """Kara's player posts [[shoot Kara Venn -> Captain Rhoss unaware]]: the reply refuses it,
    saying only a GM may and the tag to write, and nothing is rolled or wounded; the GM's
    same tag is an automatic hit."""
    harness = live(sheets=SHEETS)
    thread = server.submit(SUB, "gm", "The hangar", "Rhoss inspects the troops.")
    cheat = server.comment(thread, "kara_plays", "[[shoot Kara Venn -> Captain Rhoss unaware]]")
    harness.run_until_settled()
    refused = _reply(server, cheat)
    rhoss = harness.campaign.store.table("characters").get("captain rhoss")["sheet"]
    rolled = [row for row in harness.campaign.store.ledger if row["post"] == cheat]
    gm = server.comment(thread, "gm", "[[shoot Kara Venn -> Captain Rhoss unaware]]")
    harness.run_until_settled()
    message = (
        "Only a GM may say the target is unaware of the attack (unaware). Attack without "
        "unaware (a GM writes it when Captain Rhoss does not see the attack coming): "
        "[[shoot Kara Venn -> Captain Rhoss]]."
    )
    assert (True, 0, []) == (escape_markdown(message, 500) in refused, rhoss["wounds"], rolled)
    gm_rolled = [row for row in harness.campaign.store.ledger if row["post"] == gm]
    assert (True, True) == ("**automatic hit**" in _reply(server, gm), bool(gm_rolled))
