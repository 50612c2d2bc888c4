"""Tests for referee.base.posts: saved Reddit threads become posts in reading order."""

import json
from pathlib import Path

import pytest

from referee.base.errors import ConfigError
from referee.base.posts import posts_from_thread

DEMO = Path(__file__).resolve().parents[2] / "data" / "demo" / "thread.json"


def _thread(comments, submission_body="intro"):
    def listing(children):
        return {"kind": "Listing", "data": {"children": children, "after": None, "before": None}}

    submission = {
        "kind": "t3",
        "data": {
            "name": "t3_s",
            "author": "gm",
            "selftext": submission_body,
            "created_utc": 1.0,
            "edited": False,
            "subreddit": "pbp",
        },
    }
    return [listing([submission]), listing(comments)]


def _comment(cid, created, body="", replies=None, edited=False):
    return {
        "kind": "t1",
        "data": {
            "name": f"t1_{cid}",
            "author": "kara",
            "body": body,
            "created_utc": created,
            "edited": edited,
            "parent_id": "t3_s",
            "link_id": "t3_s",
            "replies": {"kind": "Listing", "data": {"children": replies}} if replies else "",
        },
    }


def test_nested_replies_are_flattened_in_the_order_written():
    """Replies nested under comments come out sorted by creation time, submission first."""
    document = _thread([_comment("b", 30, replies=[_comment("c", 20)]), _comment("a", 10)])
    thread = posts_from_thread(document)
    assert ["t3_s", "t1_a", "t1_c", "t1_b"] == [p.fullname for p in thread.posts]


def test_reddit_entities_are_unescaped_once():
    """Reddit's &gt; in a saved body becomes > so arrows and quotes read as typed."""
    thread = posts_from_thread(
        _thread([_comment("a", 5, "&gt; quote\n\n[[shoot A -&gt; B]] &amp;amp;")])
    )
    assert "> quote\n\n[[shoot A -> B]] &amp;" == thread.posts[1].body


def test_edited_timestamp_and_collapsed_comments_are_kept():
    """`edited` becomes a float, and 'load more' stubs are counted, not lost silently."""
    more = {"kind": "more", "data": {"count": 7, "children": ["x"] * 7}}
    thread = posts_from_thread(_thread([_comment("a", 5, edited=99.0), more]))
    assert (99.0, 7) == (thread.posts[1].edited, thread.collapsed)


@pytest.mark.parametrize(
    "document", [{}, [], [{"data": {}}], "text", [{"data": {"children": []}}, {}]]
)
def test_a_file_that_is_not_a_thread_says_how_to_save_one(document):
    """A wrong file gives a ConfigError that explains where a saved thread comes from."""
    with pytest.raises(ConfigError) as caught:
        posts_from_thread(document)
    assert ".json" in caught.value.message


def test_the_demo_thread_loads():
    """The bundled demo thread is a valid saved thread with the GM's submission first."""
    thread = posts_from_thread(json.loads(DEMO.read_text()))
    assert ("gm_talon", 23) == (thread.submission.author, len(thread.posts))


def test_a_lone_surrogate_in_a_saved_thread_becomes_a_replacement_character():
    """JSON's "\\ud800" reaches nothing behind the adapter: it reads as U+FFFD."""
    document = json.loads(json.dumps(_thread([_comment("a", 2.0, "[[roll d6 \ud800]]")])))
    thread = posts_from_thread(document)
    assert "[[roll d6 \ufffd]]" == thread.posts[1].body
    thread.posts[1].body.encode("utf-8")


def test_a_malformed_comment_costs_that_comment_not_the_thread():
    """A comment with an unreadable field is skipped; the rest of the thread loads."""
    bad = _comment("b", 3.0, "[[roll d6]]")
    bad["data"]["created_utc"] = "not a time"
    thread = posts_from_thread(_thread([_comment("a", 2.0, "[[roll d4]]"), bad, "junk"]))
    assert ["t3_s", "t1_a"] == [post.fullname for post in thread.posts]
