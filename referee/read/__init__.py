"""Stage 1, reading: a post's text becomes tags, and each tag a request.

* :mod:`~referee.read.tags`: find ``[[ ... ]]`` in a post's Markdown and read each through
  the verb table into a request (or a problem saying how to write it);
* :mod:`~referee.read.suggest`: what a tag starting with no verb probably meant;
* :mod:`~referee.read.sheets`: the code block of an ``[[apply]]`` post.

May import: :mod:`referee.system` (the verb interface), :mod:`referee.notation` and
:mod:`referee.base`. It resolves nothing and writes nothing.
"""
