#!/usr/bin/env bash
# Mutation testing with mutmut 3 (config: [tool.mutmut] in pyproject.toml; RELIABILITY.md "Mutation testing").
#
#   scripts/mutation.sh [THRESHOLD] [MUTANT_GLOB ...]
#
# THRESHOLD: the lowest acceptable kill rate in percent (default 0: only report). MUTANT_GLOB: restrict the run to
# some mutants by mutmut name, e.g. 'druid_ingest.clients._poller*' (default: the whole scope).
# Prints the counts, the kill rate ((killed + timeout) / checked) and every surviving mutant, and exits 1 when the
# kill rate is below THRESHOLD. mutmut works in .mutation/mutants/ (git-ignored) and caches verdicts there: a second
# run re-checks only mutants whose function or tests changed; `rm -rf .mutation` starts afresh.
# Env: MUTMUT (the mutmut executable; default: the one next to $PYTHON, else on PATH), MUTATION_CHILDREN (parallel
# mutants; default: the number of cores + 1, since these tests mostly wait on sockets).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

threshold="${1:-0}"
shift || true
if ! [[ "$threshold" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "usage: $0 [THRESHOLD_PERCENT] [MUTANT_GLOB ...]  (got threshold '$threshold')" >&2
    exit 2
fi

mutmut="${MUTMUT:-}"
if [[ -z "$mutmut" ]]; then
    for candidate in "$(dirname "${PYTHON:-python}")/mutmut" "$root/.venv/bin/mutmut" "$(command -v mutmut || true)"; do
        if [[ -n "$candidate" && -x "$candidate" ]]; then mutmut="$candidate"; break; fi
    done
fi
if [[ -z "$mutmut" ]]; then
    echo "mutmut not found: pip install -e '.[dev]' (or set MUTMUT=/path/to/mutmut)" >&2
    exit 2
fi
children="${MUTATION_CHILDREN:-$(( $(nproc) + 1 ))}"

# mutmut 3 names a module by its path from the working directory and puts only mutants/ (or mutants/src) first on
# sys.path, so the core must sit at the top level: .mutation/ (git-ignored) links it there beside the provider,
# the tests, the example DAGs and pyproject.toml (its [tool.mutmut] paths are relative to .mutation/).
mkdir -p .mutation
for link in druid_ingest:packages/druid-ingest/druid_ingest airflow_provider_druid_ingest:airflow_provider_druid_ingest \
            tests:tests dags:dags pyproject.toml:pyproject.toml; do
    ln -sfn "$root/${link#*:}" ".mutation/${link%%:*}"
done
cd .mutation

started=$(date +%s)
# mutmut's progress line redraws itself; its exit status says nothing about the score (read below)
"$mutmut" run --max-children "$children" "$@" || echo "mutmut run exited with $?" >&2
elapsed=$(( $(date +%s) - started ))

"$mutmut" results --all true | "${PYTHON:-python3}" -c '
import fnmatch, sys
threshold, elapsed, patterns = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows = []
for line in sys.stdin:
    name, sep, status = line.strip().rpartition(": ")
    if sep and (not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns)):
        rows.append((name, status))
count = {}
for _, status in rows:
    count[status] = count.get(status, 0) + 1
checked = sum(n for s, n in count.items() if s not in ("not checked", "skipped"))
caught = count.get("killed", 0) + count.get("timeout", 0) + count.get("caught by type check", 0)
rate = 100.0 * caught / checked if checked else 0.0
print(f"\nmutants: {len(rows)}  checked: {checked}  " + "  ".join(f"{s}: {n}" for s, n in sorted(count.items())))
print(f"kill rate: {rate:.1f}% ((killed + timeout) / checked)   run time: {elapsed // 60}m{elapsed % 60:02d}s")
unchecked = count.get("not checked", 0)
if unchecked:
    print(f"{unchecked} mutants not checked yet (run interrupted): run again to go on from the cache")
survivors = [n for n, s in rows if s not in ("killed", "timeout", "caught by type check", "skipped", "not checked")]
if survivors:
    print("surviving mutants (mutmut show <name> for the diff):")
    for name, status in rows:
        if name in survivors:
            print(f"  {status:12} {name}")
if rate < threshold:
    print(f"FAIL: kill rate {rate:.1f}% is below the threshold {threshold:g}%")
    sys.exit(1)
' "$threshold" "$elapsed" "$@"
