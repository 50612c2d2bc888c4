"""Tests for referee.cli: the commands a GM runs, their output and exit codes."""

import json
from pathlib import Path

import pytest

from referee.cli import main
from referee.store.store import Store
from referee.testing.shipped import DATA, REPO, copy_shipped


@pytest.fixture
def demo(tmp_path, monkeypatch):
    """A copy of the demo campaign in a temporary folder, secret from the environment."""
    copy_shipped(DATA / "demo", tmp_path / "demo")
    (tmp_path / "config.toml").write_text(
        '[campaign]\nname = "Demo copy"\ndata_dir = "demo"\n'
        f'templates_dir = "{(REPO / "templates").as_posix()}"\n'
        f'races = "{(DATA / "races.toml").as_posix()}"\n'
        f'scale = "{(DATA / "scale.toml").as_posix()}"\n'
        '[secret]\nenv = "REFEREE_TEST_SECRET"\n'
    )
    monkeypatch.setenv("REFEREE_TEST_SECRET", "cli-test-secret")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_batch_on_the_demo_writes_replies_and_flags_the_malformed_tag(demo, capsys):
    """batch prints one reply per post with tags and exits 1 because one tag is malformed."""
    code = main(["batch", "demo/thread.json"])
    out, err = capsys.readouterr()
    assert (1, 22) == (code, out.count("## Reply to"))
    assert "tag(s) with problems" in err


def test_batch_twice_prints_the_same_replies(demo, capsys):
    """Running batch again on the same thread prints identical verdicts and adds no rolls."""
    main(["batch", "demo/thread.json", "--out", "first.md"])
    main(["batch", "demo/thread.json", "--out", "second.md"])
    err = capsys.readouterr().err
    assert (demo / "first.md").read_text() == (demo / "second.md").read_text()
    assert "0 new roll(s)" in err.splitlines()[-1]


def test_a_re_run_reports_the_same_problems_and_exit_code(demo, capsys):
    """The second batch of a thread says what the first said: same refusals, same exit code."""
    first = main(["batch", "demo/thread.json", "--out", "first.md"])
    first_summary = capsys.readouterr().err.splitlines()[-1]
    second = main(["batch", "demo/thread.json", "--out", "second.md"])
    second_summary = capsys.readouterr().err.splitlines()[-1]

    def problems(summary: str) -> str:
        return summary.rsplit(",", 1)[1]

    assert (first, problems(first_summary)) == (second, problems(second_summary))
    assert 1 == first


def test_batch_with_a_missing_file_is_a_usage_error(demo, capsys):
    """A wrong thread path exits 2 and says what file is wanted."""
    assert 2 == main(["batch", "nope.json"])
    assert "saved as JSON" in capsys.readouterr().err


def test_missing_secret_says_how_to_make_one(demo, capsys, monkeypatch):
    """Without a secret, batch exits 2 and explains how to create and publish one."""
    monkeypatch.delenv("REFEREE_TEST_SECRET")
    assert 2 == main(["batch", "demo/thread.json"])
    assert "secrets.token_hex" in capsys.readouterr().err


def test_bad_config_lists_every_problem(demo, capsys):
    """A config with two mistakes reports both, each with the fix."""
    (demo / "config.toml").write_text(
        '[campaign]\nsystem = "gurps"\ncolour = 1\n[rulings]\nties = "never"\n'
    )
    assert 2 == main(["characters"])
    err = capsys.readouterr().err
    assert ("gurps" in err, "colour" in err, "ties" in err) == (True, True, True)


def test_roll_from_the_shell_records_nothing(demo, capsys):
    """roll shows a verdict and leaves the ledger empty."""
    assert 0 == main(["roll", "[[roll Kara agility]]", "--seed", "7"])
    assert "Kara Venn" in capsys.readouterr().out
    with Store(demo / "demo" / "store.json") as store:
        assert 0 == len(store.ledger)


def test_roll_with_a_bad_tag_exits_one_with_the_right_form(demo, capsys):
    """A malformed tag from the shell exits 1 and shows the usage."""
    assert 1 == main(["roll", "[[shoot Kara]]"])
    assert "Write it as" in capsys.readouterr().out


def test_roll_with_given_dice_replays_them_in_order(demo, capsys):
    """--dice 6,2 makes Kara's agility d8 show 6 and her wild d6 2: a total of 6."""
    assert 0 == main(["roll", "[[roll Kara agility]]", "--dice", "6,2"])
    assert "Kara Venn agility d8:6 wild d6:~~2~~ = **6**" in capsys.readouterr().out


