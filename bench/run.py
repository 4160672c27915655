"""Run every benchmark section: ``python bench/run.py [--sizes 10,100,1000] [--only NAME]``.

Each section seeds its own temporary memory root per size, starts a real uvicorn server and
prints one table. To add a section, write ``bench/<name>.py`` with ``run(sizes)`` (see
``bench/common.py`` for seeding, the server, timing and the read floor) and append one
``(name, run)`` entry to ``SECTIONS``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import eras  # noqa: E402
import listing  # noqa: E402
import log_lines  # noqa: E402
import notebook  # noqa: E402
import policy  # noqa: E402
import policy_scan  # noqa: E402
import protocol  # noqa: E402
import recall_inspect  # noqa: E402
import recall_quality  # noqa: E402
import recall_tiers  # noqa: E402
import remember  # noqa: E402
import scale  # noqa: E402
import startup  # noqa: E402
import transfer  # noqa: E402
from common import DEFAULT_SIZES  # noqa: E402

Section = Callable[[Sequence[int]], None]

SECTIONS: list[tuple[str, Section]] = [
    ("recall_inspect", recall_inspect.run),
    ("recall_quality", recall_quality.run),
    ("recall_tiers", recall_tiers.run),
    ("listing", listing.run),
    ("remember", remember.run),
    ("scale", scale.run),
    ("policy", policy.run),
    ("policy_scan", policy_scan.run),
    ("eras", eras.run),
    ("protocol", protocol.run),
    ("log_lines", log_lines.run),
    ("transfer", transfer.run),
    ("notebook", notebook.run),
    ("startup", startup.run),
]


def _sizes(text: str) -> list[int]:
    sizes = [int(part) for part in text.split(",") if part.strip()]
    if not sizes or any(size < 1 for size in sizes):
        raise argparse.ArgumentTypeError("sizes are positive integers, e.g. 10,100,1000")
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="MyMCP benchmarks")
    parser.add_argument(
        "--sizes", type=_sizes, default=list(DEFAULT_SIZES), help="record counts, e.g. 10,100,1000"
    )
    parser.add_argument(
        "--only", action="append", choices=[name for name, _ in SECTIONS], help="run one section"
    )
    args = parser.parse_args(argv)
    for name, run in SECTIONS:
        if args.only is None or name in args.only:
            run(args.sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
