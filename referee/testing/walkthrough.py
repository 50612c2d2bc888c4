"""The shell commands and tags a page of documentation shows, read out for a test to run.

The README and the pages under ``docs/`` show a reader what to type: ``.venv/bin/referee
...`` lines in ``sh`` blocks, and tags such as ``[[roll 2d6+3]]`` in the text. The tests
run the first and read the second, so an example cannot drift from the code.

>>> page = '''Try it:
...
... ```sh
... .venv/bin/referee roll "[[roll 2d6]]"   # a comment
... ```
...
... A GM writes `[[end encounter]]`, a player `[[next]]`.
... '''
>>> shell_commands(page)
[['roll', '[[roll 2d6]]']]
>>> page_tags(page)
['end encounter', 'next']
"""

from __future__ import annotations

import re
import shlex

REFEREE = ".venv/bin/referee "  # how the pages write the command (after the first install)

_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)
_FENCED = re.compile(r"^(`{3,}).*?^\1", re.DOTALL | re.MULTILINE)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_TAG = re.compile(r"\[\[(.+?)\]\](?!\])")


def shell_commands(markdown: str, command: str = REFEREE) -> list[list[str]]:
    """The arguments of every ``command`` line of the page's ``sh`` blocks, in order.

    Whatever stands before the command on its line (``REFEREE_SECRET=... ``) is left out,
    and so is a ``#`` comment after it.
    """
    return [
        shlex.split(line.split(command, 1)[1], comments=True)
        for block in _SH_BLOCK.findall(markdown)
        for line in block.splitlines()
        if command in line
    ]


def page_tags(markdown: str) -> list[str]:
    """The text of every tag the page shows in inline code (``[[roll 2d6]]`` -> ``roll 2d6``).

    Fenced blocks (sheets, TOML, shell lines) are left out: a sheet's ``[[apply]]`` is the
    post around it, a TOML ``[[vehicle]]`` no tag, and a shell line is run, not read.
    """
    prose = _FENCED.sub("", markdown)
    return [tag for span in _CODE_SPAN.findall(prose) for tag in _TAG.findall(span)]
