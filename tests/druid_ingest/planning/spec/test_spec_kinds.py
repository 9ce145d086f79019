"""A spec that is not a native batch task gets ONE problem saying what it is and what to do instead (issue 18)."""

from __future__ import annotations

from typing import Any

import pytest
from druid_ingest.planning.spec import find_problems, find_warnings

SCHEMA = {"dataSource": "wiki", "timestampSpec": {"column": "time"}, "dimensionsSpec": {"dimensions": []}}
KAFKA_IO = {"type": "kafka", "topic": "wikipedia", "consumerProperties": {"bootstrap.servers": "localhost:9092"},
            "inputFormat": {"type": "json"}}

CASES: list[tuple[str, Any, str, str]] = [
    ("kafka-task-shape", {"type": "kafka", "spec": {"dataSchema": SCHEMA, "ioConfig": KAFKA_IO,
                                                    "tuningConfig": {"type": "kafka"}}},
     "Kafka streaming supervisor", "/druid/indexer/v1/supervisor"),
    ("kafka-flat-shape", {"type": "kafka", "dataSchema": SCHEMA, "ioConfig": KAFKA_IO},
     "Kafka streaming supervisor", "/druid/indexer/v1/supervisor"),
    ("kafka-bare", {"dataSchema": SCHEMA, "ioConfig": KAFKA_IO}, "Kafka streaming supervisor", "supervisor"),
    ("kinesis", {"type": "kinesis", "spec": {"dataSchema": SCHEMA, "ioConfig": {"type": "kinesis", "stream": "s"}}},
     "Kinesis streaming supervisor", "supervisor"),
    ("compact", {"type": "compact", "dataSource": "wiki", "interval": "2015-09-12/2015-09-13",
                 "tuningConfig": {"type": "index_parallel"}}, "compaction task", "auto-compaction"),
    ("kill", {"type": "kill", "dataSource": "wiki", "interval": "2015-09-12/2015-09-13"}, "kill task", "auto-kill"),
    ("index_hadoop", {"type": "index_hadoop", "spec": {"dataSchema": SCHEMA, "ioConfig": {"type": "hadoop"}}},
     "Hadoop-based batch task", "index_parallel"),
    ("firehose", {"type": "index", "spec": {"dataSchema": {"dataSource": "wiki", "parser": {"type": "string"}},
                                            "ioConfig": {"type": "index", "firehose": {"type": "local"}}}},
     "removed in Druid 26.0", "inputSource"),
    ("parser-only", {"type": "index_parallel", "spec": {
        "dataSchema": {"dataSource": "wiki", "parser": {"type": "string", "parseSpec": {"format": "json"}}},
        "ioConfig": {"type": "index_parallel", "inputSource": {"type": "local"}}}},
     "removed in Druid 26.0", "timestampSpec"),
]


@pytest.mark.parametrize(("spec", "says", "instead"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_one_problem_names_the_kind_and_what_to_do(spec: Any, says: str, instead: str) -> None:
    [problem] = find_problems(spec)
    assert says in problem.message and problem.valid and instead in problem.valid, str(problem)
    assert "unknown key" not in str(problem)


def test_the_firehose_is_a_problem_not_a_warning() -> None:
    spec = CASES[7][1]
    assert [w for w in find_warnings(spec) if "firehose" in w.path] == []
