#!/usr/bin/env bash
# The release check (CI step, called by scripts/test.sh): build the three wheels and sdists (the core
# druid-ingest, dagster-druid-ingest, the provider), `twine check` them, check what they contain, install the core
# alone and the Dagster wheel without Airflow (fresh venvs; size and install time printed), then install the
# provider's wheel beside the core's into a FRESH venv per claimed Airflow version and smoke-test it
# (scripts/ci/package_smoke.py: import, provider registered, example DAGs parse, an ingestion under dag.test()
# against the fake Druid):
#   lowest  Airflow (PACKAGE_SMOKE_LOW,  default 3.2.0): the wheel alone, so the run also proves the provider
#           works without the [openlineage] extra; then the extra at its declared floor, facets through the
#           OpenLineage listener. Resolved as of PACKAGE_SMOKE_LOW_AS_OF (two weeks after 3.2.0's upload), as
#           Airflow's constraints file for that release would pin it (today's pydantic 2.14 breaks 3.2.0's task
#           runner, today's structlog breaks 3.1.0); the providers we require may be newer (providers are
#           upgraded independently of Airflow core).
#   highest Airflow (PACKAGE_SMOKE_HIGH, default 3.3.2): the wheel with [openlineage] as pip resolves it.
# Fresh venvs come from uv (a PyPI package in .venv's [dev] extra) with its download cache (~/.cache/uv), so a
# warm run installs Airflow in seconds. The versions run at the same time (their logs printed whole, in order;
# PACKAGE_SMOKE_SERIAL=1 for one after the other): 82 s -> 54 s on the 2-core machine. Idempotent (everything under var/package/ is rebuilt each run); any
# failure exits non-zero with the step that failed.
#
#   bash scripts/ci/package_smoke.sh                 build + both versions
#   PACKAGE_SMOKE_VERSIONS="3.3.2" bash scripts/ci/package_smoke.sh    only the highest (quick local check)
#   PACKAGE_SMOKE_VERSIONS=" " bash scripts/ci/package_smoke.sh        build and inspect only
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
low="${PACKAGE_SMOKE_LOW:-3.2.0}"
low_as_of="${PACKAGE_SMOKE_LOW_AS_OF:-2026-04-21T00:00:00Z}"
high="${PACKAGE_SMOKE_HIGH:-3.3.2}"
versions="${PACKAGE_SMOKE_VERSIONS:-$low $high}"
out="$root/var/package"
py="$root/.venv/bin/python"
fail() { echo "package smoke: FAILED: $*" >&2; exit 1; }
[ -x "$py" ] || fail ".venv missing: run scripts/bootstrap.sh"
for tool in build twine uv hatchling; do
  "$py" -c "import $tool" 2>/dev/null || fail "'$tool' missing in .venv ([dev] extra): run scripts/bootstrap.sh"
done
uv=("$root/.venv/bin/uv")
base_python="$("$py" -c 'import sys; print(sys._base_executable)')"
t0=$SECONDS
rm -rf "$out"
mkdir -p "$out"

# ---- build and inspect ----------------------------------------------------------------------------------
# three distributions, one version: the core (packages/druid-ingest), the Dagster integration
# (packages/dagster-druid-ingest) and the provider (the root); each built from its own folder
for src in packages/druid-ingest packages/dagster-druid-ingest .; do
  "$py" -m build --no-isolation --outdir "$out/dist" "$src" >>"$out/build.log" 2>&1 \
    || { tail -30 "$out/build.log"; fail "python -m build $src"; }
done
wheel=("$out"/dist/airflow_provider_druid_ingest-*.whl)
sdist=("$out"/dist/airflow_provider_druid_ingest-*.tar.gz)
core_wheel=("$out"/dist/druid_ingest-*.whl)
dagster_wheel=("$out"/dist/dagster_druid_ingest-*.whl)
[ -f "${wheel[0]}" ] && [ -f "${sdist[0]}" ] && [ -f "${core_wheel[0]}" ] && [ -f "${dagster_wheel[0]}" ] \
  && [ "$(ls "$out"/dist/*.whl | wc -l)" = 3 ] || fail "expected three wheels and their sdists in $out/dist: $(ls "$out/dist")"
