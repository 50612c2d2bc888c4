"""One post through parse → resolve → render, recorded exactly once.

:class:`Referee` is what both ``referee batch`` and the live worker run. For each post
it finds the tags, resolves each with dice derived from (campaign secret, post, tag
index), renders one reply and records the rolls and the post. A post it has seen
before is never resolved again: the stored reply stands, and if the post's tags were
edited since, the reply says so.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from referee.base.effort import metered
from referee.base.limits import DEFAULT_LIMITS, Limits
from referee.base.names import name_key
from referee.base.posts import Post, post_link
from referee.pipeline import gone
from referee.pipeline.campaign import Campaign
from referee.pipeline.failures import FAILURE_REPLY, FailureLog, body_digest, describe
from referee.pipeline.session import Session
from referee.pipeline.tag import outcome_summary, undo_log, verdict_for
from referee.read.tags import Tag, TagScan, find_tags, near_miss_problems
from referee.render.renderer import Renderer
from referee.resolve import tracker_verbs
from referee.resolve.dispatch import verbs_for
from referee.resolve.tracker import Combatant
from referee.resolve.verdicts import Reply, Verdict
from referee.store.ledger import dice_for, make_row, new_salt, roll_id
from referee.store.records import LOOKUP_KINDS, names_in, roll_entry
from referee.system import Context, ParseContext

log = logging.getLogger(__name__)

EDITED_NOTE = (
    "This post was edited after its rolls were made. The original results above stand; "
    "changed or added tags are not rolled. To roll again, write a new reply."
)
GONE_NOTE = (
    "The post this answers was {kind} {by} after its rolls were made. The results above "
    "stand; the ledger keeps them, and records the {kind} post as {rid}."
)


@dataclass(frozen=True)
class Outcome:
    """What refereeing one post did."""

    post: Post
    text: str  # the reply's Markdown; empty when the post has no tags
    tags: int
    problems: int  # tags that could not be resolved
    new_rolls: int  # ledger rows added by this call
    replayed: bool = False  # the post was refereed before; ``text`` is the stored reply
    edited: bool = False  # the post's tags changed after they were resolved
    note_added: bool = False  # this call added a note (edited, or failed) to the stored reply
    failed: bool = False  # the referee could not handle the post; see referee.pipeline.failures
    amended: tuple[str, ...] = ()  # other posts whose stored reply this post changed (a void)

    @property
    def has_reply(self) -> bool:
        return bool(self.text)


def _digest(text: str) -> str:
    return body_digest(text)


def _tags_digest(tags: tuple[Tag, ...]) -> str:
    joined = "\x1f".join(tag.text for tag in tags)
    return hashlib.sha256(joined.encode()).hexdigest()


def _iso(seconds: float) -> str:
    """``seconds`` since the epoch as an ISO 8601 UTC time, to the second.

    A post asks for the time three times and a batch's posts share their seconds, so
    the last second's text is kept (not for a time that rounds up to the next second).
    """
    whole = math.floor(seconds)
    if whole != _last_iso[0] or seconds - whole >= 0.9999995:
        text = datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat(timespec="seconds")
        if seconds - whole >= 0.9999995:
            return text
        _last_iso[:] = [whole, text]
    return str(_last_iso[1])


_last_iso: list[Any] = [None, ""]  # the second _iso wrote last, and its text


class Referee:
    """Referees posts for one open campaign; the caller flushes the store."""

    def __init__(
        self,
        campaign: Campaign,
        renderer: Renderer | None = None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        clock: Callable[[], float] = time.time,
        gms: Iterable[str] | None = None,
    ) -> None:
        if campaign.secret is None:
            raise ValueError("a campaign opened without its secret cannot roll")
        self.campaign = campaign
        self.limits = limits
        self.clock = clock
        self.renderer = renderer or Renderer(
            campaign.config.templates_dir,
            campaign.config.name,
            campaign.published_commitment,
            limits,
            campaign.system,
        )
        # GMs: config.toml's list, plus whatever the caller knows (the subreddit's moderators).
        self.session = Session(campaign, (*campaign.config.gms, *(gms or ())), limits)
        self.roster = self.session.roster
        self.posts = campaign.store.posts
        self.failures = FailureLog(campaign.store)
        self.ledger = campaign.store.ledger

    @property
    def gms(self) -> frozenset[str]:
        """The casefolded usernames whose tags count as a GM's."""
        return self.session.gms

    @gms.setter
    def gms(self, names: Iterable[str]) -> None:  # the worker adds moderators as it reads them
        self.session.gms = frozenset(name.casefold() for name in names)

    def referee(self, post: Post, *, private: bool = False) -> Outcome:
        """Resolve a post's tags once; on later calls return what was said the first time.

        ``private`` marks a GM's secret roll (a private message): its record and ledger
        rows carry ``"private": true`` so a public view can hide what was rolled.

        Whatever goes wrong inside costs this post alone: its changes are undone, the
        failure is recorded (:mod:`referee.pipeline.failures`), the post is answered with
        ``FAILURE_REPLY`` and never refereed again by itself. It raises nothing.
        """
        seen = self.posts.get(post.fullname)
        if seen is None and "[" not in post.body and len(post.body) <= self.limits.max_post_chars:
            return Outcome(post, "", 0, 0, 0)  # no tag, nor half of one: nothing to answer
        failure = self.failures.get(post.fullname)
        if failure is not None and (
            failure.body_sha256 == _digest(post.body) or (seen or {}).get("failed")
        ):
            return self._replay_failure(post, seen)
        try:  # every search a post's text causes shares one step budget (referee.base.effort)
            with self.campaign.store.savepoint(), metered(self.limits.max_post_steps):
                return self._referee(post, seen, private)
        except Exception as error:  # one post's failure must never stop the others
            self.session.forget()  # its caches may hold what the savepoint undid
            return self._fail(post, seen, error, private)

    def _referee(self, post: Post, seen: dict[str, Any] | None, private: bool) -> Outcome:
        """The post down through the stages once (read, resolve, render) and recorded; a
        post seen before is answered from its record, never resolved again."""
        scan = find_tags(post.body, self.limits)  # stage 1: the tags
        if seen is not None:
            if seen.get("failed"):
                return self._replay_failure(post, seen)
            if post.gone or seen.get("gone"):  # its text is gone, never "edited"
                return self._gone(post, seen)
            if seen.get("application") and seen.get("body_sha256") != _digest(post.body):
                return self._resubmit(post, seen, scan.tags)
            return self._replay(post, seen, scan.tags)
        if not scan.tags and not scan.problem and not scan.near:
            return Outcome(post, "", 0, 0, 0)
        near = self._near_misses(post, scan.near)  # stage 1: the bracket-short tags
        if not scan.tags and not scan.problem and not near:
            return Outcome(post, "", 0, 0, 0)
        # A secret roll's dice take its row's salt too, so the revealed campaign secret
        # alone never gives them (referee.store.ledger.dice_for).
        salts = {tag.index: new_salt() for tag in scan.tags} if private else {}
        verdicts, names = self._resolve_all(post, scan.tags, private, salts)  # stage 2
        text = self._reply(post, scan, near, verdicts, names, private)  # stage 3
        return self._keep(post, scan, near, verdicts, names, text, private, salts)  # recorded

    def _reply(
        self,
        post: Post,
        scan: TagScan,
        near: tuple[str, ...],
        verdicts: tuple[Verdict, ...],
        names: tuple[list[str], ...],
        private: bool,
    ) -> str:
        """The post's reply: its verdicts, the notes on tags it could not read, the rolls of
        posts since deleted, and the conditions of the characters it concerned."""
        for verdict in verdicts:
            if verdict.internal_error:  # the GM reads it in `referee failures`
                self.failures.record_tag(
                    post, verdict.tag, verdict.internal_error, _iso(self.clock()), private=private
                )
        notes = (*near, scan.problem) if scan.problem else near
        notes = (*notes, *gone.notes_for(self.campaign.store, post.thread, names))
        conditions = self._conditions(post, verdicts, names, private)
        text = self.renderer.render(Reply(post.fullname, post.author, verdicts, notes, conditions))
        return text

    def _keep(
        self,
        post: Post,
        scan: TagScan,
        near: tuple[str, ...],
        verdicts: tuple[Verdict, ...],
        names: tuple[list[str], ...],
        text: str,
        private: bool,
        salts: dict[int, str],
    ) -> Outcome:
        """Record the post once: its ledger rows, its record (the reply, whom each roll
        concerned, how to undo it) and the outcome the caller reports."""
        summaries = [None if v.failed else outcome_summary(v) for v in verdicts]
        new_rolls = self._record(post, verdicts, names, summaries, private, salts)
        kept = [
            (v, n, summary)
            for v, n, summary in zip(verdicts, names, summaries, strict=True)
            if summary is not None
        ]
        undone = undo_log(verdicts)
        undo = {"undo": undone} if undone else {}
        self.posts.put(
            post.fullname,
            {
                **({"private": True} if private else {}),
                "post": post.fullname,
                "thread": post.thread,
                "author": post.author,
                "tags": [tag.text for tag in scan.tags],
                "created": post.created,
                "tags_sha256": _tags_digest(scan.tags),
                "roll_ids": [v.roll_id for v in verdicts if not v.failed],
                # Whom each roll concerned and what it gave: what [[history]] reads.
                "rolls": [roll_entry(v.roll_id, v.kind, n, s, v.result) for v, n, s in kept],
                # What each tag wrote, field by field: what [[void]] takes back out.
                **undo,
                "problems": sum(v.failed for v in verdicts) + len(near),
                "reply": text,
                "edited_note": False,
                # An application is the one post an edit may change: it submits a new version.
                "application": any(v.kind == "application" for v in verdicts),
                "body_sha256": _digest(post.body),
                "refereed_at": _iso(self.clock()),
            },
        )
        problems = sum(v.failed for v in verdicts) + len(near)
        log.info(
            "refereed post=%s author=%s tags=%d problems=%d rolls=%d",
            post.fullname,
            post.author,
            len(verdicts),
            problems,
            new_rolls,
        )
        amended = tuple(
            dict.fromkeys(key for v in verdicts for table, key, *_ in v.writes if table == "posts")
        )
        return Outcome(post, text, len(verdicts), problems, new_rolls, amended=amended)

    def _fail(
        self, post: Post, seen: dict[str, Any] | None, error: Exception, private: bool
    ) -> Outcome:
        """Record the failure of ``post`` and answer it once with FAILURE_REPLY."""
        log.error(
            "event=post_failed post=%s link=%s author=%s error=%s: its changes were undone; "
            "see `referee failures`",
            post.fullname,
            post_link(post),
            post.author,
            describe(error),
            exc_info=error,
        )
        notice = FAILURE_REPLY.format(post=post.fullname)
        now = _iso(self.clock())
        self.failures.record(post, error, now, private=private)
        if seen is not None:  # an edited application: the earlier reply stands, with a note
            text = str(seen.get("reply", "")).rstrip("\n") + "\n\n---\n\n" + notice
            self.posts.put(post.fullname, {**seen, "reply": text, "failed_at": now})
            return Outcome(post, text, 0, 0, 0, replayed=True, note_added=True, failed=True)
        self.posts.put(
            post.fullname,
            {
                **({"private": True} if private else {}),
                "post": post.fullname,
                "thread": post.thread,
                "author": post.author,
                "failed": True,  # nothing was rolled; the failures table says why
                "roll_ids": [],
                "problems": 0,
                "reply": notice,
                "edited_note": False,
                "application": False,
                "body_sha256": _digest(post.body),
                "refereed_at": now,
            },
        )
        return Outcome(post, notice, 0, 0, 0, failed=True)

    def _replay_failure(self, post: Post, seen: dict[str, Any] | None) -> Outcome:
        text = str((seen or {}).get("reply", ""))
        return Outcome(post, text, 0, 0, 0, replayed=True, failed=True)

    def _near_misses(self, post: Post, near: tuple[str, ...]) -> tuple[str, ...]:
        """Notes for the post's bracket-short tags that read as tags (see near_miss_problems)."""
        if not near:
            return ()
        context = self.session.context(post)
        parse_context = ParseContext(context.known_names, self.limits)
        return near_miss_problems(near, parse_context, verbs_for(context.system))

    def _resolve_all(
        self,
        post: Post,
        tags: tuple[Tag, ...],
        private: bool = False,
        salts: dict[int, str] | None = None,
    ) -> tuple[tuple[Verdict, ...], tuple[list[str], ...]]:
        """Each tag's verdict, and the names (keys) of the characters each concerned;
        ``salts``: a secret roll's, by tag index."""
        context = self.session.context(post, private)
        parse_context = ParseContext(context.known_names, self.limits)
        verdicts = []
        names = []
        for tag in tags:
            salt = (salts or {}).get(tag.index, "")
            verdict = self._resolve(post, tag, context, parse_context, salt)
            verdicts.append(verdict)
            names.append([] if verdict.failed else self._names(verdict, context))
        return tuple(verdicts), tuple(names)

    def _names(self, verdict: Verdict, context: Context) -> list[str]:
        """The characters a verdict concerned: named in its tag, or changed by it."""
        if verdict.kind in LOOKUP_KINDS:  # looked something up: no roll of anyone's
            return []
        roster = context.roster
        found = names_in(
            verdict.tag.text,
            roster.known_names,
            roster.resolve_first,
            roster.name_starts,
            roster.longest_name,
        )
        for table, key, _, after in verdict.writes:
            if table == "characters" and after is not None and key not in found:
                found.append(key)
        return found

    def _conditions(
        self,
        post: Post,
        verdicts: tuple[Verdict, ...],
        names: tuple[list[str], ...],
        private: bool,
    ) -> tuple[Combatant, ...]:
        """The thread's combatants with conditions that the post's verdicts concern.

        A tracker verdict shows the order with its conditions already, so it adds none.
        """
        concerned = dict.fromkeys(
            key
            for verdict, keys in zip(verdicts, names, strict=True)
            if verdict.kind != tracker_verbs.KIND
            for key in keys
        )
        if not concerned:
            return ()
        thread = tracker_verbs.load(self.session.context(post, private))
        if thread is None:
            return ()
        keyed = {name_key(c.name): c for c in thread.combatants if c.conditions}
        return tuple(keyed[key] for key in concerned if key in keyed)

    def _resubmit(self, post: Post, seen: dict[str, Any], tags: tuple[Tag, ...]) -> Outcome:
        """An edited application: its apply tags read the new sheet; nothing is re-rolled."""
        applies = tuple(tag for tag in tags if tag.text.split()[:1] == ["apply"])
        verdicts, _ = self._resolve_all(post, applies)
        text = self.renderer.render(Reply(post.fullname, post.author, verdicts))
        self.posts.put(
            post.fullname,
            {
                **seen,
                "reply": text,
                "body_sha256": _digest(post.body),
                "resubmitted_at": _iso(self.clock()),
            },
        )
        log.info("resubmitted application post=%s", post.fullname)
        problems = sum(v.failed for v in verdicts)
        return Outcome(
            post, text, len(verdicts), problems, 0, replayed=True, edited=True, note_added=True
        )

    def _gone(self, post: Post, seen: dict[str, Any]) -> Outcome:
        """A refereed post deleted or removed since: its rolls stand, and everyone sees it.

        The first time, a ledger row records the disappearance (appended; nothing is
        rewritten), the reply gains a note saying so, and the thread keeps a notice for
        the next verdict of each character the rolls concerned.
        """
        text = str(seen.get("reply", ""))
        tags, problems = len(seen.get("tags", [])), int(seen.get("problems", 0))
        if seen.get("gone") or not post.gone:
            return Outcome(post, text, tags, problems, 0, replayed=True)
        kind, author = post.gone, str(seen.get("author", post.author))
        rolls = [entry for entry in seen.get("rolls", ()) if isinstance(entry, dict)]
        rid = f"{post.id36}-{kind}"
        words = "; ".join(f"{entry['id']} ({entry.get('result', '')})" for entry in rolls)
        row = make_row(
            post=post.fullname,
            thread=str(seen.get("thread", post.thread)),
            author=author,
            tag_index=-1,  # no tag: it draws no dice
            tag="",
            system=self.campaign.system.name,
            system_version=self.campaign.system.version,
            kind=kind,
            draws=(),
            outcome={
                "rolls": list(seen.get("roll_ids", [])),
                "names": sorted({name for entry in rolls for name in entry.get("names", ())}),
                "note": f"{post.fullname} by u/{author} was {kind} after rolling {words or '-'}",
            },
            recorded=_iso(self.clock()),
        )
        row["roll_id"] = rid
        self.ledger.append(row)
        by = "by its author" if kind == "deleted" else "by a moderator"
        note = GONE_NOTE.format(kind=kind, by=by, rid=rid)
        text = text.rstrip("\n") + f"\n\n*{note}*\n"
        self.posts.put(
            post.fullname, {**seen, "reply": text, "gone": kind, "gone_seen_at": _iso(self.clock())}
        )
        thread = str(seen.get("thread", post.thread))
        amended = gone.keep_notices(
            self.campaign.store, self.posts, thread, seen, (kind, author), rolls
        )
        log.info("event=post_gone post=%s kind=%s rolls=%d", post.fullname, kind, len(rolls))
        return Outcome(
            post, text, tags, problems, 0, replayed=True, note_added=True, amended=amended
        )

    def _replay(self, post: Post, seen: dict[str, Any], tags: tuple[Tag, ...]) -> Outcome:
        unchanged = seen.get("tags_sha256") == _tags_digest(tags)
        text = str(seen["reply"])
        note_added = not unchanged and not seen.get("edited_note")
        if note_added:
            text = text.rstrip("\n") + f"\n\n*{EDITED_NOTE}*\n"
            self.posts.put(
                post.fullname,
                {**seen, "reply": text, "edited_note": True, "edited_seen_at": _iso(self.clock())},
            )
            log.info("edited post=%s: original results stand", post.fullname)
        edited = bool(seen.get("edited_note")) or not unchanged
        return Outcome(
            post,
            text,
            len(seen.get("tags", [])),
            int(seen.get("problems", 0)),  # the same refusals stand, so a re-run says so too
            0,
            replayed=True,
            edited=edited,
            note_added=note_added,
        )

    def _resolve(
        self, post: Post, tag: Tag, context: Context, parse_context: ParseContext, salt: str = ""
    ) -> Verdict:
        secret = self.campaign.secret.value  # type: ignore[union-attr]
        dice = dice_for(secret, post.fullname, tag.index, salt)
        return verdict_for(tag, roll_id(post.fullname, tag.index), context, parse_context, dice)

    def record_action(self, post: Post, kind: str, outcome: dict[str, Any]) -> str:
        """Put a GM's action that no tag made (a shell command) into the ledger; its roll id."""
        row = make_row(
            post=post.fullname,
            thread=post.thread,
            author=post.author,
            tag_index=0,
            tag=kind,
            system=self.campaign.system.name,
            system_version=self.campaign.system.version,
            kind=kind,
            draws=(),
            outcome=outcome,
            recorded=_iso(self.clock()),
        )
        return str(self.ledger.append(row)["roll_id"])

    def _record(
        self,
        post: Post,
        verdicts: tuple[Verdict, ...],
        names: tuple[list[str], ...],
        summaries: list[dict[str, Any] | None],
        private: bool = False,
        salts: dict[int, str] | None = None,
    ) -> int:
        added = 0
        recorded = _iso(self.clock())  # one moment for the post's rolls
        for verdict, concerned, summary in zip(verdicts, names, summaries, strict=True):
            if summary is None:  # a refused tag: nothing rolled
                continue
            outcome = dict(summary)  # the post's record keeps the summary without the names
            if concerned:
                outcome["names"] = concerned
            if private:  # sealed into the row's hash: a mark that cannot be added later
                outcome["private"] = True
            row = make_row(
                post=post.fullname,
                thread=post.thread,
                author=post.author,
                tag_index=verdict.tag.index,
                tag=verdict.tag.text,
                system=self.campaign.system.name,
                system_version=self.campaign.system.version,
                kind=verdict.kind,
                draws=verdict.draws,
                outcome=outcome,
                recorded=recorded,
                salt=(salts or {}).get(verdict.tag.index),  # the one its dice were drawn with
            )
            self.ledger.append(row)
            added += 1
        return added
