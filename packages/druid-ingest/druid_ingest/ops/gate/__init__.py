"""The handoff gate in one place: Druid's timeline (``timeline``), the pure verdict over it (``verdict``) and the
steps that read Druid for it (``steps``). Part of the ``ops`` room: its names are reached through ``druid_ingest.ops``.
"""
