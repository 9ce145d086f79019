"""Smoke test of an INSTALLED wheel, run by scripts/ci/package_smoke.sh with a fresh venv's Python.

    python package_smoke.py REPO VERSION --openlineage EVENTS.jsonl | --no-openlineage

Checks, failing with a message that names what is wrong: the package imports from the venv (not the checkout)
with the expected version and py.typed; the ``apache_airflow_provider`` entry point and ProvidersManager see it
(hook, connection form, extra link, triggers); the example DAGs in REPO/dags parse; ``example_druid_daily``
runs green under ``dag.test()`` against the fake Druid shipped in the wheel (one submit, the handoff gate read).
With ``--openlineage FILE`` the OpenLineage listener (file transport, set up by the caller) must also have written
the COMPLETE event with our datasets and the Druid task id. With ``--no-openlineage`` (the extra really absent)
the ingestion is the one-shot operator run in the worker instead of ``dag.test()`` (no metadata DB needed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

DIST = "airflow-provider-druid-ingest"
PACKAGE = "airflow_provider_druid_ingest"
DAG_ID, TASK_ID = "example_druid_daily", "ingest_events_web"


def check(ok: object, message: str) -> None:
    if not ok:
        raise SystemExit(f"package smoke: FAILED: {message}")


def step(name: str, started: float) -> float:
    now = time.monotonic()
    print(f"package smoke: ok: {name} ({now - started:.1f}s)", flush=True)
    return now


def main(argv: list[str]) -> None:
    repo, version, mode = Path(argv[1]).resolve(), argv[2], argv[3]
    events_file = Path(argv[4]) if mode == "--openlineage" else None
    home = Path(tempfile.mkdtemp(prefix="pkg-smoke-airflow-"))
    (home / "dags").mkdir()
    os.environ.update({
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{home / 'airflow.db'}",
        "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
    })
    t = time.monotonic()

    import airflow

    import airflow_provider_druid_ingest as pkg

    where = Path(pkg.__file__).resolve().parent
    check(where != repo / PACKAGE and Path(sys.prefix).resolve() in where.parents,
          f"{PACKAGE} imported from {where}, not from this venv's site-packages (the wheel)")
    check(pkg.__version__ == version == metadata.version(DIST),
          f"version: __version__={pkg.__version__}, metadata={metadata.version(DIST)}, expected {version}")
    check((where / "py.typed").is_file(), f"py.typed missing in {where}")
    print(f"package smoke: Airflow {airflow.__version__}, Python {sys.version.split()[0]}, {DIST} {version}")
    t = step("import from the wheel, version, py.typed", t)

    points = [ep for ep in metadata.entry_points(group="apache_airflow_provider") if ep.dist and ep.dist.name == DIST]
    check(len(points) == 1, f"apache_airflow_provider entry points of {DIST}: {points}")
    check(points[0].value == f"{PACKAGE}.get_provider_info:get_provider_info", f"entry point value {points[0].value}")
    info = points[0].load()()
    check(info["package-name"] == DIST and info["versions"] == [version], f"provider info: {info['package-name']}")
    from airflow.providers_manager import ProvidersManager

    pm = ProvidersManager()
    check(DIST in pm.providers, f"ProvidersManager does not list {DIST}: {sorted(pm.providers)}")
    check(pm.hooks["druid_cluster"].hook_class_name == f"{PACKAGE}.hooks.druid_sql.DruidSqlHook", "druid_cluster hook")
    widgets = {k for k in pm.connection_form_widgets if k.startswith("extra__druid_cluster__")}
    check({"extra__druid_cluster__verify", "extra__druid_cluster__console_url"} <= widgets, f"form: {widgets}")
    check(f"{PACKAGE}.links.DruidTaskLink" in pm.extra_links_class_names, "DruidTaskLink not registered")
    check(any(f"{PACKAGE}.triggers.ingestion" in str(trigger) for trigger in pm.trigger), "triggers not registered")
    t = step("entry point, ProvidersManager: provider, druid_cluster hook and form, link, triggers", t)

    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(repo / "dags"))
    errors = dict(bag.import_errors)
    if tuple(int(p) for p in airflow.__version__.split(".")[:2]) < (3, 3):
        # the served-data watcher needs 3.3's shared-stream ack mode: on 3.2 its example must fail, saying so
        served = {path: error for path, error in errors.items() if path.endswith("example_druid_served.py")}
        check(len(served) == 1 and "needs Airflow 3.3 or later" in next(iter(served.values()), ""),
              f"on Airflow {airflow.__version__} example_druid_served.py must fail naming Airflow 3.3: {served}")
        errors = {path: error for path, error in errors.items() if path not in served}
    else:
        check("example_druid_served" in bag.dag_ids, f"example DAGs: {bag.dag_ids}")
    check(errors == {}, f"example DAGs failed to parse: {errors}")
    check({DAG_ID, "example_druid_split"} <= set(bag.dag_ids), f"example DAGs: {bag.dag_ids}")
    t = step(f"parse {repo / 'dags'}: {', '.join(sorted(bag.dag_ids))}", t)

    if events_file is None:
        try:
            import airflow.providers.openlineage
        except ImportError:
            pass
        else:
            check(False, "--no-openlineage, but airflow.providers.openlineage is importable in this venv")
        druid_task_id = ingest_in_worker()
        step(f"without the [openlineage] extra: one-shot ingestion against the fake Druid ({druid_task_id}), "
             "no lineage reported", t)
        return

    airflow_bin = str(Path(sys.executable).with_name("airflow"))
    migrated = subprocess.run([airflow_bin, "db", "migrate"], capture_output=True, text=True)
    check(migrated.returncode == 0, f"airflow db migrate: {migrated.stderr[-2000:]}")
    t = step("airflow db migrate", t)

    druid_task_id = ingest(bag.dags[DAG_ID])
    t = step(f"dag.test() of {DAG_ID} against the fake Druid: Druid task {druid_task_id}", t)

    complete = [e for e in map(json.loads, events_file.read_text().splitlines())
                if e["eventType"] == "COMPLETE" and e["job"]["name"] == f"{DAG_ID}.{TASK_ID}"]
    check(len(complete) == 1, f"OpenLineage COMPLETE events of {DAG_ID}.{TASK_ID} in {events_file}: {complete}")
    event = complete[0]
    outputs = [(d["namespace"], d["name"]) for d in event["outputs"]]
    inputs = [(d["namespace"], d["name"]) for d in event["inputs"]]
    check(len(outputs) == 1 and outputs[0][0].startswith("druid://127.0.0.1:") and outputs[0][1] == "events_web",
          f"OpenLineage outputs {outputs}")
    check(inputs == [("file", "/tmp/events/2026-11-01")], f"OpenLineage inputs {inputs}")
    query = event["run"]["facets"].get("externalQuery", {})
    check(query.get("externalQueryId") == druid_task_id, f"externalQuery facet {query}")
    step("OpenLineage listener: COMPLETE event with the datasource, the input and the Druid task", t)


def ingest_in_worker() -> str:
    """DruidIngestOperator in the worker (deferrable=False) against FakeDruid; its lineage must be None."""
    import pendulum
    from druid_ingest.testing import FakeDruid, index_parallel_spec

    from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

    class TI:
        def __init__(self) -> None:
            self.xcom: dict[str, object] = {}

        def xcom_push(self, key: str, value: object) -> None:
            self.xcom[key] = value

    start = pendulum.datetime(2026, 11, 1, tz="UTC")
    context = {"ti": TI(), "data_interval_start": start, "data_interval_end": start.add(days=1)}
    with FakeDruid(task_duration=0.3, handoff_delay=0.2) as fake:
        os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = json.dumps({"conn_type": "druid_cluster", "host": fake.url})
        op = DruidIngestOperator(task_id="ingest", spec=index_parallel_spec("smoke"), deferrable=False,
                                 poll_interval=0.1, max_poll_interval=0.3)
        druid_task_id = op.execute(context)  # type: ignore[arg-type]
        check(op.get_openlineage_facets_on_complete(None) is None, "lineage reported without the extra")
        check(any("/metadata/datasources/smoke/segments" in r.path for r in fake.requests), "no handoff gate read")
    return str(druid_task_id)


def ingest(dag: object) -> str:
    """Run the example daily DAG for 2026-11-01 under dag.test() against FakeDruid; return the Druid task id."""
    import pendulum
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import DagBag, sync_bag_to_db
    from druid_ingest.testing import FakeDruid, Fault

    for task in dag.tasks:  # type: ignore[attr-defined]
        task.retries = 0
        if hasattr(task, "poll_interval"):
            task.poll_interval, task.max_poll_interval = 0.1, 0.3
    with FakeDruid(task_duration=0.3, handoff_delay=0.2) as fake:
        os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = json.dumps({"conn_type": "druid_cluster", "host": fake.url})
        fake.add_fault(Fault(method="POST", path=r"/druid/v2/sql$", kind="status", status=200, times=None,
                             body=json.dumps([{"rollup_rows": 10, "input_rows": 12}]),
                             content_type="application/json"))
        DagBundlesManager().sync_bundles_to_db()
        bag = DagBag(dag_folder=tempfile.mkdtemp())
        bag.bag_dag(dag)  # type: ignore[arg-type]
        sync_bag_to_db(bag, "dags-folder", None)
        run = dag.test(logical_date=pendulum.datetime(2026, 11, 2, tz="UTC"))  # type: ignore[attr-defined]
        states = {ti.task_id: ti.state for ti in run.get_task_instances()}
        check(run.state == "success", f"dag.test() of {DAG_ID}: {run.state}, tasks {states}")
        submits = [r for r in fake.requests if r.method == "POST" and r.path == "/druid/indexer/v1/task"]
        check(len(submits) == 1, f"expected one Druid submit, saw {len(submits)}")
        check(any("/metadata/datasources/events_web/segments" in r.path for r in fake.requests),
              "the one-shot task never read the handoff gate")
        return str(submits[0].json["id"])


if __name__ == "__main__":
    main(sys.argv)
