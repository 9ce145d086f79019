"""dev/druid/druid.sh's extension knob, run by bash: DRUID_EXTENSIONS_DIR adds the load list; unset, nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "dev" / "druid" / "druid.sh"


def extension_props(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Only the script's ``extension_props`` function (and the harnesses' shared ``die`` from dev/lib.sh),
    evaluated in a clean bash."""
    body = SCRIPT.read_text()
    props = body[body.index("extension_props() {"):].split("\n}\n", 1)[0] + "\n}"
    funcs = f"DEV_NAME=druid.sh\nsource '{ROOT / 'dev' / 'lib.sh'}'\n{props}"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DRUID_EXTENSIONS")}
    return subprocess.run(["bash", "-c", f"set -euo pipefail\n{funcs}\nextension_props"], env={**clean, **env},
                          capture_output=True, text=True)


def test_unset_adds_nothing() -> None:
    out = extension_props({})
    assert out.returncode == 0 and out.stdout == ""


def test_every_folder_or_the_named_ones(tmp_path: Path) -> None:
    for name in ("druid-multi-stage-query", "other-ext"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}-33.0.0.jar").write_bytes(b"PK")
    out = extension_props({"DRUID_EXTENSIONS_DIR": str(tmp_path)})
    assert out.stdout.splitlines() == [f"-Ddruid.extensions.directory={tmp_path}",
                                       '-Ddruid.extensions.loadList=["druid-multi-stage-query","other-ext"]']
    named = extension_props({"DRUID_EXTENSIONS_DIR": str(tmp_path), "DRUID_EXTENSIONS": "druid-multi-stage-query"})
    assert named.stdout.splitlines()[1] == '-Ddruid.extensions.loadList=["druid-multi-stage-query"]'


def test_a_folder_without_its_jar_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "druid-multi-stage-query").mkdir()
    out = extension_props({"DRUID_EXTENSIONS_DIR": str(tmp_path)})
    assert out.returncode != 0 and "extension 'druid-multi-stage-query': no jar in" in out.stderr
    missing = extension_props({"DRUID_EXTENSIONS_DIR": str(tmp_path / "nope")})
    assert missing.returncode != 0 and "is not a directory" in missing.stderr
