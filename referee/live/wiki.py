"""The worker publishing the roster: the public wiki page and the GMs' page."""

from __future__ import annotations

import logging

from referee.live.parts import (
    GM_PAGE_PLACEHOLDER,
    ROSTER_GAP,
    WIKI_GIVE_UP,
    WIKI_REFUSED,
    WIKI_RETRY,
    CycleReport,
    WorkerParts,
    iso_time,
)
from referee.live.reddit import Failure, ForumError
from referee.render.roster import RosterRenderer, digest
from referee.resolve.lookup import pending_applications
from referee.resolve.roster import fights, roster_page

log = logging.getLogger(__name__)


class PublishesRoster(WorkerParts):
    """The worker publishing the roster: the public wiki page and the GMs' page."""

    def _publish_roster(self, report: CycleReport) -> None:
        """Edit the roster wiki pages if their text changed: the GMs' page, then the public one."""
        if not self._roster_due or (self._wiki_off and self._gm_wiki_off):
            return
        if not self.subreddits:
            log.warning("event=roster_off: a wiki page needs a subreddit in [reddit] subreddits")
            self._wiki_off = self._gm_wiki_off = True
            return
        if not self._publish_gm_page(report):  # a passing failure: both pages stay due
            self._roster_retry_at = self.clock() + self.pace.idle
            return
        if self._wiki_off:
            self._roster_due = False
            return
        subreddit, page = self.subreddits[0], self.config.wiki_page
        try:
            content = self._render_roster()
        except Exception:  # a bug in the roster must not stop the replies
            log.exception("event=roster_off reason='cannot render': not trying again until restart")
            self._wiki_off = True
            return
        sha256 = digest(f"{subreddit.lower()}/{page}\n{content}")
        if (self.state.get("wiki") or {}).get("sha256") == sha256:
            self._roster_due = False
            return
        try:
            self._call(self.forum.edit_wiki, subreddit, page, content, "roster changed")
        except ForumError as error:
            if error.failure in WIKI_REFUSED:
                self._roster_retry_at = self.clock() + WIKI_RETRY
                if not self._wiki_refused:  # once a run: the log is not to fill up with it
                    log.warning(
                        "event=roster_refused subreddit=%s page=%s failure=%s reason=%r: make "
                        "the bot a moderator or wiki contributor there; trying again every "
                        "%.0f s (quietly) and as soon as it is a moderator",
                        subreddit,
                        page,
                        error.failure.value,
                        error.message,
                        WIKI_RETRY,
                    )
                    self._tell_wiki(page, f"{error.failure.value}: {error.message}")
                else:
                    log.info("event=roster_still_refused failure=%s", error.failure.value)
                self._wiki_refused = True
            else:  # throttled, 5xx or no answer: the page stays due, the next poll
                self._roster_retry_at = self.clock() + self.pace.interval
                log.warning("event=roster_failed failure=%s", error.failure.value)
            return
        self.state.put(
            "wiki",
            {"sha256": sha256, "subreddit": subreddit, "page": page, "at": iso_time(self.clock())},
        )
        self.store.flush(sync=False)
        self._roster_due = False
        # The next change waits a little, so a lively game's changes share an edit.
        self._roster_retry_at = self.clock() + ROSTER_GAP
        report.roster_published = True
        log.info(
            "event=roster_published subreddit=%s page=%s%s",
            subreddit,
            page,
            " after_refusal=true" if self._wiki_refused else "",
        )
        self._wiki_refused = False

    def _publish_gm_page(self, report: CycleReport) -> bool:
        """Publish the GMs' roster on its moderators-only page; False on a passing failure.

        The page is made moderators-only (PRAW's wiki settings, permlevel 2) before
        anything but a placeholder is written there, and checked to be so; if the bot may
        not set that, one clear warning says why and the GMs' roster is never written.
        """
        if self._gm_wiki_off:
            return True
        subreddit, page = self.subreddits[0], self.config.gm_wiki_page
        try:
            content = self._render_roster(gm=True)
        except Exception:  # a bug in the roster must not stop the replies
            log.exception("event=gm_roster_off reason='cannot render': not trying until restart")
            self._gm_wiki_off = True
            return True
        sha256 = digest(f"{subreddit.lower()}/{page}\n{content}")
        state = self.state.get("gm_wiki") or {}
        protected = state.get("protected") == f"{subreddit.lower()}/{page}"
        if protected and state.get("sha256") == sha256:
            return True
        try:
            if not protected:
                self._call(self.forum.edit_wiki, subreddit, page, GM_PAGE_PLACEHOLDER, "GMs' page")
                level = self._call(self.forum.protect_wiki, subreddit, page)
                if level != 2:
                    raise ForumError(Failure.FORBIDDEN, f"the page's permlevel stayed {level}")
                state = {"protected": f"{subreddit.lower()}/{page}"}
                self.state.put("gm_wiki", state)
            self._call(self.forum.edit_wiki, subreddit, page, content, "roster changed")
        except ForumError as error:
            if error.failure not in WIKI_GIVE_UP:
                log.warning("event=gm_roster_failed failure=%s", error.failure.value)
                return False
            self._gm_wiki_off = True
            log.warning(
                "event=gm_roster_off subreddit=%s page=%s failure=%s reason=%r: the GMs' "
                "roster holds what players must not see, so it is published only on a page "
                "readable by moderators alone, and the bot could not make %s so. Make the "
                "bot a moderator of r/%s with wiki permission, then restart it; until then "
                "GMs get the full roster by sending the bot [[roster]] in a private message",
                subreddit,
                page,
                error.failure.value,
                error.message,
                page,
                subreddit,
            )
            self._tell_wiki(
                page, f"{error.failure.value}: {error.message}; the GMs' page stays unwritten"
            )
            return True
        self.state.put("gm_wiki", {**state, "sha256": sha256, "at": iso_time(self.clock())})
        self.store.flush(sync=False)
        report.roster_published = True
        log.info("event=gm_roster_published subreddit=%s page=%s", subreddit, page)
        return True

    def _render_roster(self, gm: bool = False) -> str:
        campaign = self.referee.campaign
        if self._roster_renderer is None:
            self._roster_renderer = RosterRenderer(campaign.config.templates_dir, campaign.system)
        applications = (
            pending_applications(self.store.table("applications"), self.posts) if gm else ()
        )
        page = roster_page(
            campaign.system,
            campaign.config.name,
            self.store.table,
            gm=gm,
            npc_stats=campaign.config.npc_stats,
            rules=campaign.rules,
            applications=applications,
        )
        return self._roster_renderer.render(page, fights(self.store))
