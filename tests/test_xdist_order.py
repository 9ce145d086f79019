"""tests/xdist_order.py's guarantee under ``-n N --dist loadgroup``: every real-Druid test (tests/e2e/) on one
worker, in file order (the others are one scope each, free to go anywhere). And why it is a scheduler of our own:
xdist's public way to say the same (``xdist_group`` marks with ``--dist loadgroup``) is silently ignored on pytest 9
by xdist 3.8 (pytest-dev/pytest-xdist#1386: it renames ``item._nodeid``, which pytest 9 no longer reads). When an
xdist release honours the marks again, the strict xfail below fails: then mark the e2e tests in
``pytest_collection_modifyitems`` and drop the scheduler."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
E2E = 8
OTHERS = 8

TEST = '''
import os, pathlib, pytest
{mark}
@pytest.mark.parametrize("i", range({n}))
def test(i, request):
    pathlib.Path(os.environ["RECORD"], request.node.nodeid.replace("/", "_")).write_text(
        os.environ["PYTEST_XDIST_WORKER"] + " " + str(os.getpid()) + " " + repr(__import__("time").monotonic()))
'''

OUR_SCHEDULER = '''
import importlib.util, pytest
spec = importlib.util.spec_from_file_location("xdist_order", {path!r})
xdist_order = importlib.util.module_from_spec(spec)
spec.loader.exec_module(xdist_order)

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    xdist_order.order_items(config, items)

@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return xdist_order.make_scheduler(config, log)
'''


def _run(tmp_path: Path, conftest: str, mark: str = "") -> dict[str, list[tuple[str, float]]]:
    """Run a made-up suite (tests/e2e/test_a.py + test_b.py, tests/test_c.py) with -n 2 --dist loadgroup; the
    workers that ran each file's tests, with when."""
    (tmp_path / "tests/e2e").mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / f"tests/e2e/test_{name}.py").write_text(TEST.format(mark=mark, n=E2E // 2))
    (tmp_path / "tests/test_c.py").write_text(TEST.format(mark="", n=OTHERS))
    (tmp_path / "conftest.py").write_text(conftest)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    record = tmp_path / "record"
    record.mkdir()
    env = {**os.environ, "RECORD": str(record)}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
                           "tests"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    runs: dict[str, list[tuple[str, float]]] = {}
    for f in sorted(record.iterdir()):
        worker, _pid, when = f.read_text().split()
        runs.setdefault(f.name, []).append((worker, float(when)))
    return runs


def test_the_real_druid_tests_run_on_one_worker_in_file_order(tmp_path: Path) -> None:
    runs = _run(tmp_path, OUR_SCHEDULER.format(path=str(ROOT / "tests/xdist_order.py")))
    e2e = sorted(((when, worker, name) for name, [(worker, when)] in runs.items() if name.startswith("tests_e2e_")))
    assert len(e2e) == E2E and len({worker for _, worker, _ in e2e}) == 1, e2e
    # file order: test_a's before test_b's, each by its parameter
    assert [name for _, _, name in e2e] == sorted(name for _, _, name in e2e), e2e
    assert sum(name.startswith("tests_test_c") for name in runs) == OTHERS


@pytest.mark.xfail(strict=True, reason="pytest-xdist#1386: xdist_group marks are ignored on pytest 9 (xdist 3.8)")
def test_xdists_own_group_marks_would_keep_the_real_druid_tests_together(tmp_path: Path) -> None:
    runs = _run(tmp_path, "", mark='@pytest.mark.xdist_group("real_druid")')
    e2e = {worker for name, [(worker, _)] in runs.items() if name.startswith("tests_e2e_")}
    assert len(e2e) == 1, e2e
