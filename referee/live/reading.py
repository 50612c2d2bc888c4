"""The worker reading Reddit: listings, watched threads, the inbox and the edit sweep.

New posts are refereed in reading order as they are read; a GM's private message
is rolled in secret; an edited post is refereed again for its note."""

from __future__ import annotations

import logging
from itertools import islice

from referee.base.posts import Post, reading_order
from referee.live.delivery import DeliversReplies
from referee.live.parts import (
    BACKFILL_THREADS,
    EDIT_SWEEP,
    PRIVATE_REFUSAL,
    CycleReport,
    CycleStopped,
    Delivery,
    Task,
    post_rank,
)
from referee.live.reddit import Failure, ForumError
from referee.read.tags import find_tags
from referee.resolve.pace_verbs import PRIVATE_VERBS

log = logging.getLogger(__name__)


class ReadsReddit(DeliversReplies):
    """The worker reading Reddit: listings, watched threads, the inbox and the edit sweep."""

    listed_newest: str | None = None  # the newest post the last listing read, anyone's

    def _sources(self, task: Task) -> list[tuple[str, str]]:
        """(kind, key) pairs a read task reads: listings "comments"/"new", or "thread"."""
        subs = "+".join(self.subreddits)
        if task is Task.NEW:
            return [("new", subs)] if self.subreddits else []
        listing = [("comments", subs)] if self.subreddits else []
        return listing + [("thread", thread) for thread in self.threads]

    def _cursor_key(self, kind: str, key: str) -> str:
        return f"cursor:{kind}:{key.lower()}"

    def _read(self, task: Task, report: CycleReport) -> None:
        fresh: dict[str, Post] = {}
        older: dict[str, Post] = {}
        cursors: dict[str, str] = {}
        sources = self._sources(task)
        index = 0
        while index < len(sources):
            kind, key = sources[index]
            index += 1
            report.sources.append(kind)
            cursor_key = self._cursor_key(kind, key)
            cursor = (self.state.get(cursor_key) or {}).get("newest")
            try:
                if kind == "thread":
                    new, old = self._read_thread(key, cursor)
                else:
                    new, old, gap = self._read_listing(kind, cursor)
                    if gap and kind == "comments":
                        new += self._backfill(cursor, new + old)
                    elif gap:
                        log.warning(
                            "event=gap source=%s cursor=%s: submissions older than the "
                            "listing reaches are not read",
                            kind,
                            cursor,
                        )
            except ForumError as error:
                if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                    log.warning(
                        "event=source_skipped source=%s:%s failure=%s reason=%r",
                        kind,
                        key,
                        error.failure.value,
                        error.message,
                    )
                    continue
                raise CycleStopped(error) from error
            report.seen += len(new) + len(old)
            for post in new:
                fresh.setdefault(post.fullname, post)
            for post in old:
                older.setdefault(post.fullname, post)
            comments = [p.fullname for p in new if p.fullname.startswith("t1_")]
            if kind == "thread" and (cursor is None or comments):
                cursors[cursor_key] = max(comments, key=post_rank) if comments else key
            elif new or (kind != "thread" and self.listed_newest):
                listed = [p.fullname for p in new] + [self.listed_newest or ""]
                cursors[cursor_key] = max(filter(None, listed), key=post_rank)
            if kind == "comments" and ("new", key) not in sources and self._unread_thread(new):
                # A thread newer than any submission read: read it first, in order.
                sources.append(("new", key))
                self.cadences[Task.NEW].last = self.clock()
        edited = [post for name, post in older.items() if name not in fresh]
        self._take_read(sorted(fresh.values(), key=reading_order), edited, cursors, report)
        # Records, ledger rows and cursors land together. No fsync: lost to a power cut,
        # they are read and rolled again with the same dice; the intent's fsync before
        # any reply makes them durable first.
        self.store.flush(sync=False)

    def _take_read(
        self, fresh: list[Post], older: list[Post], cursors: dict[str, str], report: CycleReport
    ) -> None:
        """Referee a read's new posts (in reading order), look at its older ones for
        edits, then move its cursors on (every new post is older than they are)."""
        for post in fresh:
            self._referee_new(post, report)
        for post in older:
            self._check_edit(post)
        for cursor_key, newest in cursors.items():
            self.state.put(cursor_key, {"newest": newest})

    def _unread_thread(self, comments: list[Post]) -> bool:
        """Whether a comment is in a thread newer than the new-submissions listing's cursor."""
        if Task.NEW not in self.cadences:
            return False
        key = self._cursor_key("new", "+".join(self.subreddits))
        cursor = (self.state.get(key) or {}).get("newest")
        threads = [p.thread for p in comments if p.thread.startswith("t3_")]
        return any(cursor is None or post_rank(t) > post_rank(cursor) for t in threads)

    def owns(self, post: Post) -> bool:
        """Whether a post of the subreddits' listing is in one of this campaign's threads:
        listed, or titled with its tag and listed by no other campaign (a thread listed
        by id goes to the campaign listing it), or (claiming the whole subreddits) claimed
        by no other campaign."""
        title = post.title.casefold()
        if self.claimed is not None:
            tagged = bool(self.title_tag) and title.startswith(self.title_tag)
            return post.thread in self.claimed or (tagged and post.thread not in self.excluded)
        return post.thread not in self.excluded and not (
            title and title.startswith(self.excluded_tags)
        )

    def _is_new(self, post: Post, cursor: str | None) -> bool:
        if cursor is None:
            return True
        if post.fullname[:2] != cursor[:2]:
            return post.fullname.startswith("t1_")  # comments after a thread's submission
        return post_rank(post.fullname) > post_rank(cursor)

    def _read_listing(self, kind: str, cursor: str | None) -> tuple[list[Post], list[Post], bool]:
        """New and already-seen posts of a listing, and whether a gap lies beyond its reach."""
        new: list[Post] = []
        old: list[Post] = []
        after: str | None = None
        read = 0
        self.listed_newest = None
        while True:
            page = self._call(self.forum.listing, kind, self.subreddits, after)
            read += len(page.posts)
            reached = False
            for post in page.posts:
                fresh = self._is_new(post, cursor)
                reached = reached or not fresh
                if fresh and (
                    self.listed_newest is None
                    or post_rank(post.fullname) > post_rank(self.listed_newest)
                ):
                    self.listed_newest = post.fullname  # another campaign's, maybe: read
                if self.owns(post):
                    (new if fresh else old).append(post)
            if reached or page.after is None:
                return new, old, False
            if read >= self.listing_reach:
                return new, old, cursor is not None
            after = page.after

    def _read_thread(self, thread: str, cursor: str | None) -> tuple[list[Post], list[Post]]:
        posts = self._call(self.forum.thread, thread)
        new = [p for p in posts if self._is_new(p, cursor)]
        old = [p for p in posts if not self._is_new(p, cursor)]
        return new, old

    def _backfill(self, cursor: str | None, listed: list[Post]) -> list[Post]:
        """Comments newer than ``cursor`` that the listing no longer reaches, thread by thread."""
        threads: dict[str, None] = {}
        for post in sorted(listed, key=lambda p: -post_rank(p.fullname)):
            threads.setdefault(post.thread)
        for fullname in islice(self.posts.newest(), BACKFILL_THREADS * 20):
            if fullname.startswith(("t1_", "t3_")):  # not a message, nor the shell's
                threads.setdefault(str((self.posts.get(fullname) or {}).get("thread")))
            if len(threads) >= BACKFILL_THREADS:
                break
        for thread in (*self.threads, *sorted(self.claimed or ())):
            threads.setdefault(thread)
        found: list[Post] = []
        for thread in list(threads)[:BACKFILL_THREADS]:
            if not thread.startswith("t3_"):
                continue
            posts = self._call(self.forum.thread, thread)
            found += [p for p in posts if p.fullname.startswith("t1_") and self._is_new(p, cursor)]
        log.warning(
            "event=backfill cursor=%s threads=%d comments=%d",
            cursor,
            min(len(threads), BACKFILL_THREADS),
            len(found),
        )
        return found

    def _referee_new(self, post: Post, report: CycleReport) -> bool:
        """Referee a new post; whether it was answered now (not before, nor untagged)."""
        if post.author.lower() == self.bot:
            return False
        log.info(
            "event=seen post=%s thread=%s author=%s edited=%s",
            post.fullname,
            post.thread,
            post.author,
            post.edited is not None,
        )
        outcome = self.referee.referee(post)
        if not outcome.replayed:
            self._note_post(post)  # after refereeing: [[catchup]] counts from the one before
        report.new_posts += not outcome.replayed  # a thread read again holds the known ones
        self._amend(outcome.amended)
        if not outcome.has_reply:
            return False
        record = self.posts.get(post.fullname)
        if record is not None and "delivery" in record and outcome.note_added:
            self._amend((post.fullname,))  # seen again deleted (a thread read): say so
            return False
        if record is None or "delivery" in record:
            return False
        report.refereed += 1
        report.tags += outcome.tags
        report.refusals += outcome.problems
        report.errors += int(outcome.failed)
        # A post refereed before without the worker (by `referee batch`) may have a reply.
        # Written before the store was restored, it may have been answered since the backup.
        look = outcome.replayed or post.created <= self._restored_at
        state = Delivery.SENDING if look else Delivery.PENDING
        self._set(post.fullname, record, {"state": state.value, "attempts": 0})
        log.info(
            "event=refereed post=%s tags=%d problems=%d failed=%s state=%s",
            post.fullname,
            outcome.tags,
            outcome.problems,
            outcome.failed,
            state.value,
        )
        return True

    def _read_inbox(self, report: CycleReport) -> None:
        """Take in the unread private messages, then mark the inbox read."""
        report.sources.append("inbox")
        try:
            unread = self._call(self.forum.unread)
        except ForumError as error:
            if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                log.warning("event=inbox_unreadable failure=%s", error.failure.value)
                return
            raise CycleStopped(error) from error
        for message in sorted(unread.messages, key=lambda m: post_rank(m.fullname)):
            if message.author.lower() != self.bot and message.fullname not in self.posts:
                self._take_message(message, report)
        self.store.flush()  # every message's record and intent, durable before it is marked read
        read = [m.fullname for m in unread.messages] + list(unread.others)
        if not read:
            return
        try:
            self._call(self.forum.mark_read, read)
        except ForumError as error:  # harmless: known messages are skipped next time
            log.warning("event=mark_read_failed items=%d reason=%r", len(read), error.message)

    def _take_message(self, message: Post, report: CycleReport) -> None:
        scan = find_tags(message.body, self.referee.limits)
        if not scan.tags and not scan.problem and not scan.near:
            log.info(
                "event=message_ignored post=%s author=%s: no tags", message.fullname, message.author
            )
            return
        gm = message.author.casefold() in self.referee.gms
        log.info("event=message post=%s author=%s gm=%s", message.fullname, message.author, gm)
        # A player may ask for his catch-up, reminders or away days in private too.
        own = bool(scan.tags) and all(
            tag.text.split(" ", 1)[0].casefold() in PRIVATE_VERBS for tag in scan.tags
        )
        if gm or own:
            outcome = self.referee.referee(message, private=True)
            self._amend(outcome.amended)
            report.tags += outcome.tags
            report.refusals += outcome.problems
            report.errors += int(outcome.failed)
            record = self.posts.get(message.fullname)
        else:
            report.refusals += 1
            record = {
                "post": message.fullname,
                "thread": message.thread,
                "author": message.author,
                "private": True,
                "refused": "not a GM",  # nothing was rolled
                "reply": PRIVATE_REFUSAL.format(campaign=self.referee.campaign.config.name),
            }
        if record is None:
            return
        report.messages += 1
        state = Delivery.SENDING if message.created <= self._restored_at else Delivery.PENDING
        self._set(message.fullname, record, {"state": state.value, "attempts": 0})
        refused = not (gm or own)
        log.info("event=refereed post=%s private=true refused=%s", message.fullname, refused)

    def _sweep_edits(self, report: CycleReport) -> None:
        """Re-read the newest refereed posts (one request) and note any whose tags changed.

        Listings show an edit only while the post is among the newest; this reaches back
        over the last ``EDIT_SWEEP`` refereed posts whatever their age.
        """
        report.sources.append("edits")
        recent: list[str] = []
        for fullname in self.posts.newest():
            record = self.posts.get(fullname) or {}
            if fullname.startswith(("t1_", "t3_")) and not record.get("gone"):
                recent.append(fullname)  # an edited one too: it may be deleted yet
            if len(recent) == EDIT_SWEEP:
                break
        if not recent:
            return
        try:
            posts = self._call(self.forum.info, recent)
        except ForumError as error:
            if error.failure in (Failure.FORBIDDEN, Failure.NOT_FOUND):
                log.warning("event=edit_sweep_unreadable failure=%s", error.failure.value)
                return
            raise CycleStopped(error) from error
        for post in posts:
            self._check_edit(post)

    def _check_edit(self, post: Post) -> None:
        if (post.edited is None and not post.gone) or post.fullname not in self.posts:
            return
        if post.author.lower() == self.bot:
            return
        outcome = self.referee.referee(post)
        self._amend(outcome.amended)  # a deleted post's note, on a repost already answered
        if not outcome.note_added:
            return
        record = self.posts.get(post.fullname)
        if record is None:
            return
        delivery = dict(record.get("delivery") or {})
        delivery["edit_pending"] = True
        self._set(post.fullname, record, delivery)
        log.info("event=edit_seen post=%s note=added", post.fullname)
