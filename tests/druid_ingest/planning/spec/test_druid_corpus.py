"""Apache Druid's own specs through pre-flight (issue 18): no false refusal of a native batch spec Druid accepts,
and for every spec the expected verdict with the Druid rule behind it.

The corpus (``corpus/<source>/*.json``) holds specs written by the Apache Druid project (Apache-2.0): the
quickstart tutorials (``examples/quickstart/tutorial``), the integration-test and the embedded-test resources
(``integration-tests/...`` and ``embedded-tests/src/test/resources/indexer``). ``corpus/sources.json`` names each
file's source path and commit and the placeholder values used; ``corpus/expected.json`` is the verdict table
(verdict, whether Druid accepts the spec, the problem or warnings expected, and the Druid rule cited).

Placeholders are filled as Druid's integration harness fills them: plain text replacement of ``%%NAME%%``
(``StringUtils.replace`` in the IT classes), so a quoted ``"%%FORCE_GUARANTEED_ROLLUP%%"`` becomes the STRING
``"true"``/``"false"`` (``Boolean.toString``), and ``%%PARTITIONS_SPEC%%`` becomes the JSON Druid's mapper writes
for ``HashedPartitionsSpec(null, 2, null)`` or ``DynamicPartitionsSpec(null, null)``, nulls included. Values the
harness takes from its environment (data directory, datasource names, S3 URIs, JDBC URI) are fixed stand-ins.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from druid_ingest.planning.spec import find_problems, find_warnings

from tests.summary import add_text

CORPUS = Path(__file__).parent / "corpus"
SOURCES: dict[str, dict[str, Any]] = json.loads((CORPUS / "sources.json").read_text())
EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text())
FILES = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/*.json"))


def _spec(name: str) -> Any:
    return json.loads((CORPUS / name).read_text())


def test_the_corpus_is_big_enough_and_every_file_names_its_source_and_verdict() -> None:
    assert len(FILES) >= 40
    assert sorted(SOURCES) == FILES == sorted(EXPECTED)
    for name in FILES:
        source = SOURCES[name]
        assert source["repo"] == "apache/druid" and re.fullmatch(r"[0-9a-f]{40}", source["commit"]), name
        assert source["path"].endswith(".json") and source["path"].split("/")[0] in (
            "examples", "integration-tests", "embedded-tests"), name
        assert "%%" not in (CORPUS / name).read_text(), f"{name}: a placeholder left unfilled"
        assert EXPECTED[name]["rule"], f"{name}: no Druid rule cited"


@pytest.mark.parametrize("name", FILES)
def test_each_spec_gets_its_expected_verdict(name: str) -> None:
    expected = EXPECTED[name]
    spec = _spec(name)
    problems, warnings = find_problems(spec), find_warnings(spec)
    if expected["verdict"] == "refused":
        [problem] = problems  # one problem that says what the spec is, never a page of "unknown key"
        assert problem.path == expected["problem_path"], str(problem)
        assert expected["problem_says"] in problem.message, str(problem)
        return
    assert problems == [], f"false refusal of a spec Druid accepts ({expected['rule']}): {problems}"
    assert [w.path for w in warnings] == expected.get("warnings", []), [str(w) for w in warnings]


def test_no_false_refusal_of_a_native_batch_spec_druid_accepts() -> None:
    accepted = [n for n in FILES if EXPECTED[n]["druid_accepts"] and EXPECTED[n]["native_batch"]]
    refused = [n for n in accepted if find_problems(_spec(n))]
    assert len(accepted) >= 25 and refused == []


def summary() -> list[str]:
    """Specs per source and verdict, as measured now (printed by the test below; kept in corpus/README.md)."""
    counts: Counter[tuple[str, str]] = Counter()
    for name in FILES:
        spec = _spec(name)
        verdict = "refused" if find_problems(spec) else "warned" if find_warnings(spec) else "accepted"
        counts[(name.split("/")[0], verdict)] += 1
    lines = [f"{'source':12} {'specs':>5} {'accepted':>8} {'warned':>6} {'refused':>7}"]
    for source in sorted({s for s, _ in counts}):
        row = [counts[(source, v)] for v in ("accepted", "warned", "refused")]
        lines.append(f"{source:12} {sum(row):5} {row[0]:8} {row[1]:6} {row[2]:7}")
    total = [sum(n for (_, verdict), n in counts.items() if verdict == v) for v in ("accepted", "warned", "refused")]
    lines.append(f"{'total':12} {len(FILES):5} {total[0]:8} {total[1]:6} {total[2]:7}")
    return lines


def test_print_the_summary_table(request: pytest.FixtureRequest) -> None:
    lines = summary()
    add_text(request.node, "Druid spec corpus: verdicts per source", lines)  # printed at the end of the session
    assert lines[-1].split()[1] == str(len(FILES))
