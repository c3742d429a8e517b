"""Command line: parse arguments, call one stage, print one line per problem.

User mistakes (UserError) print `path:line: message` lines and exit 1; bad flags exit 2
(argparse); a file system error no check foresaw prints `path: reason` and exits 1. Anything else is
our bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from builder.errors import UserError, printable

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
        p.add_argument("--content", type=Path, default=None, metavar="DIR",
                       help="content folder: site.toml, <lang>/ lessons and catalogs, scenarios/, models/ "
                            "(default: content, here or in the project this builder belongs to)")
        p.add_argument("--templates", type=Path, default=None, metavar="DIR",
                       help="Jinja templates (default: templates, found like content)")

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
    build.add_argument("--strict", action="store_true",
                       help="fail on warnings too (an outdated translation, an untranslated UI string, a doubtful "
                            "vector), writing nothing")
    build.add_argument("-q", "--quiet", action="store_true", help="print nothing but problems")
    build.add_argument("--timings", action="store_true", help="also print how long each stage took")
    build.add_argument("-j", "--jobs", type=whole_number(0, " (one per CPU)"), default=0, metavar="N",
                       help="worker processes for lesson pages, on Linux (default: 0, one per CPU; 1 renders in this process)")

    check = sub.add_parser("check", help="report every problem in the content, writing nothing",
                           description="Validate lessons, front matter, scenarios, catalogs, templates, figures and "
                                       "language parity. Prints one `path:line: message` per problem; exit 1 if any.")
    common(check)
    check.add_argument("--strict", action="store_true", help="fail on warnings too")
    check.add_argument("--lang", metavar="LANG", help="report only what concerns this language (and the files every "
                                                      "language shares), e.g. ja")

    status = sub.add_parser("status", help="translation status of every lesson and catalog",
                            description="Which translations are current, outdated (with where their source changed), "
                                        "never marked or missing; each language's progress; catalog counts. With "
                                        "--diff LANG, the text that changed in the sources of that language's "
                                        "translations since they were marked current.")
    common(status)
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.add_argument("--strict", action="store_true",
                        help="exit 1 when a translation is outdated, never marked or missing, or a UI string is not translated")
    status.add_argument("--lang", metavar="LANG", help="only this language, e.g. ja")
    status.add_argument("--diff", metavar="LANG", help="show what changed in the source of LANG's translations "
                                                       "(of the lessons named after it, or all)")
    status.add_argument("slugs", nargs="*", metavar="SLUG", help="with --diff: the lessons to show")

    mark = sub.add_parser("mark-current", help="record that a translation is up to date with its source",
                          description="Check the translation as `check` would (its sections, figures and trace "
                                      "values against the source), then write the source's fingerprint into its "
                                      "front matter and keep a copy of the source in <lang>/translated-from/ for "
                                      "`status --diff`.")
    common(mark)
    mark.add_argument("lang", help="language of the translation, e.g. ja")
    mark.add_argument("slugs", nargs="*", metavar="SLUG", help="lessons to mark")
    mark.add_argument("--all", action="store_true", dest="every", help="mark every lesson of that language")
    mark.add_argument("--force", action="store_true", help="mark even if the translation fails the checks")

    catalog = sub.add_parser("catalog", help="extract UI strings and update every language's catalog",
                             description="Extract translatable strings from the templates and scenarios into "
                                         "content/messages.pot, then update (or create) content/<lang>/messages.po.")
    common(catalog)

    new = sub.add_parser("new", help="start a lesson or a scenario from a skeleton",
                         description="Write the files a new lesson or scenario starts from, with [[TODO: …]] "
                                     "placeholders that `check` lists until they are written (see AUTHORING.md).")
    new_sub = new.add_subparsers(dest="what", required=True, metavar="WHAT")
    lesson = new_sub.add_parser("lesson", help="content/<lang>/SLUG.md in every language, with the same sections",
                                description="Write content/<lang>/SLUG.md in every language: front matter, the section "
                                            "headings with their ids, the figures placed, so the translations match "
                                            "the source from the start.")
    common(lesson)
    lesson.add_argument("slug", metavar="SLUG", help="the lesson's file name and address, e.g. self-attention")
    lesson.add_argument("--order", type=whole_number(1), metavar="N",
                        help="its place in the lesson list (default: after the last)")
    lesson.add_argument("--sections", metavar="ID,ID,...", type=lambda text: [s.strip() for s in text.split(",") if s.strip()],
                        help="section ids, in order (default: first-section,summary)")
    lesson.add_argument("--scenario", metavar="NAME", help="the scenario its figures and trace values use")
    lesson.add_argument("--figure", action="append", metavar="KIND", help="an interactive figure to place (repeatable)")
    scenario_new = new_sub.add_parser("scenario", help="content/scenarios/NAME.toml, from another scenario's tokens")
    common(scenario_new)
    scenario_new.add_argument("name", metavar="NAME", help="the scenario's file name, e.g. deposit-bank")
    scenario_new.add_argument("--from", dest="origin", required=True, metavar="OTHER",
                              help="the scenario whose model, tokens and settings it starts from")

    scenario = sub.add_parser("scenario", help="look at a scenario's numbers")
    scenario_sub = scenario.add_subparsers(dest="what", required=True, metavar="WHAT")
    show = scenario_sub.add_parser("show", help="per block: the tracked word's vector, length and attention, and every "
                                                "trace value the lessons use",
                                   description="Print a scenario's tokens and vectors, then for each run (on, off, post) "
                                               "and block the tracked word's vector, its length and its attention row, "
                                               "then every {{…}} the lessons use with its value.")
    common(show)
    show.add_argument("name", metavar="NAME", help="the scenario, e.g. river-bank")

    serve = sub.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild + reload on every edit")
    common(serve)
    serve.add_argument("--out", type=Path, default=Path("dist"), metavar="DIR", help="output folder (default: dist)")
    serve.add_argument("--port", type=port_number, default=8000, help="port (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    serve.add_argument("--lang", metavar="LANG", help="a translator's preview: keep serving while other languages "
                                                      "have problems, and show only this language's")
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


def default_folder(name: str) -> Path:
    """`content` or `templates` in the current folder; failing that, beside the builder package, so a
    command run from a sub-folder of the project (content/ja, say) still finds the project."""
    here = Path(name)
    if here.is_dir():
        return here
    project = Path(__file__).resolve().parent.parent / name
    return project if project.is_dir() else here


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the CPUs this process may use, not all the machine has
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for name in ("content", "templates"):
        if hasattr(args, name) and getattr(args, name) is None:
            setattr(args, name, default_folder(name))
    try:
        if args.command == "build":
            started = time.perf_counter()
            from builder.build import build
            imported = time.perf_counter() - started
            summary = build(args.content, args.out, args.templates, base_url=args.base_url, make_zip=args.zip,
                            jobs=args.jobs or cpus(), strict=args.strict)
            for warning in summary.warnings:
                print(warning, file=sys.stderr)
            if not args.quiet:
                print(summary.describe())
            if args.timings:
                print(f"timings: imports {imported * 1000:.0f} ms  {summary.describe_stages()}")
        elif args.command == "check":
            return run_check(args)
        elif args.command == "status":
            from builder.status import print_status
            return print_status(args.content, args.templates, as_json=args.json, strict=args.strict, lang=args.lang,
                                diff=args.diff, slugs=args.slugs)
        elif args.command == "mark-current":
            from builder.status import mark_current
            for line in mark_current(args.content, args.templates, args.lang, args.slugs, every=args.every,
                                     force=args.force):
                print(printable(line))
        elif args.command == "catalog":
            from builder.catalogs import update_catalogs
            for line in update_catalogs(args.content, args.templates):
                print(printable(line))
        elif args.command == "new":
            from builder import authoring
            if args.what == "lesson":
                from builder.figures import KINDS
                lines = authoring.new_lesson(args.content, args.slug, args.order, args.sections, args.scenario,
                                             args.figure, known_figures=set(KINDS))
            else:
                lines = authoring.new_scenario(args.content, args.name, args.origin)
            for line in lines:
                print(printable(line))
        elif args.command == "scenario":
            from builder.authoring import show_scenario
            for line in show_scenario(args.content, args.name):
                print(printable(line))
        elif args.command == "serve":
            from builder.serve import serve
            serve(args.content, args.out, args.templates, host=args.host, port=args.port, lang=args.lang)
    except UserError as err:
        for problem in err.problems:
            print(problem, file=sys.stderr)
        strict = " --strict" if all(p.severity == "warning" for p in err.problems) and err.problems else ""
        print(f"{args.command}{strict}: {tally(err.problems)}" + (", nothing written" if args.command == "build" else "")
              + (f"; {err.hint}" if getattr(err, "hint", None) else ""), file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 130
    except OSError as err:  # a file the checks above did not expect to fail (a folder made unreadable meanwhile)
        where = err.filename if err.filename is not None else args.command
        print(printable(f"{where}: {err.strerror or err}"), file=sys.stderr)
        print(f"{args.command}: 1 problem" + (", nothing written" if args.command == "build" else ""), file=sys.stderr)
        return 1
    return 0


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def tally(problems) -> str:
    from builder.build import tally as count
    return count(problems)


def run_check(args) -> int:
    """`check`: every problem and warning, one line each; with --lang, only those of that language and
    of the files every language shares."""
    from builder.build import check, for_language

    lang = args.lang
    try:
        warnings = check(args.content, args.templates, jobs=cpus(), strict=args.strict and not lang)
    except UserError as err:
        if lang is None:
            raise
        shown, hidden = for_language(err.problems, args.content, lang)
        errors = [p for p in shown if p.severity == "error" or args.strict]
        if errors:
            raise UserError(shown) from None
        warnings = [p for p in shown if p.severity == "warning"]
        return _report_check(warnings, hidden, lang)
    if lang is not None:
        warnings, hidden = for_language(warnings, args.content, lang)
        if args.strict and warnings:
            raise UserError(warnings)
        return _report_check(warnings, hidden, lang)
    return _report_check(warnings, [], None)


def _report_check(warnings, hidden, lang) -> int:
    for warning in warnings:
        print(warning, file=sys.stderr)
    where = f" in {lang}" if lang else ""
    line = f"check: no problems{where}" + (f", {plural(len(warnings), 'warning')}" if warnings else "")
    if hidden:
        line += f" ({tally(hidden)} in other languages not shown)"
    print(line)
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
