"""The three dev harnesses (dev/druid, dev/airflow, dev/nginx) share dev/lib.sh and answer the same verbs, so a
user who knows one knows the others: start, stop, status, logs, url, env. `url` and `env` answer without any
service running (they are how scripts and tests find a harness). `clean` leaves nothing behind, also outside
the checkout."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESSES = {"druid": ROOT / "dev/druid/druid.sh", "airflow": ROOT / "dev/airflow/airflow.sh",
             "nginx": ROOT / "dev/nginx/nginx.sh"}
VERBS = ("start", "stop", "status", "logs", "url", "env", "clean")


def _run(script: Path, *args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(tmp_path),
           "AIRFLOW_DEV_VAR_DIR": str(tmp_path / "airflow"), "NGINX_DEV_VAR_DIR": str(tmp_path / "nginx"),
           "DRUID_VAR_DIR": str(tmp_path / "druid")}
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_sources_the_shared_library_and_defines_no_copy_of_it(name: str) -> None:
    text = HARNESSES[name].read_text()
    assert 'source "$' in text and "/../lib.sh" in text
    for fn in ("log", "die", "port_open", "pid_file"):
        assert not re.search(rf"^{fn}\(\) \{{", text, re.M), f"{name} defines its own {fn}()"


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_each_harness_documents_and_answers_the_same_verbs(name: str, tmp_path: Path) -> None:
    usage = _run(HARNESSES[name], "help", tmp_path=tmp_path)
    for verb in VERBS:
        assert re.search(rf"\.sh {verb}\b", usage.stdout + usage.stderr), (name, verb, usage.stdout)
    bad = _run(HARNESSES[name], "no-such-verb", tmp_path=tmp_path)
    assert bad.returncode == 2


def test_url_and_env_answer_without_a_running_service(tmp_path: Path) -> None:
    druid = _run(HARNESSES["druid"], "env", tmp_path=tmp_path)
    assert druid.returncode == 0 and druid.stdout.strip() == "DRUID_URL=http://127.0.0.1:8888"
    assert _run(HARNESSES["druid"], "url", tmp_path=tmp_path).stdout.strip() == "http://127.0.0.1:8888"
    assert _run(HARNESSES["nginx"], "url", tmp_path=tmp_path).stdout.strip() == "https://127.0.0.1:28443"
    nginx_env = _run(HARNESSES["nginx"], "env", tmp_path=tmp_path)  # nothing made yet: says what to run
    assert nginx_env.returncode == 1 and "nginx.sh start" in nginx_env.stderr
    assert nginx_env.stderr.startswith("[nginx.sh] ERROR: ")  # the shared die(), with the harness's name


VAR_DIRS = {"druid": "druid", "airflow": "airflow", "nginx": "nginx"}


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_clean_stops_and_removes_the_var_dir(name: str, tmp_path: Path) -> None:
    var = tmp_path / VAR_DIRS[name]
    (var / "run").mkdir(parents=True)
    (var / "run" / "left-behind").write_text("x")
    done = _run(HARNESSES[name], "clean", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not var.exists()
    assert f"removed {var}" in done.stderr
    again = _run(HARNESSES[name], "clean", tmp_path=tmp_path)  # idempotent: nothing left to remove
    assert again.returncode == 0 and "removed" not in again.stderr


def _lib(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"),
           "DRUID_INGEST_DEV_STATE_ROOT": str(tmp_path / "outside")}
    return subprocess.run(["bash", "-c", f'source "{ROOT}/dev/lib.sh"; {script}'], capture_output=True, text=True,
                          timeout=30, env=env)


def test_remove_state_takes_the_outside_dir_and_its_emptied_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "airflow-pg-0123456789ab"
    (outside / "data").mkdir(parents=True)
    var = tmp_path / "checkout" / "var" / "airflow"
    var.mkdir(parents=True)
    done = _lib(f'dev_remove_state "{var}" "{outside}"', tmp_path)
    assert done.returncode == 0, done.stderr
    assert not var.exists() and not outside.exists()
    assert not (tmp_path / "outside").exists()  # the emptied root goes too
    keep = tmp_path / "outside" / "nginx-ffffffffffff"  # another checkout's state: a non-empty root stays
    keep.mkdir(parents=True)
    assert _lib(f'dev_remove_state "{tmp_path / "outside" / "gone"}"', tmp_path).returncode == 0
    assert keep.exists()


@pytest.mark.parametrize("what", ["/", "relative/var", "HOME", "CHECKOUT"])
def test_remove_state_refuses_what_no_harness_made(what: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    checkout = tmp_path / "repo"
    (checkout / ".git").mkdir(parents=True)
    home.mkdir()
    path = {"HOME": str(home), "CHECKOUT": str(checkout)}.get(what, what)
    done = _lib(f'dev_remove_state "{path}"', tmp_path)
    assert done.returncode == 1 and "clean: refusing to remove" in done.stderr
    assert home.exists() and checkout.exists()


def _nginx_port_defaults() -> dict[str, int]:
    text = HARNESSES["nginx"].read_text()
    return {name: int(port) for name, port in re.findall(r"\$\{(NGINX_DEV_\w*PORT):-(\d+)\}", text)}


def test_nginx_status_names_both_servers_and_fails_when_either_is_down(tmp_path: Path) -> None:
    status = _run(HARNESSES["nginx"], "status", tmp_path=tmp_path)
    assert status.returncode == 1
    assert status.stdout.splitlines() == ["nginx not running", "squid not running"]


def test_nginx_ports_are_distinct_and_the_0700_clone_moves_every_one(tmp_path: Path) -> None:
    defaults = _nginx_port_defaults()
    assert set(defaults) == {"NGINX_DEV_PORT", "NGINX_DEV_REDIRECT_PORT", "NGINX_DEV_TOKEN_PORT",
                             "NGINX_DEV_MTLS_PORT", "NGINX_DEV_PROXY_PORT", "NGINX_DEV_SQUID_PORT"}
    assert len(set(defaults.values())) == len(defaults), defaults
    # scripts/ci/outside_checkout.sh starts a second harness beside the suite's: every port must move
    clone = dict(re.findall(r"(NGINX_DEV_\w*PORT)=(\d+)", (ROOT / "scripts/ci/outside_checkout.sh").read_text()))
    assert set(clone) == set(defaults), sorted(set(defaults) - set(clone))
    assert not {int(p) for p in clone.values()} & set(defaults.values())


def test_nginx_start_refuses_a_squid_binary_that_is_not_one(tmp_path: Path) -> None:
    env_extra = {"SQUID": str(tmp_path / "no-squid-here"), "DRUID_URL": "http://127.0.0.1:9"}
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(tmp_path), "NGINX_DEV_VAR_DIR": str(tmp_path / "nginx"),
           **env_extra}
    done = subprocess.run(["bash", str(HARNESSES["nginx"]), "start"], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 1
    assert f"[nginx.sh] ERROR: SQUID={tmp_path / 'no-squid-here'} is not an executable file" in done.stderr
    assert not (tmp_path / "nginx" / "nginx.pid").exists()


def _airflow_env(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(tmp_path), "AIRFLOW_DEV_VAR_DIR": str(tmp_path / "af"),
           **extra}
    # `env` makes the secrets once (needs .venv's cryptography), then answers without any service
    return subprocess.run(["bash", str(HARNESSES["airflow"]), "env"], capture_output=True, text=True, timeout=60,
                          env=env)


def test_airflow_executor_knob_defaults_to_local_and_picks_celery(tmp_path: Path) -> None:
    local = _airflow_env(tmp_path)
    assert local.returncode == 0, local.stderr
    assert "AIRFLOW__CORE__EXECUTOR=LocalExecutor" in local.stdout and "CELERY" not in local.stdout
    celery = _airflow_env(tmp_path, AIRFLOW_DEV_EXECUTOR="celery", AIRFLOW_DEV_REDIS_PORT="26999")
    assert celery.returncode == 0, celery.stderr
    assert "AIRFLOW__CORE__EXECUTOR=CeleryExecutor" in celery.stdout
    assert "AIRFLOW__CELERY__BROKER_URL='redis://127.0.0.1:26999/0'" in celery.stdout
    assert re.search(r"AIRFLOW__CELERY__RESULT_BACKEND='db\+postgresql\+psycopg2://airflow:[0-9a-f]+@127\.0\.0\.1:25432/airflow'",
                     celery.stdout)


def test_airflow_celery_parallelism_covers_both_workers(tmp_path: Path) -> None:
    # [core] parallelism caps running tasks over all workers: below 2 x concurrency, one worker's slots sit idle
    celery = _airflow_env(tmp_path, AIRFLOW_DEV_EXECUTOR="celery", AIRFLOW_DEV_WORKER_CONCURRENCY="3")
    assert celery.returncode == 0, celery.stderr
    assert "AIRFLOW__CELERY__WORKER_CONCURRENCY=3" in celery.stdout
    assert "AIRFLOW__CORE__PARALLELISM=6" in celery.stdout
    local = _airflow_env(tmp_path, AIRFLOW_DEV_WORKER_CONCURRENCY="3")
    assert "AIRFLOW__CORE__PARALLELISM=4" in local.stdout


def test_airflow_executor_knob_refuses_an_unknown_executor(tmp_path: Path) -> None:
    bad = _airflow_env(tmp_path, AIRFLOW_DEV_EXECUTOR="kubernetes")
    assert bad.returncode == 2
    assert "AIRFLOW_DEV_EXECUTOR=kubernetes" in bad.stderr and "local" in bad.stderr and "celery" in bad.stderr


def test_airflow_celery_mode_documents_its_services_and_ports() -> None:
    text = HARNESSES["airflow"].read_text()
    for word in ("AIRFLOW_DEV_EXECUTOR", "AIRFLOW_DEV_REDIS_PORT", "worker-N", "triggerer-N", "redis"):
        assert word in text.split("set -euo pipefail")[0], word


def test_stop_pid_stops_a_process_and_kills_one_that_ignores_the_signal(tmp_path: Path) -> None:
    """dev/lib.sh's stop_pid (every harness stops its single-pid servers with it) and live_pid, on real processes:
    a polite process exits on TERM; one that ignores TERM is SIGKILLed once its grace has passed."""
    script = f"""
