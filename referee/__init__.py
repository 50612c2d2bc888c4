"""referee: a play-by-post referee for tabletop role-playing games on Reddit.

The flow is parse → resolve → render → deliver, one stage per module:

* :mod:`referee.tags` turns a post's text into roll requests;
* :mod:`referee.systems` resolves requests into verdicts under a dice system;
* :mod:`referee.render` writes verdicts as Reddit Markdown through Jinja2 templates;
* :mod:`referee.forum` reads threads and delivers replies;
* :mod:`referee.store` persists characters, the roll ledger and processed posts;
* :mod:`referee.worker` schedules the live bot.
"""

__version__ = "0.1.0"
