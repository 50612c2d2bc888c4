"""Characters stored by a newer referee: refused with what to do, never misread."""

from __future__ import annotations

import pytest

from referee.base.errors import StoreError
from referee.system import load_system


@pytest.mark.parametrize("name", ["edge", "pool", "trikus"])
def test_a_character_of_another_version_is_refused_with_the_way_out(name: str) -> None:
    """A record of version 99 says whose it is, both versions, and to upgrade or restore."""
    with pytest.raises(StoreError) as caught:
        load_system(name).sheet.from_record({"version": 99, "name": "Kara"})
    assert (
        f"A stored {name} character has version 99; this referee reads version "
        in caught.value.message,
        "Upgrade referee or restore the store from its backup." in caught.value.message,
    ) == (True, True)
