"""Tests for referee.base.markdown: echoed text shows what it holds, nothing hidden."""

import sys
import unicodedata

import pytest

from referee.base.markdown import escape_markdown

# Every format character (Cf: bidi controls, joiners, marks, tags) Python knows of.
FORMAT = [
    chr(point) for point in range(sys.maxunicode + 1) if unicodedata.category(chr(point)) == "Cf"
]


@pytest.mark.parametrize("hidden", ["\u061c", "\u2060", "\ufeff", "\u00ad"])
def test_named_invisible_characters_do_not_pass_through_escaping(hidden):
    """The Arabic letter mark, word joiner, byte-order mark and soft hyphen become spaces."""
    assert "Kara Venn" == escape_markdown(f"Kara{hidden}Venn").replace("  ", " ")


def test_no_format_character_survives_escaping():
    """Whatever format character a name or note holds, the Markdown echoed has none."""
    escaped = escape_markdown("a".join(FORMAT), max_chars=100_000)
    assert [] == [char for char in escaped if unicodedata.category(char) == "Cf"]
