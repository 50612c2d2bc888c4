"""The registry of dice systems: built-ins, third-party plug-ins through entry points, refusals."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.cli import main
from referee.pipeline.campaign import load_config
from referee.system import installed_systems, load_system
from referee.testing import make_campaign, resolve_tag, tag_context
from referee.testing.conformance import check_system
from referee.testing.demos import every_verb

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

COIN = Path(__file__).resolve().parent.parent / "plugins" / "coin"


@pytest.fixture
def coin_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tests/plugins/coin installed as pip installs it: its package and a dist-info folder.

    The dist-info holds METADATA and the entry_points.txt that pip writes from the
    package's pyproject.toml, on a folder of sys.path; importlib.metadata finds it the
    way it finds any installed distribution, so the registry's real lookup is exercised.
    """
    site = tmp_path / "site-packages"
    shutil.copytree(COIN / "coin_system", site / "coin_system")
    project = tomllib.loads((COIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
            for group, points in project["entry-points"].items()
        )
    )
    monkeypatch.syspath_prepend(str(site))
    load_system.cache_clear()
    yield site
    load_system.cache_clear()
    sys.modules.pop("coin_system", None)


def test_built_in_systems_are_installed_without_any_plug_in() -> None:
    """stepped is found by name; its object says who it is."""
    system = load_system("stepped")
    assert ("stepped", "referee.systems.stepped.system:SYSTEM") == (
        system.name,
        installed_systems()["stepped"],
    )


def test_an_unknown_system_is_refused_with_the_installed_list(tmp_path: Path) -> None:
    """config.toml naming a system nobody installed says which ones are installed."""
    (tmp_path / "config.toml").write_text('[campaign]\nsystem = "gurps"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "config.toml")
    assert "system = 'gurps' is not installed; the installed systems are stepped" in (
        caught.value.message
    )


def test_a_plug_in_found_through_its_entry_point_is_installed(coin_installed: Path) -> None:
    """After installing the coin package, `coin` is a system like the built-ins."""
    assert ("coin_system:SYSTEM", "coin") == (
        installed_systems()["coin"],
        load_system("coin").name,
    )


def test_a_plug_in_passes_the_conformance_kit(coin_installed: Path, tmp_path: Path) -> None:
    """The kit's every check holds for the third-party example system."""
    report = check_system(load_system("coin"), tmp_path / "kit")
    assert ({"flip": "flip", "luck": "luck"}, []) == (report.examples, report.problems)


def test_a_plug_in_campaign_plays_its_verbs_and_the_core_s(coin_installed: Path, tmp_path: Path):
    """A coin campaign flips coins, refuses a player's GM verb, and answers [[help]]."""
    campaign = make_campaign(
        tmp_path, [{"name": "Kara", "luck": 1, "owner": "kara"}], system="coin"
    )
    try:
        flip = resolve_tag(tag_context(campaign, "kara"), "flip Kara 3", [2, 1, 2])
        with pytest.raises(Exception) as refused:
            resolve_tag(tag_context(campaign, "kara"), "luck Kara +1")
        with pytest.raises(Exception) as option:
            resolve_tag(tag_context(campaign, "kara"), "flip Kara 3 +1", [2, 1, 2])
        gm_flip = resolve_tag(tag_context(campaign, "gm"), "flip Kara 3 +1", [2, 1, 2])
        listed = resolve_tag(tag_context(campaign, "kara"), "help")
    finally:
        campaign.close()
    assert (3, "Only a GM may change luck.", 4) == (
        flip.result.heads,
        str(refused.value).split(" u/")[0],
        gm_flip.result.heads,
    )
    # The option the verb declares GM-only is refused by the core, with its reason.
    assert "Only a GM may add heads to a flip. Flip without +N" in str(option.value)
    # [[help]] lists every verb of the campaign once: roll, the plug-in's own, then the core's.
    names = [verb.name for verb in listed.result.verbs]
    assert (["roll", "flip", "luck"], sorted(every_verb(campaign.system)), "help") == (
        names[:3],
        sorted(names),
        names[-1],
    )


def test_referee_systems_lists_a_plug_in_with_its_verbs(coin_installed: Path, capsys) -> None:
    """`referee systems` shows every installed system, its verbs, forms and examples."""
    assert 0 == main(["systems"])
    out = capsys.readouterr().out
    assert ("coin 1.0: coins and luck", "flip <character> <coins>", "[[flip Kara 3]]") == (
        "coin 1.0: coins and luck" if "coin 1.0: coins and luck" in out else out,
        "flip <character> <coins>" if "flip <character> <coins>" in out else out,
        "[[flip Kara 3]]" if "[[flip Kara 3]]" in out else out,
    )