def test_roll_with_too_few_faces_says_which_die_is_missing(demo, capsys):
    """One face for a roll of two dice is a clear problem, not a traceback."""
    assert 1 == main(["roll", "[[roll Kara agility]]", "--dice", "6"])
    assert (
        "The tag needs a 2nd die \\(a d6\\) but only 1 face\\(s\\) were given"
        in capsys.readouterr().out
    )


def test_roll_with_a_face_the_die_cannot_show_is_refused(demo, capsys):
    """A 9 on the d8 it would feed is refused, naming the range."""
    assert 1 == main(["roll", "[[roll Kara agility]]", "--dice", "9,2"])
    assert "cannot come up on the d8 it feeds; give a face from 1 to 8" in (capsys.readouterr().out)


def test_roll_with_faces_that_are_not_numbers_is_a_usage_error(demo, capsys):
    """--dice three is refused by argparse with the right form."""
    with pytest.raises(SystemExit) as exited:
        main(["roll", "[[d6]]", "--dice", "three"])
    assert (2, True) == (exited.value.code, "like 3,8,7,10." in capsys.readouterr().err)


def test_help_lists_the_campaign_s_verbs_with_forms_and_examples(demo, capsys):
    """[[help]] from the shell shows every verb of stepped, then the core's."""
    assert 0 == main(["roll", "[[help]]"])
    out = capsys.readouterr().out
    assert ("| shoot |", "`[[shoot Kara -> Trooper 1 head with blaster]]`", "| apply |") == (
        "| shoot |" if "| shoot |" in out else out,
        "`[[shoot Kara -> Trooper 1 head with blaster]]`"
        if "`[[shoot Kara -> Trooper 1 head with blaster]]`" in out
        else out,
        "| apply |" if "| apply |" in out else out,
    )


def test_help_for_one_verb_shows_its_form_and_example(demo, capsys):
    """[[help shoot]] gives the one verb, its aliases, form and example."""
    assert 0 == main(["roll", "[[help fire]]"])
    out = capsys.readouterr().out
    assert out.startswith("**shoot** (fire, attack): a ranged attack")
    assert "* Example: `[[shoot Kara -> Trooper 1 head with blaster]]`" in out


def test_help_for_an_unknown_verb_suggests_the_closest(demo, capsys):
    """[[help shot]] says there is no such verb and names shoot."""
    assert 1 == main(["roll", "[[help shot]]"])
    assert "There is no verb 'shot'\\. Did you mean shoot?" in capsys.readouterr().out


def test_systems_lists_stepped_with_its_verbs(capsys):
    """referee systems needs no campaign and shows stepped's verbs with examples."""
    assert 0 == main(["systems"])
    out = capsys.readouterr().out
    assert ("stepped 1: stepped dice", "  cast ", "e.g. [[cast Kara Telekinesis]]") == (
        "stepped 1: stepped dice" if "stepped 1: stepped dice" in out else out,
        "  cast " if "  cast " in out else out,
        "e.g. [[cast Kara Telekinesis]]" if "e.g. [[cast Kara Telekinesis]]" in out else out,
    )