source {ROOT / 'dev/lib.sh'}
sleep 60 & polite=$!
bash -c 'trap "" TERM; sleep 60' & stubborn=$!
echo $polite > {tmp_path}/polite.pid
# wait until each runs its command: sleep for the polite one, TERM ignored for the stubborn one
until [[ "$(pid_cmdline $polite)" == "sleep 60 " ]]; do sleep 0.05; done
until (( 0x$(awk '/^SigIgn/ {{print $2}}' /proc/$stubborn/status) & 0x4000 )); do sleep 0.05; done
[[ "$(live_pid {tmp_path}/polite.pid)" == "$polite" ]] || {{ echo "live_pid missed $polite"; exit 1; }}
stop_pid $polite polite TERM 5
stop_pid $stubborn stubborn TERM 1
wait $polite $stubborn 2>/dev/null
live_pid {tmp_path}/polite.pid && {{ echo "live_pid still sees $polite"; exit 1; }}
live_pid {tmp_path}/missing.pid && exit 1
echo done
"""
    # An ignored signal stays ignored across exec, and bash cannot un-ignore one it started with: a library in the
    # same pytest worker that ignores SIGTERM made the "polite" sleep ignore it too (reproduced by running this test
    # from a process that ignores SIGTERM). The child starts with TERM at its default.
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"stopped polite \(pid \d+\)$", done.stderr, re.M), done.stderr
    assert re.search(r"stopped stubborn \(pid \d+, SIGKILL after 1s\)", done.stderr), done.stderr


def _fake_harness(tmp_path: Path, services: dict[str, str], script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a harness made up here on dev/lib.sh: service NAME is ``bash -c CODE fake-NAME`` (CODE from
    ``services``; its loops keep bash, and so the name, running), which service_is knows by that name."""
    arms = "\n".join(f"    {name}) SERVICE_CMD=(bash -c {shlex.quote(code)} fake-{name}) ;;"
                     for name, code in services.items())
    prelude = f"""
set -euo pipefail
source {ROOT / 'dev/lib.sh'}
VAR_DIR={tmp_path}
mkdir -p "$VAR_DIR/run" "$VAR_DIR/log"
service_is() {{ [[ "$(pid_cmdline "$2")" == *" fake-$1 "* ]]; }}
prepare_service() {{
  case "$1" in
{arms}
  esac
  SERVICE_NOTE="note of $1"
}}
"""
    # the child starts with TERM at its default (see test_stop_pid_stops_a_process...)
    return subprocess.run(["bash", "-c", prelude + script], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))


