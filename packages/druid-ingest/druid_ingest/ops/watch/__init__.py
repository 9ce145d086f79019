"""The served-changes watch in one place: what the Broker serves per time chunk from one look (``state``), the
changes between two looks (``changes``), the cursor a watcher keeps between looks (``cursor``) and the look itself
(``look``). Part of the ``ops`` room: its names are reached through ``druid_ingest.ops``.
"""
