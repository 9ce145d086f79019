"""Chaos suite (marker ``chaos``): the test puts its tally on its report (``tests.summary.add_text``), printed at
the end of the session whether the test passed or not, under pytest-xdist too."""
