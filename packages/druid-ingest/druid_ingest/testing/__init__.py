"""A fake Apache Druid cluster over real HTTP, for offline tests of DAGs and clients.

Router-style paths on one port (``/druid/indexer/*``, ``/druid/coordinator/*``, ``/status/health``),
behaviour modelled on docs/druid-contract.md and dev/druid/RECORDED.md (Overlord submit/status/reports/shutdown,
slots, segment
publishing and handoff, Coordinator listings and load status, Basic auth), plus fault injection::

    from druid_ingest.testing import FakeDruid, Fault, TaskPlan

    with FakeDruid(task_duration=0.2) as fake:
        fake.add_fault(Fault(method="POST", path=r"/task$", kind="status", status=500))
        ...  # point the client at fake.url

With the package installed, pytest gets a ``fake_druid`` fixture (and ``fake_druid_factory``).
Importing this module imports aiohttp; nothing here imports Airflow.
"""

from druid_ingest.testing.fake_faults import Fault
from druid_ingest.testing.fake_http import RecordedRequest
from druid_ingest.testing.fake_server import FakeDruid
from druid_ingest.testing.fake_specs import index_parallel_spec
from druid_ingest.testing.fake_tasks import FakeTask, TaskPlan
from druid_ingest.testing.sim_clock import SimClock

__all__ = ["FakeDruid", "FakeTask", "Fault", "RecordedRequest", "SimClock", "TaskPlan", "index_parallel_spec"]
