"""The five built-in dice systems, one package each, written as any plug-in would be.

Each package exposes one :class:`~referee.system.System` value (``system.SYSTEM``); the
registry (:mod:`referee.system.registry`) names them by strings and imports one only when
a campaign asks for it, so no core module imports a system. The modules beside the
packages (``changes``, ``options``, ``validation``) are helpers the systems share.

May import: anything of referee but :mod:`referee.live` and :mod:`referee.cli`.
"""
