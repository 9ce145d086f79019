"""``PollSchedule.detect_within``: the detection-latency target is checked where it is made, naming the field."""

from __future__ import annotations

import math

import pytest
from druid_ingest.errors import DruidUsageError
from druid_ingest.ops import PollSchedule


@pytest.mark.parametrize("bad", [0, -5, math.nan, math.inf, True, "30"])
def test_a_target_must_be_a_positive_finite_number_of_seconds(bad: object) -> None:
    with pytest.raises(DruidUsageError, match=r"detect_within=") as caught:
        PollSchedule(5, 60, 1.5, detect_within=bad)  # type: ignore[arg-type]
    assert repr(bad) in str(caught.value) and "positive" in str(caught.value)


def test_the_first_delay_may_not_already_exceed_the_target() -> None:
    with pytest.raises(DruidUsageError) as caught:
        PollSchedule(60, 120, 1.5, detect_within=30)
    message = str(caught.value)
    assert "poll_interval" in message and "60" in message and "detect_within=30" in message


def test_a_valid_target_is_kept_and_none_means_no_target() -> None:
    assert PollSchedule(5, 60, 1.5, detect_within=30).detect_within == 30
    assert PollSchedule(5, 60, 1.5, detect_within=5).detect_within == 5  # equal to the first delay: fine
    assert PollSchedule().detect_within is None
    assert PollSchedule(5, 60, 1.5, detect_within=120).detect_within == 120  # above max_poll_interval: fine
