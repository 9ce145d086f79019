#!/usr/bin/env bash
# What the browser test (tests/deploy/test_ui_browser.py) needs: Debian's chromium and its matching
# chromium-driver (apt), and selenium in .venv (the package's [ui] extra). Idempotent: installs only what is
# missing; fails loudly when it cannot (the test then fails too: it never skips).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
if ((${#need[@]})); then
  if [[ $EUID -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "browser: ${need[*]} missing and this is not a root Debian shell: install them by hand (apt-get install chromium chromium-driver)" >&2
    exit 1
  fi
  echo "browser: installing ${need[*]} (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || { echo "browser: apt-get update failed" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null \
    || { echo "browser: apt-get install chromium chromium-driver failed" >&2; exit 1; }
fi
if ! .venv/bin/python -c 'import selenium' 2>/dev/null; then
  echo "browser: installing the [ui] extra (selenium) into .venv"
  .venv/bin/python -m pip install -q -e ".[ui]" || { echo "browser: pip install -e '.[ui]' failed" >&2; exit 1; }
fi
chromium --version
chromedriver --version
