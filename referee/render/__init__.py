"""Stage 3, rendering: verdicts become Reddit Markdown through Jinja2 templates.

* :mod:`~referee.render.renderer`: replies from the verdict templates in ``templates/``
  (the core's and each system's own);
* :mod:`~referee.render.environment`: the sandbox every template renders in, its
  filters and its step budget;
* :mod:`~referee.render.roster`, :mod:`~referee.render.tracker_markdown`: the roster
  page and the tracker's pieces;
* :mod:`~referee.render.terminal`: replies made plain text for a terminal.

May import: :mod:`referee.resolve` (the verdict values), :mod:`referee.system`,
:mod:`referee.notation` and :mod:`referee.base`. A template never decides an outcome.
"""
