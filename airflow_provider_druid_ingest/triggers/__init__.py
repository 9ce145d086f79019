"""Airflow triggers (run in the triggerer): wait for a Druid task, then for its segments to be served."""
