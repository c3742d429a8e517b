"""Command line: parse arguments, call one stage, print one line per problem.

User mistakes (UserError) print `path:line: message` lines and exit 1; bad flags exit 2
(argparse). Anything else is our bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from builder.errors import UserError

ROOT = Path.cwd()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m builder",
        description="Build the multilingual interactive lesson site (Chinese and Japanese lessons on the "
                    "Transformer block) into static HTML that works offline and under any sub-path.",
        epilog="Run `python -m builder COMMAND --help` for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p):
        p.add_argument("--content", type=Path, default=Path("content"), metavar="DIR",
                       help="content folder: site.toml, <lang>/ lessons and catalogs, scenarios/ (default: content)")
        p.add_argument("--templates", type=Path, default=Path("templates"), metavar="DIR",
                       help="Jinja templates (default: templates)")

    build = sub.add_parser("build", help="check everything, then write the site atomically",
                           description="Check all content, then build the site into --out. A failed build "
                                       "leaves an existing output folder exactly as it was.")
    common(build)
    build.add_argument("--out", type=Path, default=Path("dist"), metavar="DIR", help="output folder (default: dist)")
    build.add_argument("--base-url", metavar="URL", type=http_url,
                       help="public address of the site, e.g. https://user.github.io/repo/; adds sitemap.xml, "
                            "canonical and absolute hreflang links, and makes 404.html work when a host serves it for "
                            "a missing page in a sub-folder (GitHub Pages does); every other page works without it")
    build.add_argument("--zip", action="store_true",
                       help="also write <out>/offline.zip, the whole site for reading offline")
    build.add_argument("-q", "--quiet", action="store_true", help="print nothing but problems")
    build.add_argument("--timings", action="store_true", help="also print how long each stage took")
    build.add_argument("-j", "--jobs", type=whole_number(0, " (one per CPU)"), default=0, metavar="N",
                       help="worker processes for lesson pages, on Linux (default: 0, one per CPU; 1 renders in this process)")

    check = sub.add_parser("check", help="report every problem in the content, writing nothing",
                           description="Validate lessons, front matter, scenarios, catalogs, templates, figures and "
                                       "language parity. Prints one `path:line: message` per problem; exit 1 if any.")
    common(check)

    status = sub.add_parser("status", help="translation status of every lesson and catalog")
    common(status)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--strict", action="store_true", help="exit 1 when a translation is outdated or missing")

    mark = sub.add_parser("mark-current", help="record that a translation is up to date with its source",
                          description="Write the source lesson's fingerprint into the translation's front matter.")
    common(mark)
    mark.add_argument("lang", help="language of the translation, e.g. ja")
    mark.add_argument("slugs", nargs="*", metavar="SLUG", help="lessons to mark (default: all of that language)")

    catalog = sub.add_parser("catalog", help="extract UI strings and update every language's catalog",
                             description="Extract translatable strings from the templates and scenarios into "
                                         "content/messages.pot, then update (or create) content/<lang>/messages.po.")
    common(catalog)

    serve = sub.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild + reload on every edit")
    common(serve)
    serve.add_argument("--out", type=Path, default=Path("dist"), metavar="DIR", help="output folder (default: dist)")
    serve.add_argument("--port", type=port_number, default=8000, help="port (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    return parser


def whole_number(minimum: int, note: str = ""):
    """An argparse type: a whole number of at least `minimum`, with a one-line message otherwise."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum}{note} or more, got {value}")
        return value
    return parse


def http_url(text: str) -> str:
    """An argparse type: an absolute http(s) address with a host and nothing that could break out of
    an attribute or an XML value (no spaces, quotes or angle brackets)."""
    from urllib.parse import urlsplit

    if re.search(r"[\s\"'<>\\`{}|^]", text) or any(ord(c) < 32 for c in text):
        raise argparse.ArgumentTypeError(f"{text!r} contains a space, quote, angle bracket or other character "
                                         "a URL may not hold unencoded")
    try:
        parts = urlsplit(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not a URL: {err}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// address such as "
                                         f"https://user.github.io/repo/, got {text!r}")
    if parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{text!r}: a base URL has no ?query or #fragment")
    return text


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (0 picks a free one)."""
    value = whole_number(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {value}")
    return value


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the CPUs this process may use, not all the machine has
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            started = time.perf_counter()
            from builder.build import build
            imported = time.perf_counter() - started
            summary = build(args.content, args.out, args.templates, base_url=args.base_url, make_zip=args.zip,
                            jobs=args.jobs or cpus())
            for warning in summary.warnings:
                print(warning, file=sys.stderr)
            if not args.quiet:
                print(summary.describe())
            if args.timings:
                print(f"timings: imports {imported * 1000:.0f} ms  {summary.describe_stages()}")
        elif args.command == "check":
            from builder.build import check
            warnings = check(args.content, args.templates, jobs=cpus())
            for warning in warnings:
                print(warning, file=sys.stderr)
            print("check: no problems" + (f" ({len(warnings)} warnings)" if warnings else ""))
        elif args.command == "status":
            from builder.translation import print_status
            return print_status(args.content, as_json=args.json, strict=args.strict)
        elif args.command == "mark-current":
            from builder.translation import mark_current
            for line in mark_current(args.content, args.lang, args.slugs):
                print(line)
        elif args.command == "catalog":
            from builder.catalogs import update_catalogs
            for line in update_catalogs(args.content, args.templates):
                print(line)
        elif args.command == "serve":
            from builder.serve import serve
            serve(args.content, args.out, args.templates, host=args.host, port=args.port)
    except UserError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        count = len(err.problems)
        print(f"{args.command}: {count} problem{'s' if count != 1 else ''}, nothing written"
              if args.command == "build" else f"{args.command}: {count} problem{'s' if count != 1 else ''}",
              file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 130
    return 0


def run() -> None:
    """Run the command line and exit without tearing the interpreter down.

    A build leaves millions of small objects behind; freeing them one by one at exit took longer than
    writing the site. Everything that matters is finished when main() returns (files closed, workers
    and threads joined), so flush the output and let the OS reclaim the rest, as mypy does."""
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # output piped into a reader that stopped early, e.g. `| head`
        code = code or 1
    os._exit(code)
