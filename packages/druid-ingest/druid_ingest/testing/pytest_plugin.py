"""pytest plugin (entry point ``pytest11``): the ``fake_druid`` and ``fake_druid_factory`` fixtures.

``@pytest.mark.druid_version("31.0.2")`` gives a test's ``fake_druid`` that Druid release (its version profile,
``fake_versions``); the factory takes ``version=`` like any FakeDruid argument. The fake is imported lazily so
that merely having this package installed keeps pytest start-up cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from druid_ingest.testing.fake_server import FakeDruid

__all__ = ["fake_druid", "fake_druid_factory", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "druid_version(version): the Druid release the test's fake_druid plays")


def _marked_version(request: pytest.FixtureRequest) -> dict[str, Any]:
    marker = request.node.get_closest_marker("druid_version")
    return {"version": marker.args[0]} if marker is not None else {}


@pytest.fixture
def fake_druid(request: pytest.FixtureRequest) -> Iterator[FakeDruid]:
    """A started FakeDruid with default settings (the release of a ``druid_version`` mark), stopped after."""
    from druid_ingest.testing.fake_server import FakeDruid

    with FakeDruid(**_marked_version(request)) as fake:
        yield fake


@pytest.fixture
def fake_druid_factory(request: pytest.FixtureRequest) -> Iterator[Callable[..., FakeDruid]]:
    """Call with FakeDruid keyword arguments to get started fakes (a ``druid_version`` mark sets the default
    ``version``); all are stopped after the test."""
    from druid_ingest.testing.fake_server import FakeDruid

    started: list[FakeDruid] = []
    marked = _marked_version(request)

    def make(**kwargs: Any) -> FakeDruid:
        fake = FakeDruid(**{**marked, **kwargs}).start()
        started.append(fake)
        return fake

    yield make
    for fake in started:
        fake.stop()
