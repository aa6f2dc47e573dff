"""The `annotate` command: a played game analysed move by move (evaluation.annotate), as text,
JSON or a page to step through (evaluation.page)."""

from __future__ import annotations

import argparse
import json
import sys

from chancespiel.evaluation.cli.commands import add_parser
from chancespiel.evaluation.cli.common import records_of
from chancespiel.evaluation.usage import Bounded, UsageError, new_output


def cmd_annotate(args: argparse.Namespace) -> None:
    """Annotates the chosen record (or every record of the file): text, JSON or a page."""
    from chancespiel.evaluation.annotate import (
        AnnotateError,
        annotate_record,
        format_annotation,
        reference_for,
    )

    records = records_of(args.records, args.line)
    html = None
    if args.html is not None:
        if len(records) > 1:
            raise UsageError(
                f"--html draws one game and {args.records} has {len(records)}: choose one "
                "with --line N"
            )
        # a page is a result: not overwritten
        html = new_output(args.html, "annotate", ".html", "--html")
        if html.suffix.lower() not in (".html", ".htm"):
            raise UsageError(f"--html must name an .html file, got {args.html!r}")
    references = {}
    for record in records:
        try:
            game = record["game"]
            if game not in references:
                references[game] = reference_for(game, args.reference)
            reference = references[game]
            annotation = annotate_record(record, reference)
        except AnnotateError as e:
            raise UsageError(str(e)) from None
        if args.json:
            print(json.dumps(annotation.as_dict()))
        else:
            print(format_annotation(annotation, reference))
        if html is not None:
            from chancespiel.evaluation.page import write_page

            write_page(html, record, annotation, reference)
            print(f"wrote {html}", file=sys.stderr)  # stdout stays the annotation (--json)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Adds `annotate`."""
    annotate = add_parser(sub, "annotate")
    annotate.add_argument("records", help="JSON Lines file of games (.jsonl or .jsonl.gz)")
    annotate.add_argument(
        "--line",
        type=Bounded(int, 1, 10**9),
        help="the record's line number in the file (default: every game)",
    )
    annotate.add_argument(
        "--reference",
        metavar="SPEC",
        help="the value function moves are judged by, as `report --value` names them: "
        "'exact' (Pig's solver, the default on Pig), 'search(depth=D,heuristic=learned)' (the "
        "default elsewhere, at depth 2), 'learned_lookahead', ... (docs/analysis.md)",
    )
    annotate.add_argument("--json", action="store_true", help="one JSON object per game")
    annotate.add_argument(
        "--html", metavar="FILE", help="write a page to step through the game (one game)"
    )
    annotate.set_defaults(func=cmd_annotate)
