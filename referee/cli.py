"""The ``referee`` command: batch, roll, characters, systems, verify, history, run, approve...

Exit codes: 0 all is well, 1 the input had tag errors (or the ledger failed
verification), 2 usage or configuration errors. Every message says how to fix it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from referee.base.dice import DiceSource, GivenDice, SeededDice, SystemDice
from referee.base.errors import ConfigError, OperatorError, UserError
from referee.base.posts import Post, post_link, safe_text
from referee.live import backups, host_service, ledger_commands, operate, shell
from referee.live.operate import reading
from referee.live.shell_requests import SHELL_GM
from referee.pipeline.batch import batch_markdown, load_thread, run_batch
from referee.pipeline.campaign import Campaign
from referee.pipeline.flow import Referee
from referee.pipeline.new import new_campaign, new_campaign_report
from referee.pipeline.session import Session
from referee.pipeline.tag import verdict_for
from referee.read.tags import Tag, find_tags, near_miss_problems
from referee.render.renderer import Renderer
from referee.render.terminal import FORMATS, plain_text, shown
from referee.resolve.dispatch import verbs_for
from referee.resolve.lookup import pending_applications
from referee.resolve.verdicts import Reply
from referee.store.records import GONE_KINDS, history_lines, result_words
from referee.system import ParseContext, installed_systems, load_system

EXIT_OK, EXIT_TAG_ERRORS, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="A play-by-post referee: resolves [[roll tags]] in Reddit threads.",
    )
    parser.add_argument(
        "--campaign",
        type=Path,
        metavar="DIR",
        help="the folder holding config.toml (default: here or a parent)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log each post as it is refereed"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    batch = commands.add_parser("batch", help="referee a thread saved as JSON")
    batch.add_argument("thread", type=Path, help="the thread's .json page saved to a file")
    batch.add_argument("--out", type=Path, help="write the replies here instead of to the screen")
    _format_option(batch)

    roll = commands.add_parser("roll", help="try a tag from the shell (nothing is recorded)")
    roll.add_argument(
        "tag",
        help='a tag such as "[[roll Kara agility]]", or a post\'s text holding several tags',
    )
    _format_option(roll)
    dice = roll.add_mutually_exclusive_group()
    dice.add_argument("--seed", help="roll with this seed, to repeat a result")
    dice.add_argument(
        "--dice",
        type=_faces,
        help="use exactly these faces, in the order the dice are drawn (e.g. 3,8,7,10), "
        "to replay a rulebook's example or a disputed roll",
    )

    commands.add_parser("characters", help="list the campaign's characters")
    commands.add_parser("systems", help="list the installed dice systems and their verbs")

    check = commands.add_parser("verify", help="check the roll ledger against the revealed secret")
    check.add_argument(
        "--secret-file", type=Path, help="the revealed secret (default: the campaign's)"
    )
    check.add_argument(
        "--chain-only",
        action="store_true",
        help="check only the hash chain (for players before the secret is revealed)",
    )
    check.add_argument(
        "--full",
        action="store_true",
        help="check every row again, not only those added since the last check found all well",
    )
    check.add_argument(
        "--ledger",
        type=Path,
        metavar="FILE",
        help="check a public ledger (`referee export --public`) instead: no campaign needed",
    )
    export = commands.add_parser(
        "export", help="write the public ledger: the rows a player may see, for verify --ledger"
    )
    export.add_argument(
        "--public", type=Path, metavar="FILE", required=True, help="the file to write"
    )
    export.add_argument(
        "--with-private",
        action="store_true",
        help="show the GMs' secret rolls too (at the end, if you choose to reveal them)",
    )
    approve = commands.add_parser(
        "approve", help="approve a character application, as a GM (the bot answers it)"
    )
    approve.add_argument("name", help="the character's name")
    approve.add_argument(
        "--with",
        dest="amendments",
        default="",
        metavar="AMENDMENTS",
        help='amendments, e.g. "named, tough 2, move Mind Trick to d8, force"',
    )
    _format_option(approve)
    for verb, what, note in (
        ("reject", "reject a character application", "why, for the player"),
        ("revise", "ask for changes to a character application", "what to change"),
    ):
        decision = commands.add_parser(verb, help=f"{what}, as a GM (the bot answers it)")
        decision.add_argument("name", help="the character's name")
        decision.add_argument("note", help=note)
        _format_option(decision)

    add = commands.add_parser("import", help="add a character from a sheet file, as a GM")
    add.add_argument("sheet", type=Path, help="a sheet in the [[apply]] text format")
    add.add_argument("--owner", help="the Reddit user who plays it (default: a GM's NPC)")
    add.add_argument("--force", action="store_true", help="import even if it breaks the rules")

    failures = commands.add_parser(
        "failures", help="list the posts the referee could not handle, or retry one"
    )
    failures.add_argument(
        "--retry", metavar="POST", help="referee this failed post again, after a fix (t1_abc)"
    )
    failures.add_argument(
        "--forget",
        metavar="POST#TAG",
        help="take a failed tag off the list once it is dealt with (t1_abc#2)",
    )
    _format_option(failures)

    history = commands.add_parser(
        "history", help="list recorded rolls from the ledger, streamed (all, or filtered)"
    )
    history.add_argument("name", nargs="?", help="only the rolls of this character")
    history.add_argument("--post", metavar="ID", help="only the rolls of this post (t1_abc or abc)")
    history.add_argument(
        "--deleted", action="store_true", help="only the posts deleted or removed after rolling"
    )
    commands.add_parser("applications", help="list the applications awaiting a GM's decision")

    new = commands.add_parser("new", help="make a new campaign folder of a dice system")
    new.add_argument("folder", type=Path, help="the campaign's folder (new, or empty)")
    new.add_argument("--system", required=True, choices=installed_systems(), help="its dice system")
    new.add_argument("--name", help='the campaign\'s name (default "My SYSTEM campaign")')

    run = commands.add_parser("run", help="watch Reddit and reply to roll tags (the live bot)")
    commands.add_parser(
        "status",
        help="the live bot's state: its last read, replies waiting, failures, budget, store "
        "size; exits 1 when it is not running or looks stuck (a health check)",
    )
    run.add_argument("--once", action="store_true", help="read every source once and exit (cron)")
    save = commands.add_parser(
        "backup",
        help="write the campaign into one archive, the store consistent even while "
        "the bot runs (never the secret)",
    )
    save.add_argument(
        "out", metavar="OUT", help="the archive (.tar.gz), or a folder for a dated one"
    )
    back = commands.add_parser(
        "restore", help="put a backup in place: all of it checked first, what it replaces kept"
    )
    back.add_argument("backup", metavar="BACKUP", help="an archive `referee backup` wrote")
    back.add_argument(
        "--yes",
        action="store_true",
        help="apply what it changes that matters (GMs, the secret's sha256, subreddits, "
        "paths, templates, requests): without it, restore lists them and writes nothing",
    )
    run.add_argument(
        "--log-file",
        type=Path,
        metavar="FILE",
        help="also write the log to FILE, rotated at 10 MB, the last 5 kept (FILE.1 ... FILE.5)",
    )
    hosting = commands.add_parser(
        "host", help="serve many campaign folders from one process (one budget per account)"
    )
    hosting.add_argument(
        "host_file", type=Path, help="the host file (accounts and campaign folders)"
    )
    hosting.add_argument(
        "--reload",
        action="store_true",
        help="ask the running host to read the host file again (campaigns added or taken out)",
    )
    return parser


def _format_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--format",
        choices=FORMATS,
        help="text: plain, for reading here (the default on a terminal); markdown: the "
        "reply exactly as Reddit gets it (the default into a file or a pipe)",
    )


def _shown(text: str, args: argparse.Namespace, stream: TextIO) -> str:
    """``text`` (a reply's Markdown) in the format asked for, or the one that suits ``stream``."""
    return shown(text, args.format, stream)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return COMMANDS[args.command](args)
    except (OperatorError, UserError) as error:
        print(f"referee: {error.message}", file=sys.stderr)
        return EXIT_USAGE


def cmd_batch(args: argparse.Namespace) -> int:
    thread = load_thread(args.thread)
    with Campaign.open(args.campaign) as campaign:
        if campaign.secret and campaign.secret.created:
            print(
                f"referee: made a new campaign secret in {campaign.secret.origin}; publish its "
                f"sha256 {campaign.published_commitment} so players can check the dice later.",
                file=sys.stderr,
            )
        referee = Referee(campaign)
        result = run_batch(
            referee,
            thread,
            lambda posts: tqdm(
                posts, desc="refereeing", unit="post", delay=0.5, file=sys.stderr, leave=False
            ),
        )
    text = batch_markdown(result)
    if args.out:
        args.out.write_text(text if args.format != "text" else plain_text(text), encoding="utf-8")
    else:
        sys.stdout.write(_shown(text, args, sys.stdout))
    for outcome in result.failed:
        print(
            f"referee: could not handle post {outcome.post.fullname} by "
            f"{outcome.post.author}; it was answered with a notice and recorded. "
            "`referee failures` shows why; `referee failures --retry "
            f"{outcome.post.fullname}` tries it again after a fix.",
            file=sys.stderr,
        )
    replayed = sum(o.replayed for o in result.outcomes)
    print(
        f"referee: {result.tags} tag(s) in {len(result.replies)} post(s); "
        f"{result.new_rolls} new roll(s) in the ledger, {replayed} post(s) already refereed, "
        f"{result.problems} tag(s) with problems.",
        file=sys.stderr,
    )
    if thread.collapsed:
        print(
            f"referee: {thread.collapsed} comment(s) were folded away by Reddit and are not in "
            f"the file; save the thread with ?limit=500 or let the live worker read it.",
            file=sys.stderr,
        )
    return EXIT_TAG_ERRORS if result.problems or result.failed else EXIT_OK


def cmd_roll(args: argparse.Namespace) -> int:
    campaign = reading(args)
    try:
        return _try_tag(campaign, args)
    finally:
        campaign.store.discard()  # a roll from the shell is a try: nothing is recorded


def _faces(text: str) -> tuple[int, ...]:
    """``--dice 3,8,7,10`` as faces; argparse shows the error for anything else."""
    try:
        faces = tuple(int(part) for part in text.replace(" ", "").split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a list of faces; write whole numbers joined by commas, like 3,8,7,10."
        ) from None
    if not faces or len(faces) > 1000:
        raise argparse.ArgumentTypeError("give between 1 and 1,000 faces.")
    return faces


def _try_tag(campaign: Campaign, args: argparse.Namespace) -> int:
    text = safe_text(args.tag).strip()  # argv may carry undecodable bytes as surrogates
    # Whoever runs the referee from a shell holds the campaign's files: they act as its GM.
    post = Post("t1_shell", "t3_shell", SHELL_GM, text, 0.0)
    context = Session(campaign, [SHELL_GM]).context(post, private=True)  # the GM's terminal
    parse_context = ParseContext(context.known_names)
    if "[[" in text or "]]" in text:  # a post's text: every tag in it, in order, as a post
        scan = find_tags(text)
        tags, notes = scan.tags, (scan.problem,) if scan.problem else ()
        verbs = verbs_for(campaign.system)
        notes = (*near_miss_problems(scan.near, parse_context, verbs), *notes)
        if not tags and not notes:
            raise UserError(
                f'No roll tag in {text[:60]!r}; write one like "[[roll 2d6]]" or just "roll 2d6".'
            )
    else:  # the tag's text alone: roll 2d6
        tags, notes = (Tag(0, text),), ()
    dice: DiceSource
    if args.dice is not None:
        dice = GivenDice(args.dice)
    elif args.seed is not None:
        dice = SeededDice(args.seed)
    else:
        dice = SystemDice()
    verdicts = tuple(
        verdict_for(tag, f"shell-{tag.index + 1}", context, parse_context, dice) for tag in tags
    )
    renderer = Renderer(campaign.config.templates_dir, campaign.config.name, system=campaign.system)
    reply = renderer.render(Reply(post.fullname, post.author, verdicts, notes))
    sys.stdout.write(_shown(reply, args, sys.stdout))
    failed = any(verdict.failed for verdict in verdicts) or bool(notes)
    if isinstance(dice, GivenDice) and dice.unused and not failed:
        print(
            f"referee: {dice.unused} face(s) given with --dice were not used; "
            "the tag drew fewer dice.",
            file=sys.stderr,
        )
    return EXIT_TAG_ERRORS if failed else EXIT_OK


def cmd_characters(args: argparse.Namespace) -> int:
    with reading(args) as campaign:
        rows = campaign.system.character_rows(
            list(campaign.store.table("characters").values()), campaign.rules
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        print("  ".join(cells).rstrip())
    return EXIT_OK


def cmd_systems(args: argparse.Namespace) -> int:
    for name, target in installed_systems().items():
        try:
            system = load_system(name)
        except ConfigError as error:
            print(f"{name}  (cannot be loaded: {error.message})\n")
            continue
        print(f"{name} {system.version}: {system.description}; {system.seed} [{target}]")
        verbs = dict.fromkeys(verbs_for(system).values())
        width = max(len(verb.name) for verb in verbs)
        for verb in verbs:
            gm = "GM: " if verb.gm_only else ""
            print(f"  {verb.name.ljust(width)}  {gm}{verb.form}   e.g. [[{verb.example}]]")
        print()
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    with reading(args) as campaign:
        voids = {str(key): value for key, value in campaign.store.table("voids").items()}
        shown = 0
        out: list[str] = []  # written a thousand rows at a time: print per line is slow
        rows = history_lines(campaign.store.ledger, args.name, args.post, args.deleted)
        for row in rows:
            shown += 1
            outcome = row.get("outcome") or {}
            post = Post(str(row.get("post")), str(row.get("thread")), "", "", 0.0)
            void = voids.get(row["roll_id"])
            marks = (" [private]" if outcome.get("private") else "") + (
                f" [VOID: {void['reason']}]" if void else ""
            )
            if row.get("kind") in GONE_KINDS:
                what = f"{row.get('kind')}: {outcome.get('note', '')}"
            else:
                what = f"{row.get('tag')} -> {result_words(outcome)}"
            out.append(
                f"{row['roll_id']}  {row.get('recorded', '')}  u/{row.get('author')}{marks}\n"
                f"    {what}\n    {post_link(post)}\n"
            )
            if len(out) == 1000:
                sys.stdout.write("".join(out))
                out.clear()
        sys.stdout.write("".join(out))
    wanted = " ".join(
        part
        for part in (
            f"of {args.name}" if args.name else "",
            f"in {args.post}" if args.post else "",
        )
        if part
    )
    kind = "deleted or removed posts" if args.deleted else "rolls"
    print(f"{shown} {kind}{' ' + wanted if wanted else ''} in the ledger.")
    return EXIT_OK


def cmd_applications(args: argparse.Namespace) -> int:
    with reading(args) as campaign:
        found = pending_applications(
            campaign.store.table("applications"), campaign.store.table("posts")
        )
    for application in found:
        problems = f", {application.problems} problem(s)" if application.problems else ""
        print(
            f"{application.name}  by u/{application.owner}  version {application.version}: "
            f"{application.status}{problems}"
        )
        if application.link:
            print(f"    {application.link}")
    print(
        f"{len(found)} application(s) awaiting a decision."
        + (" `referee approve NAME` approves one." if found else "")
    )
    return EXIT_OK


def cmd_new(args: argparse.Namespace) -> int:
    made = new_campaign(args.folder, args.system, args.name)
    print(new_campaign_report(made))
    return EXIT_OK


COMMANDS = {
    "new": cmd_new,
    "batch": cmd_batch,
    "roll": cmd_roll,
    "characters": cmd_characters,
    "systems": cmd_systems,
    "verify": ledger_commands.verify_command,
    "export": ledger_commands.export,
    "backup": backups.backup,
    "restore": backups.restore,
    "run": operate.run,
    "host": host_service.host,
    "status": operate.status,
    "approve": shell.decide,
    "reject": shell.decide,
    "revise": shell.decide,
    "import": shell.import_sheet,
    "failures": shell.failures,
    "history": cmd_history,
    "applications": cmd_applications,
}

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
