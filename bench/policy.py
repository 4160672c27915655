"""Section: the content policy alone, on 4,000-character values, and its corpus figures.

The policy runs on every remember and revise, once per inspected value; content is the
longest value (4,000 characters at most). This section times ``first_violation`` on four
kinds of 4,000-character content that it must store (plain notes, technical notes full of
look-alikes, text in other scripts, log lines full of numbers), reports p50 and p99 in
microseconds, and prints how much of the generated corpus (``tests/mnemosyne/memory/
policy_corpus.py``) it refuses, class by class. Run it alone with
``python bench/run.py --only policy`` or ``python bench/policy.py``.

Each kind is timed in several rounds and the round with the lowest p50 is reported: on a
machine shared with other work, that is the round the other work disturbed least. The
title line shows the load average when the timing started.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CONNECTORS, REPO_ROOT, WORDS, percentile, print_table  # noqa: E402

if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from mymcp.plugins.mnemosyne.memory.policy import first_violation  # noqa: E402
from tests.mnemosyne.memory.policy.policy_corpus import BENIGN, SENSITIVE, figures  # noqa: E402

SIZE = 4000
VALUES = 40
CALLS = 400
ROUNDS = 10
WARMUP = 300


def _fill(pieces: Callable[[random.Random], str], seed: int) -> str:
    rng = random.Random(seed)
    text = pieces(rng)
    while len(text) < SIZE:
        text += " " + pieces(rng)
    return text[:SIZE]


def _note(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    words.insert(rng.randrange(1, len(words)), rng.choice(CONNECTORS))
    return " ".join(words).capitalize() + "."


_LOOK_ALIKES = [text for texts in BENIGN.values() for text in texts]
_SCRIPTS = (
    "会议改到下周三下午三点，地点在三楼会议室，请提前准备材料。",
    "東京オフィスの住所は後で確認します。資料は共有フォルダにあります。",
    "Встреча перенесена на пятницу, список задач обновлён в трекере.",
    "Die Übergabe ist am Dienstag um neun Uhr in Zürich, bitte pünktlich.",
)


def _log_line(rng: random.Random) -> str:
    ip = ".".join(str(rng.randrange(256)) for _ in range(4))
    return (
        f'{ip} - - [10/Oct/2026:13:{rng.randrange(60):02d}:36 +0000] "GET /api/v1/items/'
        f'{rng.randrange(10**6)}?page={rng.randrange(99)} HTTP/1.1" 200 {rng.randrange(99999)}'
    )


KINDS: dict[str, Callable[[random.Random], str]] = {
    "plain notes": _note,
    "technical look-alikes": lambda rng: rng.choice(_LOOK_ALIKES),
    "other scripts": lambda rng: rng.choice(_SCRIPTS),
    "log lines": _log_line,
}


def _round(values: Sequence[str]) -> tuple[float, float]:
    samples = []
    for index in range(CALLS):
        value = values[index % len(values)]
        started = time.perf_counter_ns()
        first_violation(value)
        samples.append((time.perf_counter_ns() - started) / 1e3)
    return statistics.median(samples), percentile(samples, 0.99)


def _time(values: Sequence[str]) -> tuple[float, float]:
    """p50 and p99 in microseconds, from the round with the lowest p50."""
    for index in range(WARMUP):
        first_violation(values[index % len(values)])
    return min(_round(values) for _ in range(ROUNDS))


def _timing_rows() -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    for name, pieces in KINDS.items():
        values = [_fill(pieces, seed) for seed in range(VALUES)]
        refused = sum(first_violation(value) is not None for value in values)
        p50, p99 = _time(values)
        rows.append((name, len(values[0]), f"{p50:.0f}", f"{p99:.0f}", refused))
    return rows


def _figure_rows(corpus: dict[str, list[str]]) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    refused_total = total = 0
    for name, (refused, count) in figures(corpus).items():
        rows.append((name, f"{refused}/{count}", f"{100 * refused / count:.1f}%"))
        refused_total += refused
        total += count
    rows.append(("all", f"{refused_total}/{total}", f"{100 * refused_total / total:.1f}%"))
    return rows


def run(sizes: Sequence[int] = ()) -> None:
    """Print the timing table and the corpus figures (the record sizes do not apply)."""
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    print_table(
        "content policy alone (microseconds per value; 4,000-character content; best of "
        f"{ROUNDS} rounds of {CALLS} calls; load average {load})",
        ("content", "chars", "p50 us", "p99 us", "refused"),
        _timing_rows(),
    )
    header = ("class", "refused/total", "share")
    print_table("corpus, sensitive side (refused is right)", header, _figure_rows(SENSITIVE))
    print_table("corpus, benign side (refused is wrong)", header, _figure_rows(BENIGN))


if __name__ == "__main__":
    run()