"$py" -m twine check --strict "$out"/dist/* || fail "twine check"
version="$("$py" -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); m = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")); print(next(l.split(": ", 1)[1] for l in z.read(m).decode().splitlines() if l.startswith("Version: ")))' "${wheel[0]}")"
source_version="$("$py" -c 'import ast, sys; print(next(n.value.value for n in ast.parse(open(sys.argv[1]).read()).body if isinstance(n, ast.Assign) and n.targets[0].id == "__version__"))' airflow_provider_druid_ingest/__init__.py)"
[ "$version" = "$source_version" ] || fail "wheel version $version != __version__ $source_version"
for w in "${core_wheel[0]}" "${dagster_wheel[0]}"; do
  case "$(basename "$w")" in *"-$version-"*) ;; *) fail "$(basename "$w") is not version $version (one version for the three)";; esac
done
"$py" - "${core_wheel[0]}" "${dagster_wheel[0]}" "$version" <<'EOF' || fail "core/dagster wheel contents"
import sys, zipfile
core, dagster, version = sys.argv[1:]
problems = []
for wheel, top, need in [
    (core, "druid_ingest", ["py.typed", "testing/fake_server.py", "testing/pytest_plugin.py", "cli/__init__.py", "wire/__init__.py"]),
    (dagster, "dagster_druid_ingest", ["py.typed", "resource.py"]),
]:
    names = zipfile.ZipFile(wheel).namelist()
    info = f"{top}-{version}.dist-info"
    problems += [f"{wheel} lacks {top}/{n}" for n in need if f"{top}/{n}" not in names]
    problems += [f"{wheel} has top-level {n}" for n in sorted({n.split('/')[0] for n in names} - {top, info})]
    meta = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    if "apache-airflow" in meta.lower():
        problems.append(f"{wheel} requires Airflow:\n{meta}")
eps = zipfile.ZipFile(core).read(f"druid_ingest-{version}.dist-info/entry_points.txt").decode()
for line in ("druid-ingest = druid_ingest.cli:main", "druid_ingest_fake = druid_ingest.testing.pytest_plugin"):
    if line not in eps:
        problems.append(f"the core wheel's entry_points.txt lacks {line!r}:\n{eps}")
if problems:
    sys.exit("\n".join(problems))
print(f"package smoke: ok: the core and the Dagster wheels ({version}): contents, entry points, no Airflow")
EOF
"$py" - "${wheel[0]}" "${sdist[0]}" "$version" <<'EOF' || fail "package contents"
import sys, tarfile, zipfile
wheel, sdist, version = sys.argv[1:]
names = zipfile.ZipFile(wheel).namelist()
need = ["airflow_provider_druid_ingest/py.typed", "airflow_provider_druid_ingest/get_provider_info.py",
        "airflow_provider_druid_ingest/cli_check_dags.py", f"airflow_provider_druid_ingest-{version}.dist-info/licenses/LICENSE"]
missing = [n for n in need if n not in names]
outside = sorted({n.split("/")[0] for n in names} - {"airflow_provider_druid_ingest", f"airflow_provider_druid_ingest-{version}.dist-info"})
eps = zipfile.ZipFile(wheel).read(f"airflow_provider_druid_ingest-{version}.dist-info/entry_points.txt").decode()
members = [m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m]
banned = [m for m in members if m.startswith(("var/", ".venv", "dev/druid/lib/", "dev/druid/var/", "benchmarks/", ".ci/"))
          or "/__pycache__/" in f"/{m}" or m.endswith(".pyc")]
sdist_need = ["pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "airflow_provider_druid_ingest/py.typed",
              "tests/airflow/test_openlineage.py", "dags/example_druid_daily.py", "scripts/ci/package_smoke.sh",
              "packages/druid-ingest/pyproject.toml", "packages/dagster-druid-ingest/pyproject.toml"]
problems = [f"wheel lacks {n}" for n in missing] + [f"wheel has top-level {n}" for n in outside]
if "provider_info = airflow_provider_druid_ingest.get_provider_info:get_provider_info" not in eps:
    problems.append(f"wheel entry_points.txt lacks the apache_airflow_provider entry point:\n{eps}")
problems += [f"sdist contains {m}" for m in banned[:20]] + [f"sdist lacks {n}" for n in sdist_need if n not in members]
if problems:
    sys.exit("\n".join(problems))
print(f"package smoke: ok: {len(names)} files in the wheel, {len(members)} in the sdist; entry point, py.typed, LICENSE")
EOF
# the sdist must rebuild the same wheel (nothing the build needs is left out of it)
"$py" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$out/from-sdist" "${sdist[0]}" >"$out/sdist-build.log" 2>&1 \
  || { tail -20 "$out/sdist-build.log"; fail "building a wheel from the sdist"; }
"$py" - "${wheel[0]}" "$out"/from-sdist/*.whl <<'EOF' || fail "the wheel built from the sdist differs"
import sys, zipfile
a, b = (sorted(n for n in zipfile.ZipFile(w).namelist() if not n.endswith("RECORD")) for w in sys.argv[1:])
if a != b:
    sys.exit(f"only in the direct wheel: {sorted(set(a) - set(b))}; only from the sdist: {sorted(set(b) - set(a))}")
EOF
echo "package smoke: built and checked $(cd "$out/dist" && ls | tr '\n' ' ')in $((SECONDS - t0))s"

# ---- the core alone, the Dagster wheel without Airflow -------------------------------------------------------
# What a non-Airflow user installs: the core's venv has neither airflow nor dagster, and validates a spec and runs
# an ingestion against the fake Druid; the Dagster wheel's venv has no airflow and validates the example
# definitions. PACKAGE_SMOKE_ALONE=0 skips this part.
alone() {  # name wheels...: a fresh venv with only these wheels (and what they require); prints size and time
  local name="$1"; shift
  local venv="$out/venv-$name" t1=$SECONDS
  "${uv[@]}" venv --quiet --python "$base_python" "$venv"
  "${uv[@]}" pip install --quiet --python "$venv/bin/python" "$@" || fail "installing $name alone"
  "${uv[@]}" pip check --quiet --python "$venv/bin/python" >/dev/null 2>&1 || fail "pip check ($name alone)"
  echo "package smoke: $name alone: installed in $((SECONDS - t1))s, venv $(du -sh "$venv" | cut -f1)"
}
if [ "${PACKAGE_SMOKE_ALONE:-1}" = 1 ]; then
  alone core "${core_wheel[0]}"
  vpy="$out/venv-core/bin/python"
  for banned in airflow dagster; do
    ! "$vpy" -c "import $banned" 2>/dev/null || fail "the core's venv can import $banned"
  done
  "$out/venv-core/bin/druid-ingest" validate dags/specs/events_web.json --interval 2026-11-01/2026-11-02 >/dev/null \
    || fail "druid-ingest validate in the core's venv"
  (cd "$out" && "$vpy" - <<'EOF') || fail "an ingestion against the fake Druid in the core's venv"
from druid_ingest import ClusterConfig, DruidClient, build_plan
from druid_ingest.testing import FakeDruid, index_parallel_spec

with FakeDruid(task_duration=0.1, handoff_delay=0.1) as fake, DruidClient(ClusterConfig(fake.url)) as client:
    plan = build_plan(index_parallel_spec("smoke_core", intervals=["2026-11-01/2026-11-02"]))
    result = client.ingest(plan, task_timeout=30, handoff_timeout=30)
    assert result.status.state == "SUCCESS", result
print("package smoke: ok: the core alone: no airflow, no dagster; validate and an ingestion against the fake")
EOF
  alone dagster "${core_wheel[0]}" "${dagster_wheel[0]}"
  ! "$out/venv-dagster/bin/python" -c "import airflow" 2>/dev/null || fail "the Dagster wheel's venv can import airflow"
  "$out/venv-dagster/bin/dagster" definitions validate -f examples/dagster/definitions.py >"$out/dagster-validate.log" 2>&1 \
    || { tail -20 "$out/dagster-validate.log"; fail "dagster definitions validate in the Dagster wheel's venv"; }
  echo "package smoke: ok: the Dagster wheel without Airflow validates examples/dagster/definitions.py"
fi

# ---- a fresh venv per Airflow version -------------------------------------------------------------------
ol_floor="$("$py" -c 'import re, tomllib; deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["openlineage"]; print(re.search(r">=([0-9.]+)", deps[0]).group(1))')"
smoke() {  # venv-python --no-openlineage | --openlineage events-file
  local vpy="$1"; shift
  (cd "$out" && "$vpy" "$root/scripts/ci/package_smoke.py" "$root" "$version" "$@") \
    || fail "smoke test with Airflow $airflow_version ($*)"
}
smoke_version() {  # airflow-version: a fresh venv, the wheel, the smoke test(s); its own log, exit 1 on failure
  local airflow_version="$1" t1=$SECONDS
  local venv="$out/venv-$airflow_version"
  "${uv[@]}" venv --quiet --python "$base_python" "$venv"
  local vpy="$venv/bin/python"
  if [ "$airflow_version" = "$low" ] && [ "$low" != "$high" ]; then
    local as_of=(--exclude-newer "$low_as_of" --exclude-newer-package "apache-airflow-providers-common-compat=2100-01-01T00:00:00Z")
    "${uv[@]}" pip install --quiet --python "$vpy" "${as_of[@]}" "${core_wheel[0]}" "${wheel[0]}" "apache-airflow==$airflow_version" \
      || fail "installing the wheel with Airflow $airflow_version"
    smoke "$vpy" --no-openlineage
    "${uv[@]}" pip install --quiet --python "$vpy" "${as_of[@]}" "${core_wheel[0]}" "${wheel[0]}[openlineage]" \
      "apache-airflow==$airflow_version" "apache-airflow-providers-openlineage==$ol_floor" \
      || fail "installing [openlineage] at its floor $ol_floor"
  else
    "${uv[@]}" pip install --quiet --python "$vpy" "${core_wheel[0]}" "${wheel[0]}[openlineage]" "apache-airflow==$airflow_version" \
      || fail "installing the wheel[openlineage] with Airflow $airflow_version"
  fi
  "${uv[@]}" pip check --python "$vpy" >/dev/null || { "${uv[@]}" pip check --python "$vpy"; fail "pip check (Airflow $airflow_version)"; }
  local events="$out/openlineage-$airflow_version.jsonl"
  AIRFLOW__OPENLINEAGE__TRANSPORT="{\"type\": \"file\", \"log_file_path\": \"$events\", \"append\": true}" \
    AIRFLOW__OPENLINEAGE__NAMESPACE=package_smoke smoke "$vpy" --openlineage "$events"
  local ol_version
  ol_version="$("${uv[@]}" pip show --python "$vpy" apache-airflow-providers-openlineage | sed -n 's/^Version: //p')"
  echo "package smoke: Airflow $airflow_version (OpenLineage provider $ol_version) green in $((SECONDS - t1))s, venv $(du -sh "$venv" | cut -f1)"
}
# The versions run at once (each in its own venv, AIRFLOW_HOME and log; uv's cache takes concurrent installs):
# most of a version's time is waiting on imports, `airflow db migrate` and dag.test(), so two overlap well on
# 2 cores. Each log is printed whole, in order, when its version ends; any failure fails the script.
# PACKAGE_SMOKE_SERIAL=1 runs them one after the other (output as it comes).
pids=()
for airflow_version in $versions; do
  if [ "${PACKAGE_SMOKE_SERIAL:-0}" = 1 ]; then
    smoke_version "$airflow_version"
  else
    smoke_version "$airflow_version" >"$out/smoke-$airflow_version.log" 2>&1 &
    pids+=("$!")
  fi
done
failed=()
set -- $versions
for pid in "${pids[@]}"; do
  rc=0
  wait "$pid" || rc=$?
  echo "package smoke: ---- Airflow $1 (log $out/smoke-$1.log) ----"
  cat "$out/smoke-$1.log"
  [ "$rc" = 0 ] || failed+=("$1")
  shift
done
[ ${#failed[@]} = 0 ] || fail "Airflow ${failed[*]} (logs above)"
echo "package smoke: all green ($versions) in $((SECONDS - t0))s"
