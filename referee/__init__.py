"""referee: a play-by-post referee for tabletop role-playing games on Reddit.

The flow is parse → resolve → render → deliver, one stage per module:

* :mod:`referee.read.tags` turns a post's text into roll requests;
* :mod:`referee.systems` resolves requests into verdicts under a dice system;
* :mod:`referee.render.renderer` writes verdicts as Reddit Markdown through Jinja2 templates;
* :mod:`referee.base.posts` reads threads and delivers replies;
* :mod:`referee.store.store` persists characters, the roll ledger and processed posts;
* :mod:`referee.live.worker` schedules the live bot.
"""

__version__ = "0.1.0"
