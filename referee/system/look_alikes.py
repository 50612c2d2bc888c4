"""Refusing a new name that shows like one already in play: :func:`refuse_look_alike`.

A name is in play when a character, an application or one of the system's named tables
(crafts) holds it. Two names look alike when their confusable skeletons match
(:func:`referee.base.names.look_alike_key`, Unicode TS #39): ``Kаra Venn`` with a
Cyrillic ``а`` beside ``Kara Venn``, ``0rla`` beside ``Orla``. ``[[apply]]``, ``[[npc]]``
and ``[[rename]]`` refuse such a name, naming the one it imitates, unless that one is
known to the GMs only and the answer may be read by others: then it is "a name already
in play", unnamed. A name whose letters mix alphabets not written together is refused
too (:func:`referee.base.names.mixed_scripts`): it imitates even before its original
enters play.

May import: :mod:`referee.base`, :mod:`referee.store` and :mod:`referee.system.interface`.
"""

from __future__ import annotations

from referee.base.errors import Forbidden
from referee.base.names import look_alike_key, mixed_scripts
from referee.store.entries import character_key
from referee.system.interface import Context

__all__ = ["refuse_look_alike"]


def refuse_look_alike(context: Context, name: str, renaming: str = "") -> None:
    """Forbidden if ``name`` looks like a name in play other than its own (or ``renaming``'s).

    The same name (one key) is not a look-alike: whether it may be taken again is the
    caller's to say (a player's own application, say).
    """
    own = {character_key(name), character_key(renaming) if renaming else ""}
    wanted = look_alike_key(name)
    tables = ("characters", "applications", *getattr(context.system, "named_tables", ()))
    for table in tables:
        for key, record in context.table(table).items():
            shown = str(record.get("name", key))
            if key in own or look_alike_key(shown) != wanted:
                continue
            if table == "characters" and not context.roster.may_name(key):
                raise Forbidden(
                    f"{name} looks like a name already in play; choose a name that "
                    "shows differently."
                )
            raise Forbidden(
                f"{name} looks like {shown}, a name already in play (the same letters "
                "to the eye); choose a name that shows differently."
            )
    scripts = mixed_scripts(name)
    if scripts:
        raise Forbidden(
            f"{name} mixes {' and '.join(scripts)} letters, which pass for one another; "
            "write the name in one alphabet."
        )
