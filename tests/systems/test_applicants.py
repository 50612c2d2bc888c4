"""A GM's verb on a character still awaiting approval says so, in every newer system."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.base.errors import Forbidden
from referee.testing.campaign import make_campaign
from referee.testing.resolving import resolve_tag, tag_context

# (system, the applicant's sheet, a GM's verb on him)
CASES = [
    ("edge", "name: Nova\ncool: 1", "set Nova advantage 2"),
    ("pool", "name: Nova\ndexterity: 2", "set Nova dexterity 3"),
    ("hits", "name: Nova\nprimary: body\nsecondary: mind", "harm Nova stress 1"),
    ("trikus", "name: Nova\ntier: beginner\nlight: a, b, c\ndark: d", "light Nova 2"),
]


@pytest.mark.parametrize(("system", "sheet", "verb"), CASES)
def test_a_gm_verb_on_an_applicant_says_he_awaits_approval(
    tmp_path: Path, system: str, sheet: str, verb: str
) -> None:
    """The GM's verb on Nova, who has applied: "not approved yet", not "no character"."""
    campaign = make_campaign(tmp_path, system=system)
    body = f"[[apply]]\n\n```\n{sheet}\n```"
    resolve_tag(tag_context(campaign, "nova_plays", body=body), "apply")
    with pytest.raises(Forbidden, match="Nova is not approved yet"):
        resolve_tag(tag_context(campaign, "gm"), verb)
