"""The systems' shared name lookup, as a player meets it in a refusal."""

from __future__ import annotations

import pytest

from referee.base.errors import UnknownName
from referee.systems.changes import find_name


@pytest.mark.parametrize(
    ("what", "said"),
    [
        ("attribute", "is not an attribute"),
        ("stat", "is not a stat"),
        ("answer", "is not an answer"),
    ],
)
def test_an_unknown_name_is_refused_with_the_right_article(what: str, said: str) -> None:
    """'xyzzy' is not an attribute / a stat: the article fits the word it stands before."""
    with pytest.raises(UnknownName) as caught:
        find_name("xyzzy", ["body", "mind"], what)
    assert said in caught.value.message
