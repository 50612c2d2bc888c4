"""The registry of dice systems: one table of built-ins, plus installed plug-ins.

A campaign names its system in ``config.toml`` (``[campaign] system = "stepped"``).
:func:`load_system` finds it in :data:`BUILT_IN` or among the entry points of the
group ``referee.systems`` (``importlib.metadata``), which is how a third-party
package adds a system without touching referee::

    [project.entry-points."referee.systems"]
    mysystem = "my_package.system:SYSTEM"

Each entry names an object that follows :class:`referee.system.System`. Systems are
imported only when asked for, so a broken plug-in cannot stop another campaign, and
other folders under ``referee/systems/`` (rules engines not yet wired in) are not
systems until this table names them.

>>> "stepped" in installed_systems()
True
>>> load_system("stepped").name
'stepped'
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

from referee.base.errors import ConfigError

if TYPE_CHECKING:
    from referee.system.interface import System

GROUP = "referee.systems"

# name -> "module:attribute" of the System object; imported on first use.
BUILT_IN: dict[str, str] = {
    "stepped": "referee.systems.stepped.system:SYSTEM",
    "edge": "referee.systems.edge.system:SYSTEM",
    "pool": "referee.systems.pool.system:SYSTEM",
    "hits": "referee.systems.hits.system:SYSTEM",
    "trikus": "referee.systems.trikus.system:SYSTEM",
}


def _plugins() -> dict[str, str]:
    """Installed third-party systems: name -> "module:attribute" from their entry points."""
    return {entry.name: entry.value for entry in entry_points(group=GROUP)}


def installed_systems() -> dict[str, str]:
    """Every system a campaign may name, built-ins first: name -> where it is defined."""
    # A plug-in may not replace a built-in under the same name: the ledger records the name.
    plugins = {name: target for name, target in _plugins().items() if name not in BUILT_IN}
    return {**BUILT_IN, **plugins}


@cache
def load_system(name: str) -> System:
    """The system called ``name``; ConfigError listing the installed systems if there is none."""
    available = installed_systems()
    target = available.get(name)
    if target is None:
        raise ConfigError(
            f"system = {name!r} is not installed; the installed systems are "
            f"{', '.join(available)}. `referee systems` lists them with their verbs."
        )
    module_name, _, attribute = target.partition(":")
    try:
        system = getattr(import_module(module_name), attribute or "SYSTEM")
    except (ImportError, AttributeError) as error:
        raise ConfigError(
            f"The system {name!r} is installed ({target}) but cannot be loaded: {error}."
        ) from error
    if getattr(system, "name", None) != name:
        raise ConfigError(
            f"The entry point {name!r} ({target}) names a system called "
            f"{getattr(system, 'name', '?')!r}; the two must match."
        )
    return system
