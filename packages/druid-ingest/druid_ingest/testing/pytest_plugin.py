"""pytest plugin (entry point ``pytest11``): the ``fake_druid`` and ``fake_druid_factory`` fixtures.

The fake is imported lazily so that merely having this package installed keeps pytest start-up cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from druid_ingest.testing.fake_server import FakeDruid

__all__ = ["fake_druid", "fake_druid_factory"]


@pytest.fixture
def fake_druid() -> Iterator[FakeDruid]:
    """A started FakeDruid with default settings, stopped after the test."""
    from druid_ingest.testing.fake_server import FakeDruid

    with FakeDruid() as fake:
        yield fake


@pytest.fixture
def fake_druid_factory() -> Iterator[Callable[..., FakeDruid]]:
    """Call with FakeDruid keyword arguments to get started fakes; all are stopped after the test."""
    from druid_ingest.testing.fake_server import FakeDruid

    started: list[FakeDruid] = []

    def make(**kwargs: Any) -> FakeDruid:
        fake = FakeDruid(**kwargs).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()
