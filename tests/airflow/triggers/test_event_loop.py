"""The first Druid trigger in a fresh triggerer must not block the event loop every trigger shares.

Measured in a fresh interpreter (nothing imported yet, as in a just-started triggerer): a 5 ms ticker on the loop
records how much CPU the loop's thread spent between two of its wakes while a DruidTaskTrigger starts and runs to
its event: work that held the loop. Not how late it woke: on a loaded machine the whole process waits for a core,
which blocks nothing (a wall-clock bound of 250 ms failed at 275 ms under a busy loop and four pytest workers on 2
cores, 18 ms quiet).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from ..helpers import submit

PROBE = textwrap.dedent('''
    import asyncio, json, sys, time

    async def ticker(busy, late, stop):
        while not stop.is_set():
            cpu, start = time.thread_time(), time.perf_counter()
            await asyncio.sleep(0.005)
            busy.append(time.thread_time() - cpu)
            late.append(time.perf_counter() - start - 0.005)

    async def main(druid_task_id, inline):
        from airflow_provider_druid_ingest.triggers import base
        from airflow_provider_druid_ingest.triggers.task import DruidTaskTrigger
        if inline:  # what the trigger did before: build the client (import aiohttp...) on the loop
            async def on_loop(func, *args):
                return func(*args)
            base.asyncio.to_thread = on_loop
        busy, late, stop = [], [], asyncio.Event()
        watch = asyncio.create_task(ticker(busy, late, stop))
        await asyncio.sleep(0.05)
        trigger = DruidTaskTrigger(druid_task_id=druid_task_id, poll_interval=0.05, max_poll_interval=0.1)
        event = await trigger.run().__anext__()
        stop.set()
        await watch
        print(json.dumps({"max_busy": max(busy), "max_late": max(late), "status": event.payload["status"]}))

    asyncio.run(main(sys.argv[1], sys.argv[2] == "inline"))
''')


def _probe(druid_task_id: str, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, druid_task_id, mode], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_first_trigger_does_not_block_the_loop(druid_conn):
    druid_task_id = submit()
    threaded = _probe(druid_task_id, "thread")
    inline = _probe(druid_task_id, "inline")
    print(f"loop held at most {threaded['max_busy'] * 1000:.0f} ms of CPU (client built in a thread) vs "
          f"{inline['max_busy'] * 1000:.0f} ms (built on the loop); woke at most {threaded['max_late'] * 1000:.0f} / "
          f"{inline['max_late'] * 1000:.0f} ms late")
    assert threaded["status"] == "success" and inline["status"] == "success"
    assert threaded["max_busy"] < 0.1
