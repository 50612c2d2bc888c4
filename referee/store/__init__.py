"""Persistence: the campaign's store on disk, its journal, the roll ledger and migration.

* :mod:`~referee.store.store`: the store (a small TinyDB file of sheets beside an
  append-only journal), its tables and its savepoints;
* :mod:`~referee.store.journal`, :mod:`~referee.store.tinyfile`: the two files;
* :mod:`~referee.store.ledger`: the hash-chained roll ledger players verify;
* :mod:`~referee.store.changes`: one tag's writes, kept if it resolves, undone if not;
* :mod:`~referee.store.records`: what the campaign remembers of each roll;
* :mod:`~referee.store.migrate`: the one-time move from the old single-file store.

May import: :mod:`referee.base` (and the standard library, TinyDB, orjson). Nothing here
knows a tag, a verb or a dice system.
"""