def test_start_service_starts_once_in_its_own_session_and_wait_healthy_sees_it_answer_or_die(tmp_path: Path) -> None:
    """dev/lib.sh's start_service, service_pid and wait_healthy (the druid and airflow harnesses start every
    service with them), on real processes: one answers, one exits while starting, one never answers."""
    services = {"answers": "sleep 0.3; touch answered; while :; do sleep 1; done", "quits": "echo boom; exit 3",
                "mute": "while :; do sleep 1; done"}
    done = _fake_harness(tmp_path, services, """
service_healthy() { [[ "$1" == answers && -f "$VAR_DIR/answered" ]]; }
start_service answers
wait_healthy answers $((SECONDS + 20))
pid="$(service_pid answers)"
[[ "$pid" == "$(cat "$(pid_file answers)")" ]] || { echo "service_pid $pid is not the recorded pid"; exit 1; }
[[ "$(ps -o sid= -p "$pid" | tr -d ' ')" == "$pid" ]] || { echo "answers runs in the caller's session"; exit 1; }
start_service answers  # already running: not started again
[[ "$(grep -c '^=== .* starting answers: bash -c ' "$(log_file answers)")" == 1 ]] || exit 1
kill -KILL "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
service_pid answers && { echo "service_pid still sees $pid"; exit 1; }
( start_service quits; wait_healthy quits $((SECONDS + 20)) ) && exit 1
start_service mute
( wait_healthy mute $((SECONDS + 1)) ) && exit 1
kill -KILL "$(service_pid mute)"
echo done
""")
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stdout + done.stderr
    assert re.search(r"started answers \(pid \d+, note of answers, log .*/log/answers\.log\)", done.stderr)
    assert re.search(r"answers already running \(pid \d+\)", done.stderr)
    assert re.search(r"quits exited during startup; last log lines:\n=== \S+ starting quits: bash -c .*\nboom\n",
                     done.stderr)
    assert "[dev] ERROR: quits failed to start (log: " in done.stderr
    assert "[dev] ERROR: mute not healthy after timeout (log: " in done.stderr


