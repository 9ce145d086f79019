"""The rooms' lazy faces: a public name resolves to its private module's object, once; an unknown one fails clearly."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

ROOMS = ["druid_ingest", "druid_ingest.wire", "druid_ingest.api", "druid_ingest.planning",
         "druid_ingest.planning.spec", "druid_ingest.ops", "druid_ingest.clients"]


@pytest.mark.parametrize("room", ROOMS)
def test_every_public_name_resolves_and_is_cached(room: str) -> None:
    face = importlib.import_module(room)
    for name in face.__all__:
        value = getattr(face, name)
        assert vars(face)[name] is value, f"{room}.{name} not cached in the face's namespace"


@pytest.mark.parametrize("room", ROOMS)
def test_unknown_name_names_the_room(room: str) -> None:
    face = importlib.import_module(room)
    with pytest.raises(AttributeError, match=rf"module '{room}' has no attribute 'no_such_name'"):
        face.no_such_name  # noqa: B018


def test_importing_a_room_loads_none_of_its_private_modules() -> None:
    code = "import sys, druid_ingest.ops; print(sorted(m for m in sys.modules if m.startswith('druid_ingest.ops.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
