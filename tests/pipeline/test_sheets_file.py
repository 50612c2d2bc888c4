"""characters.toml in step with the store: a sheet added later is read, a changed one refused."""

from referee.cli import main
from referee.testing.demos import copy_demo

ADDED = """
[[character]]
name = "Iris Vale"
kind = "pc"
owner = "iris_plays"
primary = "talent"
secondary = "body"
"""


def test_a_sheet_added_after_the_first_run_is_read_on_the_next(tmp_path, monkeypatch, capsys):
    """A character appended to characters.toml after the store was seeded joins the roster."""
    monkeypatch.setenv("REFEREE_SECRET", "sheets-file-test")
    demo = copy_demo("hits", tmp_path)
    at = ["--campaign", str(demo)]
    main([*at, "characters"])
    before = capsys.readouterr().out
    with (demo / "characters.toml").open("a", encoding="utf-8") as sheets:
        sheets.write(ADDED)
    code = main([*at, "characters"])
    after = capsys.readouterr().out
    assert (0, False, True) == (code, "Iris Vale" in before, "Iris Vale" in after)


def test_a_sheet_changed_after_it_was_read_is_refused_saying_what_to_do(
    tmp_path, monkeypatch, capsys
):
    """A sheet edited in the file after seeding stops the command, naming it; never ignored."""
    monkeypatch.setenv("REFEREE_SECRET", "sheets-file-test")
    demo = copy_demo("hits", tmp_path)
    at = ["--campaign", str(demo)]
    main([*at, "characters"])
    capsys.readouterr()
    sheets = demo / "characters.toml"
    sheets.write_text(sheets.read_text().replace("xp = 8", "xp = 9", 1), encoding="utf-8")
    code = main([*at, "characters"])
    err = capsys.readouterr().err
    assert (2, True, True) == (code, "Kara Venn" in err, "new name" in err)
