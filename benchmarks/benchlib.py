"""What P2, P4 and P5 share: the machine line every result carries, table printing and the results JSON.

A number means little without the machine it was measured on, so each benchmark prints this first and stores
it beside its table in ``benchmarks/results/<name>.json`` (git-ignored).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]


def versions(*dists: str) -> dict[str, str]:
    out = {}
    for dist in dists:
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def machine(*dists: str) -> dict[str, Any]:
    info: dict[str, Any] = {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "platform": platform.platform(),
        "versions": versions("airflow-provider-druid-ingest", *dists),
    }
    with contextlib.suppress(OSError):
        info["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return info


def print_machine(info: dict[str, Any]) -> None:
    pkgs = ", ".join(f"{k} {v}" for k, v in info["versions"].items())
    print(f"machine: {info['cores']} cores, Python {info['python']} ({info['platform']}), "
          f"load {info.get('load_avg_1m', '?')}; {pkgs}")


def print_table(columns: list[tuple[str, str]], rows: list[dict[str, Any]]) -> None:
    """``columns``: (key, header); right-aligned, widths from the data."""
    cells = [[_fmt(row.get(key)) for key, _ in columns] for row in rows]
    widths = [max(len(head), *(len(c[i]) for c in cells)) for i, (_, head) in enumerate(columns)]
    print("  ".join(head.rjust(w) for (_, head), w in zip(columns, widths, strict=True)))
    for c in cells:
        print("  ".join(v.rjust(w) for v, w in zip(c, widths, strict=True)))


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write_results(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    print(f"results: {path.relative_to(ROOT)}")
    return path
