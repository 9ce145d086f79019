"""A few calls of the Airflow 3 REST API (``/api/v2``) of the dev deployment, for the demo and the deploy tests.

It reads the deployment's address and login from the environment that ``dev/airflow/airflow.sh env`` prints,
so both see exactly what a user's browser or script would, through the api-server.
"""

from __future__ import annotations

import os
import time
from typing import Any
from urllib.parse import quote

import requests


class AirflowAPI:
    """Bearer-token client; the token (simple auth manager, ``POST /auth/token``) is renewed when it expires."""

    def __init__(self, url: str | None = None, username: str | None = None, password: str | None = None) -> None:
        self.url = (url or os.environ["AIRFLOW_DEV_API_URL"]).rstrip("/")
        self.username = username or os.environ.get("AIRFLOW_DEV_ADMIN_USER", "admin")
        self.password = password or os.environ["AIRFLOW_DEV_ADMIN_PASSWORD"]
        self.session = requests.Session()
        self._token_at = 0.0

    def _login(self) -> None:
        resp = self.session.post(f"{self.url}/auth/token", json={"username": self.username, "password": self.password},
                                 timeout=10)
        resp.raise_for_status()
        self.session.headers["Authorization"] = f"Bearer {resp.json()['access_token']}"
        self._token_at = time.monotonic()

    def get(self, path: str, **params: Any) -> Any:
        if time.monotonic() - self._token_at > 600:
            self._login()
        resp = self.session.get(f"{self.url}/api/v2{path}", params=params or None, timeout=30)
        if resp.status_code == 401:
            self._login()
            resp = self.session.get(f"{self.url}/api/v2{path}", params=params or None, timeout=30)
        resp.raise_for_status()
        return resp.json()

    def send(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST/PATCH/DELETE (a JSON body); raises with the API's answer on an error status."""
        if time.monotonic() - self._token_at > 600:
            self._login()
        resp = self.session.request(method, f"{self.url}/api/v2{path}", json=body, timeout=30)
        if resp.status_code == 401:
            self._login()
            resp = self.session.request(method, f"{self.url}/api/v2{path}", json=body, timeout=30)
        if resp.status_code >= 400:
            raise requests.HTTPError(f"{method} {path}: {resp.status_code} {resp.text[:500]}", response=resp)
        return resp.json() if resp.content else None

    def health(self) -> dict[str, Any]:
        return requests.get(f"{self.url}/api/v2/monitor/health", timeout=10).json()

    def dag_runs(self, dag_id: str, **params: Any) -> list[dict[str, Any]]:
        return self.get(f"/dags/{dag_id}/dagRuns", limit=100, order_by="logical_date", **params)["dag_runs"]

    def task_instances(self, dag_id: str, run_id: str) -> dict[str, dict[str, Any]]:
        body = self.get(f"/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances")
        return {ti["task_id"]: ti for ti in body["task_instances"]}

    def xcom(self, dag_id: str, run_id: str, task_id: str, key: str = "return_value") -> Any:
        """The XCom value, or None when it does not exist (yet)."""
        try:
            body = self.get(f"/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}"
                            f"/xcomEntries/{key}", deserialize="true")
        except requests.HTTPError as exc:
            if exc.response is not None and exc.response.status_code == 404:
                return None
            raise
        return body.get("value")

    def backfills(self, dag_id: str) -> list[dict[str, Any]]:
        return self.get("/backfills", dag_id=dag_id)["backfills"]

    def mark_task(self, dag_id: str, run_id: str, task_id: str, state: str) -> Any:
        return self.send("PATCH", f"/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}",
                         {"new_state": state})

    def clear_task(self, dag_id: str, run_id: str, task_id: str) -> Any:
        return self.send("POST", f"/dags/{dag_id}/clearTaskInstances",
                         {"dry_run": False, "dag_run_id": run_id, "task_ids": [task_id], "only_failed": False,
                          "reset_dag_runs": True})

    def put_connection(self, conn: dict[str, Any]) -> None:
        """Create or replace a connection (``connection_id``, ``conn_type``, ``host``, ``login``, ``password``...)."""
        try:
            self.send("DELETE", f"/connections/{quote(conn['connection_id'], safe='')}")
        except requests.HTTPError as exc:
            if exc.response is None or exc.response.status_code != 404:
                raise
        self.send("POST", "/connections", conn)
