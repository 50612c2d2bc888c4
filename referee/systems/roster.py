"""Finding a character a tag names, for any system's verbs.

A name that is no approved character but an application still awaiting a GM's approval
is answered as such ("Nova Quill is not approved yet ..."), not as a name nobody knows,
whoever wrote the tag: a GM's verb on an applicant included.
"""

from __future__ import annotations

from typing import Any

from referee.base.errors import UnknownName
from referee.system import Context, require_control


def find_character(context: Context, name: str, doing: str = "take part in play") -> Any:
    """The character ``name`` means; Forbidden for an applicant, UnknownName for no one."""
    try:
        return context.roster.find(name)
    except UnknownName:
        require_control(context, name, doing)  # raises: Forbidden if ``name`` has applied
        raise
