"""The one exception tree of referee.

Errors split by who must act on them::

    RefereeError
    ├── UserError              a player or GM caused it; .message is written for them
    │   ├── TagError           a roll tag that cannot be parsed (carries the right form)
    │   ├── RuleViolation      a legal tag that the rules refuse ("Kara is dead")
    │   ├── UnknownName        a character, weapon, technique or stat that does not exist
    │   │   └── NoSuchCharacter  a name no character (visible to the poster) has, nor starts
    │   └── Forbidden          the poster may not do this (not the owner, not a GM)
    │       └── ToldGMs        ... for a reason only the GMs may read (told them privately)
    └── OperatorError          the world or the set-up failed; .message is for the operator
        ├── ConfigError        config.toml, the secret or the campaign data is wrong
        └── StoreError         the store cannot be read or written

A ``UserError`` becomes a verdict line in the reply; an ``OperatorError`` stops the
command with exit code 2 (configuration) or is logged and retried by the worker.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error referee raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UserError(RefereeError):
    """Something a player or GM wrote is wrong; the message tells them how to fix it."""


class TagError(UserError):
    """A roll tag that cannot be parsed.

    ``usage`` is the right form of the verb, shown under the message.
    """

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage


class RuleViolation(UserError):
    """A well-formed request that the rules refuse, such as a dead character acting."""


class UnknownName(UserError):
    """A name that matches no character, weapon, technique or stat."""


class NoSuchCharacter(UnknownName):
    """No character has (or starts with) the name typed; ``name`` is what the post wrote.

    A system whose tags also name other things (stepped's vehicles) catches it to say
    what the name could have been instead.
    """

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class Forbidden(UserError):
    """The poster may not do this: not the character's owner, not a GM, not approved."""


class ToldGMs(Forbidden):
    """Refused for a reason only the GMs may know (a hidden NPC holds the name, say).

    ``.message`` is what the post's reply says, revealing nothing; ``gm_reason`` is the
    whole reason, which the pipeline sends the post's author (a GM) by private message.
    """

    def __init__(self, message: str, gm_reason: str) -> None:
        super().__init__(message)
        self.gm_reason = gm_reason


class OperatorError(RefereeError):
    """Something outside the players' hands failed; the message is for the operator."""


class ConfigError(OperatorError):
    """config.toml, the campaign secret or the campaign data is missing or wrong."""


class StoreError(OperatorError):
    """The campaign store cannot be read or written."""
