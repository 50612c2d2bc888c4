"""The repository's campaign files as a fresh clone has them, copied for a test.

The README's demo, its shell examples and the local trial write a store, its ledger and
a campaign secret beside the shipped sheets (``data/demo``, ``data/demos/NAME``). A test
never reads those, and never writes in the repository: it copies the shipped files into
its own folder with :func:`copy_shipped`, which leaves behind every file a run makes
(:data:`GENERATED`, the names ``.gitignore`` keeps out of version control).

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     copy = copy_shipped(DATA / "demos" / "pool", Path(folder) / "pool")
...     sorted(path.name for path in copy.iterdir())
['characters.toml', 'config.toml', 'thread.json']
"""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # the repository's folder (an editable install)
DATA = REPO / "data"  # the shipped tables (races, scale, NPC templates) and demo campaigns

# What running a campaign adds to its folders: the store (``store.json``, its lock, its
# ledger ``store.ledger.jsonl`` and index ``store.index``, a torn tail's ``.torn-*``, a
# migration's ``.bak``), the secret that ``create_if_missing`` makes, and the local
# trial's address file.
GENERATED = ("store.*", "secret.txt", "local-reddit.json")


def copy_shipped(source: Path, target: Path) -> Path:
    """Copy the folder ``source`` to ``target`` (which must not exist), without what a run made.

    Returns ``target``. Whatever the demo or a trial left in ``source`` is not copied, so
    the copy is the campaign before its first run.
    """
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*GENERATED))
    return target


def copy_repository_campaign(into: Path) -> Path:
    """The repository's own campaign (``config.toml``, ``data/``, ``templates/``) in ``into``.

    It is the campaign the README's first commands run (``referee batch
    data/demo/thread.json`` in the repository's folder), as a fresh clone has it.
    Returns ``into``.
    """
    into.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "config.toml", into / "config.toml")
    copy_shipped(DATA, into / "data")
    if (REPO / "templates").is_dir():
        shutil.copytree(REPO / "templates", into / "templates")
    return into