def test_stop_services_stops_a_service_or_its_whole_group_and_kills_what_ignores_the_signal(tmp_path: Path) -> None:
    """dev/lib.sh's stop_services (druid.sh stops its services with it, airflow.sh each with its process group):
    a polite service goes on TERM; one that ignores TERM is SIGKILLed after the grace; with STOP_GROUPS=1 a
    service's child goes too. The pid files go."""
    services = {"polite": "while :; do sleep 1; done",
                "stubborn": 'trap "" TERM; touch ignoring; while :; do sleep 1; done',
                "parent": "sleep 300 & echo $! > child.pid; while :; do sleep 1; done"}
    done = _fake_harness(tmp_path, services, """
start_service polite; start_service stubborn; start_service parent
until [[ -f "$VAR_DIR/ignoring" && -s "$VAR_DIR/child.pid" ]] && service_pid polite >/dev/null; do sleep 0.05; done
stop_services 1 polite stubborn
STOP_GROUPS=1 stop_services 5 parent
child="$(cat "$VAR_DIR/child.pid")"
for i in $(seq 50); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
kill -0 "$child" 2>/dev/null && { echo "the group's child $child outlived it"; exit 1; }
ls "$VAR_DIR/run"
echo done
""")
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stdout + done.stderr
    assert re.search(r"stopping polite \(pid \d+\)", done.stderr), done.stderr
    assert re.search(r"stubborn \(pid \d+\) still running after 1s: SIGKILL", done.stderr), done.stderr
    assert not re.search(r"polite .*SIGKILL", done.stderr), done.stderr
    assert re.search(r"stopping parent \(process group \d+\)", done.stderr), done.stderr
