"""Provider metadata for Airflow's ProvidersManager (entry point ``apache_airflow_provider``).

Read without importing the hook: the React connection form is built from ``conn-fields`` and
``ui-field-behaviour`` here (``get_connection_form_widgets`` is deprecated since Airflow 3.2). The classes
come from the one registration table, :mod:`airflow_provider_druid_ingest.registry`.
"""

from __future__ import annotations

from typing import Any

from airflow_provider_druid_ingest.registry import (
    CONFIG,
    CONNECTION_HOOK,
    REGISTRY,
    TASK_DECORATORS,
    class_paths,
    modules,
)

__all__ = ["INTEGRATION", "PACKAGE", "get_provider_info"]

PACKAGE = "airflow_provider_druid_ingest"
INTEGRATION = "Apache Druid (native batch ingestion)"


def _str_field(label: str, description: str, *, secret: bool = False, fmt: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": ["string", "null"]}
    if secret:
        schema["format"] = "password"
    elif fmt:
        schema["format"] = fmt
    return {"label": label, "description": description, "schema": schema}


def get_provider_info() -> dict[str, Any]:
    from airflow_provider_druid_ingest import __version__

    return {
        "package-name": "airflow-provider-druid-ingest",
        "name": "Druid Ingest",
        "description": "Drive Apache Druid native batch ingestion: idempotent submits, deferrable waits and a "
        "handoff gate that succeeds only when the data is queryable.",
        "versions": [__version__],
        "integrations": [
            {
                "integration-name": INTEGRATION,
                "external-doc-url": "https://druid.apache.org/docs/latest/ingestion/native-batch",
                "tags": ["software"],
            }
        ],
        "operators": [
            {
                "integration-name": INTEGRATION,
                "python-modules": modules("operators"),
            }
        ],
        "sensors": [
            {
                "integration-name": INTEGRATION,
                "python-modules": modules("sensors"),
            }
        ],
        "hooks": [{"integration-name": INTEGRATION, "python-modules": modules("hooks")}],
        "triggers": [
            {
                "integration-name": INTEGRATION,
                "python-modules": modules("triggers"),
            }
        ],
        "connection-types": [
            {
                "connection-type": "druid_cluster",
                "hook-class-name": f"{REGISTRY['hooks'][CONNECTION_HOOK]}.{CONNECTION_HOOK}",
                "hook-name": "Druid cluster (native batch ingestion)",
                "ui-field-behaviour": {
                    "hidden-fields": [],
                    "relabeling": {
                        "host": "Router / Overlord URL",
                        "login": "Username",
                        "schema": "Scheme (http/https)",
                    },
                    "placeholders": {
                        "host": "https://druid-router.example.com:9088",
                        "port": "8888",
                        "schema": "http",
                        "login": "druid_system (basic auth, optional)",
                    },
                },
                "conn-fields": {
                    "use_https": {
                        "label": "Use HTTPS",
                        "description": "Force https when host has no scheme (TLS ports 443/8281/8282/8290/9088 "
                        "imply it).",
                        "schema": {"type": ["boolean", "null"], "default": False},
                    },
                    "overlord_url": _str_field("Overlord URL", "Overrides host for Overlord calls.", fmt="url"),
                    "coordinator_url": _str_field(
                        "Coordinator URL", "Overrides host for Coordinator calls (handoff checks).", fmt="url"
                    ),
                    "broker_url": _str_field("Broker URL", "Overrides host for Druid SQL.", fmt="url"),
                    "console_url": _str_field(
                        "Web console URL", "Base URL for task links (default: host).", fmt="url"
                    ),
                    "verify": {
                        "label": "Verify TLS certificates",
                        "schema": {"type": ["boolean", "null"], "default": True},
                    },
                    "ca_bundle": _str_field("CA bundle path", "PEM file to verify the cluster's certificates."),
                    "auth": _str_field(
                        "Auth", "basic (Login/Password, default) or bearer (Password holds the bearer token)."
                    ),
                    "client_cert": _str_field("TLS client certificate", "PEM file sent for TLS client auth."),
                    "client_key": _str_field("TLS client key", "PEM private key (unencrypted) of client_cert."),
                    "proxy": _str_field("Proxy URL", "http(s) proxy for every call, e.g. http://proxy:3128."),
                    "trust_env": {
                        "label": "Use proxy environment",
                        "description": "Read HTTP(S)_PROXY/NO_PROXY/.netrc from the environment (default off).",
                        "schema": {"type": ["boolean", "null"], "default": False},
                    },
                    "connect_timeout": {
                        "label": "Connect timeout (s)",
                        "schema": {"type": ["number", "null"], "default": 10, "minimum": 0},
                    },
                    "read_timeout": {
                        "label": "Read timeout (s)",
                        "schema": {"type": ["number", "null"], "default": 60, "minimum": 0},
                    },
                    "trusted_hosts": _str_field(
                        "Trusted hosts",
                        "Comma-separated host:port that may receive credentials on Overlord/Coordinator leader "
                        "redirects.",
                    ),
                    "context": {
                        "label": "Druid SQL query context",
                        "description": "JSON object sent as the query context of every common.sql statement "
                        '(e.g. {"timeout": 60000, "priority": 10}); hook_params={"context": ...} overrides keys.',
                        "schema": {"type": ["object", "null"]},
                    },
                },
            }
        ],
        "extra-links": class_paths("links"),
        "task-decorators": [{"name": name, "class-name": path} for name, path in TASK_DECORATORS.items()],
        # Airflow 3 normalises an Asset URI through the handler registered for its scheme (ours rejects a
        # druid:// URI that does not name one connection and one datasource) and leaves normalized_uri None
        # for a scheme nobody registered.
        # The factory and the OpenLineage converter serve hook-level lineage (common/asset_lineage.py).
        "asset-uris": [{"schemes": ["druid"], "handler": f"{PACKAGE}.common.assets.sanitize_uri",
                        "factory": f"{PACKAGE}.common.asset_lineage.create_asset",
                        "to_openlineage_converter": f"{PACKAGE}.common.asset_lineage.convert_asset_to_openlineage"}],
        "config": CONFIG,
    }
