"""A throw-away campaign on disk, for tests and for trying rules by hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from referee.pipeline.campaign import Campaign, Secret, load_config
from referee.store.entries import character_key, store_entry

REPO_DATA = Path(__file__).resolve().parents[2] / "data"  # races, scale and NPC tables


def sheet(name: str, kind: str = "pc", **fields: Any) -> dict[str, Any]:
    """A legal soldier's sheet (all stats d6 but Agility and Perception d8), changed by ``fields``.

    >>> sheet("Kara")["stats"]
    {'strength': 2, 'agility': 3, 'endurance': 2, 'perception': 3}
    """
    record: dict[str, Any] = {
        "name": name,
        "kind": kind,
        "race": "human",
        "background": "soldier",
        "named": kind == "pc",
        "stats": {"strength": 2, "agility": 3, "endurance": 2, "perception": 3},
        "weapons": [
            {"name": "blaster", "kind": "ranged", "damage": "2d6"},
            {"name": "baton", "kind": "melee", "modifier": 1, "subdue": True},
        ],
    }
    record.update(fields)
    return record


def make_campaign(
    folder: Path,
    sheets: Iterable[Mapping[str, Any]] = (),
    *,
    rulings: Mapping[str, Any] | None = None,
    secret: bytes = b"test-secret",
    owners: Mapping[str, str] | None = None,
    extra_config: str = "",
    crafts: Iterable[Mapping[str, Any]] = (),
    gms: Iterable[str] = ("gm",),
    system: str = "stepped",
    records: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
    name: str = "Test campaign",
) -> Campaign:
    """Write config.toml into ``folder``, open the campaign and store ``sheets`` as approved.

    ``system`` names the dice system. ``records`` puts sheets into the system's other
    tables (its ``table_sheets``); ``crafts`` is short for ``records={"vehicles": ...}``
    (the shape of data/demo/vehicles.toml). Every sheet may carry ``owner`` and
    ``approved``, which are the campaign's facts, not the sheet's.
    """
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    lines = [
        "[campaign]",
        f"name = {_toml(name)}",
        f"system = {_toml(system)}",
        'data_dir = "data"',
        f'races = "{(REPO_DATA / "races.toml").as_posix()}"',
        f'scale = "{(REPO_DATA / "scale.toml").as_posix()}"',
        "gms = [" + ", ".join(_toml(name) for name in gms) + "]",
        "[rulings]",
        *(f"{key} = {_toml(value)}" for key, value in (rulings or {}).items()),
    ]
    (folder / "config.toml").write_text("\n".join(lines) + "\n" + extra_config, encoding="utf-8")
    campaign = Campaign(load_config(folder / "config.toml"), Secret(secret, "test"))
    tables = {"characters": sheets, **(records or {})}
    if crafts:
        tables["vehicles"] = crafts
    for table_name, table_records in tables.items():
        form = (
            campaign.system.sheet
            if table_name == "characters"
            else campaign.system.table_sheets[table_name]
        )
        table = campaign.store.table(table_name)
        for record in table_records:
            value = form.from_record(
                {k: v for k, v in record.items() if k not in ("owner", "approved")}
            )
            owner = (owners or {}).get(value.name, record.get("owner"))
            approved = bool(record.get("approved", True))
            entry = store_entry(value.name, owner, approved, form.to_record(value))
            table.put(character_key(value.name), entry)
    campaign.store.flush()
    return campaign


def example_campaign(system: Any, folder: Path, understudy: str = "") -> Campaign:
    """``system``'s example campaign (:meth:`System.example_campaign`) on disk under
    ``folder``: its player owns every player's character, its GM is the campaign's GM.
    ``understudy``: the name of a copy of its first NPC, added as a second NPC."""
    example = system.example_campaign()
    records = dict(example.records)
    sheets = [
        {**sheet, "owner": example.player if sheet.get("kind", "pc") == "pc" else None}
        for sheet in records.pop("characters", ())
    ]
    npcs = [sheet for sheet in sheets if sheet["owner"] is None]
    if understudy and npcs:
        sheets.append({**npcs[0], "name": understudy})
    return make_campaign(
        folder,
        sheets,
        rulings=example.rulings,
        gms=(example.gm,),
        system=system.name,
        records=records,
    )


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
