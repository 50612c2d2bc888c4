"""A throw-away campaign on disk, for tests and for trying rules by hand."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..campaign import (
    Campaign,
    Secret,
    character_entry,
    character_key,
    load_config,
    store_entry,
)
from ..render import PACKAGE_TEMPLATES
from ..systems import stepped
from ..systems.stepped import vehicles

REPO_DATA = PACKAGE_TEMPLATES.parent / "data"


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
) -> Campaign:
    """Write config.toml into ``folder``, open the campaign and store ``sheets`` as approved.

    ``crafts`` are vehicle and ship sheets (the shape of data/demo/vehicles.toml), with an
    optional ``owner`` and ``approved`` like character sheets.
    """
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    lines = [
        "[campaign]",
        'name = "Test campaign"',
        'data_dir = "data"',
        f'templates_dir = "{PACKAGE_TEMPLATES.as_posix()}"',
        f'races = "{(REPO_DATA / "races.toml").as_posix()}"',
        f'scale = "{(REPO_DATA / "scale.toml").as_posix()}"',
        "gms = [" + ", ".join(_toml(name) for name in gms) + "]",
        "[rulings]",
        *(f"{key} = {_toml(value)}" for key, value in (rulings or {}).items()),
    ]
    (folder / "config.toml").write_text("\n".join(lines) + "\n" + extra_config, encoding="utf-8")
    campaign = Campaign(load_config(folder / "config.toml"), Secret(secret, "test"))
    table = campaign.store.table("characters")
    for record in sheets:
        fields = {k: v for k, v in record.items() if k not in ("owner", "approved")}
        character = stepped.character_from_record(fields)
        owner = (owners or {}).get(character.name, record.get("owner"))
        table.put(
            character_key(character.name),
            character_entry(character, owner, bool(record.get("approved", True))),
        )
    for record in crafts:
        fields = {k: v for k, v in record.items() if k not in ("owner", "approved")}
        craft = vehicles.vehicle_from_record(fields)
        approved = bool(record.get("approved", True))
        entry = store_entry(
            craft.name, record.get("owner"), approved, vehicles.vehicle_to_record(craft)
        )
        campaign.store.table("vehicles").put(character_key(craft.name), entry)
    campaign.store.flush()
    return campaign


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