def test_characters_lists_the_roster(demo, capsys):
    """characters prints every character with state and dice."""
    assert 0 == main(["characters"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("Kara Venn", "Captain Rhoss", "Trooper 3"))


def test_verify_passes_then_catches_a_tampered_row(demo, capsys):
    """verify accepts the honest ledger and exits 1 once a die in the store is changed."""
    main(["batch", "demo/thread.json", "--out", "out.md"])
    assert 0 == main(["verify"])
    path = demo / "demo" / "store.ledger.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    number = next(n for n, line in enumerate(lines) if '"draws":[[' in line)
    row = json.loads(lines[number])
    row["draws"][0][1] = 1 if row["draws"][0][1] != 1 else 2
    lines[number] = json.dumps(row, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    capsys.readouterr()
    assert 1 == main(["verify"])
    assert "MISMATCH" in capsys.readouterr().out


def test_verify_catches_a_reply_changed_in_the_journal(demo, capsys):
    """A post record edited after it was committed fails verify, even with every die intact."""
    main(["batch", "demo/thread.json", "--out", "out.md"])
    path = demo / "demo" / "store.ledger.jsonl"
    text = path.read_text()
    start = text.index('"table":"posts"')
    reply = text.index('"reply":"', start) + len('"reply":"')
    path.write_text(text[:reply] + "X" + text[reply + 1 :])
    capsys.readouterr()
    assert 1 == main(["verify", "--chain-only"])
    assert "MISMATCH journal" in capsys.readouterr().out


SHEET = """name: Orla Vex
background: experienced
strength: 2
agility: 2
endurance: 3
perception: 2
weapon: blaster pistol, ranged, 2d6
"""


def test_import_adds_an_approved_character_and_records_it(demo, capsys):
    """import puts a sheet file on the roster, approved and owned, with a ledger row."""
    (demo / "orla.txt").write_text(SHEET)
    assert 0 == main(["import", "orla.txt", "--owner", "orla_player"])
    main(["characters"])
    out = capsys.readouterr().out
    assert ("Imported Orla Vex" in out, "orla_player" in out) == (True, True)
    with Store(demo / "demo" / "store.json") as store:
        assert ["import"] == [row["kind"] for row in store.ledger]


def test_import_refuses_a_sheet_that_breaks_the_rules_without_force(demo, capsys):
    """A sheet over budget is refused with the problem; --force imports it."""
    (demo / "big.txt").write_text(SHEET.replace("strength: 2", "strength: 3"))
    assert 1 == main(["import", "big.txt"])
    assert "--force" in capsys.readouterr().err
    assert 0 == main(["import", "big.txt", "--force"])


def test_approve_from_the_shell_decides_an_application(demo, capsys):
    """approve NAME approves a pending application with amendments, as a GM reply would."""
    from referee.base.posts import Post
    from referee.pipeline.campaign import Campaign
    from referee.pipeline.flow import Referee

    with Campaign.open(demo) as campaign:
        Referee(campaign).referee(
            Post("t1_app", "t3_t", "orla_player", f"[[apply]]\n\n```\n{SHEET}```\n", 1.0)
        )
    assert 0 == main(["approve", "Orla Vex", "--with", "named"])
    assert "Orla Vex is approved" in capsys.readouterr().out
    assert 1 == main(["approve", "Nobody"])


# Hostile posts

HOSTILE = [
    "[[roll d6]]",
    "[[apply]]\n\n```\nname: Orla\n"
    "strength: 99999999999999999999\narmour: 99999999999999999999\n```",
    "[[npc Bandit: str 99999999999999999999]] [[heal Kara ³]] [[npc \u200b: str 2]]",
    "[[roll d6 \ud800]]",
    "[[roll d8]]",
]


def _saved_thread(path: Path, bodies: list[str]) -> Path:
    comments = [
        {
            "kind": "t1",
            "data": {
                "name": f"t1_h{index}",
                "link_id": "t3_h",
                "parent_id": "t3_h",
                "author": "gm" if "npc" in body else "kara",
                "body": body,
                "created_utc": 10 + index,
            },
        }
        for index, body in enumerate(bodies)
    ]
    submission = {"kind": "t3", "data": {"name": "t3_h", "author": "gm", "selftext": ""}}
    path.write_text(
        json.dumps([{"data": {"children": [submission]}}, {"data": {"children": comments}}])
    )
    return path


def test_batch_answers_every_hostile_post_of_the_issue_with_a_problem(demo, capsys):
    """The examples of issue 18 are problems with clear messages, each post answered."""
    config = demo / "config.toml"
    config.write_text(config.read_text().replace("[campaign]\n", '[campaign]\ngms = ["gm"]\n'))
    thread = _saved_thread(demo / "hostile.json", HOSTILE)
    code = main(["batch", str(thread)])
    out = capsys.readouterr().out
    assert (1, 5, 0) == (code, out.count("## Reply to"), out.count("could not handle"))
    for expected in (
        "Line 2\\: Strength must be a whole number from -99 to 99",
        "Line 1\\: Strength must be a whole number from -99 to 99",
        "Write how many wounds to heal with the digits 0-9, not '³'",
        "shows nothing but invisible characters",
    ):
        assert expected in out


def test_batch_names_the_post_it_could_not_handle_and_exits_one(demo, capsys, monkeypatch):
    """A post that fails is answered with the notice, named on stderr, listed by
    `referee failures`, and retried with one command once the cause is gone."""
    from referee.render.renderer import Renderer

    render = Renderer.render

    def broken(self, reply):
        if reply.post_fullname == "t1_h1":
            raise RuntimeError("a bug in a template")
        return render(self, reply)

    monkeypatch.setattr(Renderer, "render", broken)
    thread = _saved_thread(demo / "thread.json", ["[[roll d6]]", "[[roll d4]]", "[[roll d8]]"])
    code = main(["batch", str(thread)])
    out, err = capsys.readouterr()
    assert (1, 3, 1) == (code, out.count("## Reply to"), out.count("could not handle"))
    assert "could not handle post t1_h1" in err
    assert 1 == main(["failures"])
    listed = capsys.readouterr().out
    assert "t1_h1" in listed and "RuntimeError: a bug in a template" in listed
    monkeypatch.setattr(Renderer, "render", render)  # the fix
    assert 0 == main(["failures", "--retry", "t1_h1"])
    assert "d4" in capsys.readouterr().out
    assert (0, "No failed posts.\n") == (main(["failures"]), capsys.readouterr().out)


def test_a_tag_that_crashes_is_listed_for_the_gm_and_forgotten_once_dealt_with(
    demo, capsys, monkeypatch
):
    """A bug inside one tag costs that tag: the post's other roll stands, `referee failures`
    lists the tag with its error, refuses to retry it in place, and forgets it on request."""
    from referee.resolve import dispatch as resolve

    resolve_request = resolve.resolve_request

    def broken(verb, request, context, dice):
        if getattr(request, "expression", None) is not None and "d7" in str(request.expression):
            raise RuntimeError("a bug in the d7")
        return resolve_request(verb, request, context, dice)

    monkeypatch.setattr("referee.pipeline.tag.resolve_request", broken)
    thread = _saved_thread(demo / "thread.json", ["[[roll d6]] [[roll d7]]"])
    code = main(["batch", str(thread)])
    out = capsys.readouterr().out
    assert (1, 1) == (code, out.count("internal error on this tag"))
    assert 1 == main(["failures"])
    listed = capsys.readouterr().out
    assert "t1_h0#2  tag 2 of the post" in listed and "[[roll d7]]" in listed
    assert "RuntimeError: a bug in the d7" in listed and "1 failed tag(s)" in listed
    assert 2 == main(["failures", "--retry", "t1_h0#2"])
    assert "write the tag again in a new reply" in capsys.readouterr().err
    assert 0 == main(["failures", "--forget", "t1_h0#2"])
    capsys.readouterr()
    assert (0, "No failed posts.\n") == (main(["failures"]), capsys.readouterr().out)


@pytest.mark.parametrize("tag", ["[[heal Kara ³]]", "[[roll d6 \udcff]]", "[[npc \u200b: str 2]]"])
def test_roll_from_the_shell_turns_hostile_tags_into_problems(demo, capsys, tag):
    """referee roll shows a problem (exit 1) for look-alike digits, undecodable bytes or
    an invisible name, never a traceback."""
    code = main(["roll", tag])
    assert (1, True) == (code, "not resolved" in capsys.readouterr().out)


NPC_SHEET = """name: Brute
kind: npc
tough: 2
strength: 3
agility: 2
endurance: 3
perception: 2
weapon: club, melee, +1
"""


def test_import_without_an_owner_takes_a_gm_npc_sheet_with_its_wound_track(demo, capsys):
    """A GM's NPC sheet may say kind and tough; a player's sheet with the same lines may not."""
    (demo / "brute.txt").write_text(NPC_SHEET)
    assert 2 == main(["import", "brute.txt", "--owner", "a_player", "--force"])
    refusal = capsys.readouterr()
    assert 0 == main(["import", "brute.txt", "--force"])
    main(["characters"])
    out = capsys.readouterr().out
    assert ("only a GM sets" in refusal.out + refusal.err, "Brute" in out, "0/2" in out) == (
        True,
        True,
        True,
    )


def _secret_roll(demo) -> None:
    """A GM's secret roll, recorded as the live bot records a private message."""
    from referee.base.posts import Post
    from referee.pipeline.campaign import Campaign
    from referee.pipeline.flow import Referee

    with Campaign.open(demo) as campaign:
        message = Post("t4_secret", "t4_secret", "gm", "[[roll 1d20+3]]", 2.0)
        Referee(campaign, gms=["gm"]).referee(message, private=True)


def test_history_streams_a_characters_rolls_with_links_and_marks(demo, capsys):
    """history Kara lists Kara's rolls with ids and links; --post narrows to one post."""
    main(["batch", "demo/thread.json", "--out", "out.md"])
    _secret_roll(demo)
    capsys.readouterr()
    assert 0 == main(["history", "Kara"])
    out = capsys.readouterr().out
    first_id = out.split()[0]
    assert "https://www.reddit.com/comments/" in out and "rolls of Kara in the ledger." in out
    assert 0 == main(["history", "--post", first_id.rpartition("-")[0]])
    one_post = capsys.readouterr().out
    assert first_id in one_post and one_post.count("\n    https://") <= out.count("\n    https://")
    assert 0 == main(["history", "--post", "t4_secret"])
    secret = capsys.readouterr().out
    assert ("secret-1  ", "u/gm [private]") == (
        "secret-1  " if "secret-1  " in secret else secret,
        "u/gm [private]" if "u/gm [private]" in secret else secret,
    )


def test_history_deleted_lists_nothing_when_no_post_was_deleted(demo, capsys):
    """history --deleted on a thread nobody deleted from says so."""
    main(["batch", "demo/thread.json", "--out", "out.md"])
    capsys.readouterr()
    assert 0 == main(["history", "--deleted"])
    assert "0 deleted or removed posts in the ledger." in capsys.readouterr().out


def test_applications_lists_the_pending_applications_with_links(demo, capsys):
    """applications shows each undecided application, its version and a link."""
    from referee.base.posts import Post
    from referee.pipeline.campaign import Campaign
    from referee.pipeline.flow import Referee

    with Campaign.open(demo) as campaign:
        body = "[[apply]]\n\n```\n" + SHEET + "```\n"
        Referee(campaign).referee(Post("t1_orla", "t3_apps", "orla_player", body, 1.0))
    assert 0 == main(["applications"])
    out = capsys.readouterr().out
    assert "Orla Vex  by u/orla_player  version 1: awaiting approval" in out
    assert "https://www.reddit.com/comments/apps/_/orla/" in out
    assert "1 application(s) awaiting a decision." in out


def test_verify_says_how_many_private_rows_it_checked(demo, capsys):
    """A secret roll's row is re-derived like the rest, and counted as private."""
    main(["batch", "demo/thread.json", "--out", "out.md"])
    _secret_roll(demo)
    capsys.readouterr()
    assert 0 == main(["verify"])
    assert "(1 of them private)" in capsys.readouterr().out


def test_batch_answers_a_tag_short_of_a_bracket(demo, capsys):
    """A batch replies to [[roll 2d6] with the right form and exits 1 for the problem."""
    thread = _saved_thread(demo / "bracket.json", ["Kara tries the lock: [[roll 2d6]"])
    code = main(["batch", str(thread)])
    out = capsys.readouterr().out
    assert (1, 1, True) == (
        code,
        out.count("## Reply to"),
        "write &#91;&#91;roll 2d6&#93;&#93; in a new reply" in out,
    )


def test_an_initiative_critical_failure_says_it_does_not_change_the_order(demo, capsys):
    """A 1 on Kara's perception die is labelled, and the line says the order goes by total."""
    assert 0 == main(
        ["roll", "[[init Kara, Trooper 2]]", "--dice", "1,1,5", "--format", "markdown"]
    )
    out = capsys.readouterr().out
    assert "(**critical failure**, for the GM to narrate: the order goes by the total)" in out


def test_help_for_one_verb_keeps_the_roll_id_out_of_its_list(demo, capsys):
    """[[help heal]]'s roll id line stands apart from the list above it (a blank line)."""
    assert 0 == main(["roll", "[[help heal]]", "--format", "markdown"])
    assert "* Example: `[[heal Kara]]`\n\n^(roll shell-1)" in capsys.readouterr().out


def test_roll_on_a_terminal_prints_plain_text(demo, capsys, monkeypatch):
    """On a terminal, a reply shows -> and : as typed, not Reddit's -&gt; and \\:."""
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert 1 == main(["roll", "[[shoot Kara -> Troper 1]]"])
    out = capsys.readouterr().out
    assert (True, False, False) == (
        "(“shoot Kara -> Troper 1”): No character is named 'Troper 1'." in out,
        "&gt;" in out,
        "\\:" in out,
    )


def test_roll_into_a_pipe_prints_markdown_and_format_text_overrides_it(demo, capsys):
    """Into a pipe a reply is Reddit's Markdown; --format text makes it plain all the same."""
    main(["roll", "[[shoot Kara -> Troper 1]]"])
    markdown = capsys.readouterr().out
    main(["roll", "[[shoot Kara -> Troper 1]]", "--format", "text"])
    text = capsys.readouterr().out
    assert (True, True) == ("-&gt;" in markdown, "Kara -> Troper 1" in text)


def test_several_tags_in_one_roll_argument_are_read_as_a_post(demo, capsys):
    """referee roll "[[roll d20]] and [[roll 2d6]]" resolves both tags, each with its roll id."""
    assert 0 == main(["roll", "[[roll d20]] and [[roll 2d6]]", "--seed", "1"])
    out = capsys.readouterr().out
    assert (True, True, False) == (
        "**Roll 1d20**" in out and "^(roll shell-1)" in out,
        "**Roll 2d6**" in out and "^(roll shell-2)" in out,
        "not resolved" in out,
    )


def test_batch_format_text_prints_the_replies_without_escapes(demo, capsys):
    """referee batch --format text shows the demo's attacks with -> and no backslashes."""
    main(["batch", "demo/thread.json", "--format", "text"])
    out = capsys.readouterr().out
    assert (True, False, False) == ("Kara -> Trooper 1" in out, "-&gt;" in out, "\\_" in out)


def test_history_deleted_lists_a_deleted_rolled_post_with_its_rolls(demo, capsys):
    """A rolled post read again as [deleted]: history --deleted shows its row and rolls."""
    from dataclasses import replace

    from referee.base.posts import Post
    from referee.pipeline.campaign import Campaign
    from referee.pipeline.flow import Referee

    with Campaign.open(demo) as campaign:
        referee = Referee(campaign)
        post = Post("t1_gone1", "t3_th", "kara_venn_pbp", "[[roll Kara agility]]", 1.0)
        referee.referee(post)
        referee.referee(replace(post, author="[deleted]", body="[deleted]", gone="deleted"))
    assert 0 == main(["history", "--deleted"])
    out = capsys.readouterr().out
    assert "gone1-deleted" in out and "was deleted after rolling gone1-1 (total" in out
    assert "1 deleted or removed posts in the ledger." in out


# -- files a command is handed: regular files only, each under a stated cap --------------


def test_import_refuses_a_device_instead_of_reading_it_forever(demo, capsys):
    """`referee import /dev/zero` hung; a device (here /dev/null) is refused at once,
    saying a regular file is wanted."""
    assert 2 == main(["import", "/dev/null"])
    err = capsys.readouterr().err
    assert "The sheet /dev/null is a device, not a regular file" in err


def test_import_refuses_a_sheet_past_its_cap_naming_the_cap(demo, capsys):
    """A sheet file larger than 128 KiB is refused before it is read whole."""
    (demo / "huge.txt").write_text("name: Kara\n" + "#" * (128 * 1024))
    assert 2 == main(["import", "huge.txt"])
    assert "larger than 131,072 bytes" in capsys.readouterr().err


def test_batch_refuses_a_thread_file_that_is_a_device_or_a_folder(demo, capsys):
    """The saved thread must be a regular file: a device or a folder is named as such."""
    assert 2 == main(["batch", "/dev/null"])
    assert "/dev/null is a device, not a regular file" in capsys.readouterr().err
    assert 2 == main(["batch", "demo"])
    assert "demo is a folder, not a regular file" in capsys.readouterr().err


def test_a_config_past_its_cap_is_refused_naming_the_cap(demo, capsys):
    """config.toml is read at most 1 MiB: a larger one stops every command, saying so."""
    with (demo / "config.toml").open("a") as handle:
        handle.write(("# padding\n") * (1024 * 1024 // 10 + 1))
    assert 2 == main(["characters"])
    assert "larger than 1,048,576 bytes" in capsys.readouterr().err


def test_a_sheets_file_past_its_cap_is_refused_naming_the_cap(demo, capsys):
    """characters.toml is read at most 16 MiB: a larger one is refused, not parsed."""
    with (demo / "demo" / "characters.toml").open("a") as handle:
        handle.write("#" * (16 * 1024 * 1024))
    assert 2 == main(["characters"])
    assert "larger than 16,777,216 bytes" in capsys.readouterr().err


def test_verify_refuses_a_secret_file_or_a_ledger_that_is_a_device(demo, capsys):
    """`verify --secret-file` and `verify --ledger` take regular files only."""
    assert 2 == main(["verify", "--secret-file", "/dev/null"])
    assert "The secret file /dev/null is a device" in capsys.readouterr().err
    assert 2 == main(["verify", "--ledger", "/dev/null", "--chain-only"])
    assert "The public ledger /dev/null is a device" in capsys.readouterr().err
