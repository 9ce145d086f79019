"""Fake Broker SQL: ``POST /druid/v2/sql`` for ``SELECT`` lists of literals and ``?`` parameters.

Enough to prove what a client sends and reads (dynamic parameters, the query ``context``, the ``object`` and
``array`` result formats with the three header rows, the answer's query id header, Druid's error bodies), not
a SQL engine: queries over datasources are answered by a test's own fault (``Fault(kind="status", body=...)``).
Types are those Druid 33 answered for the same items (checked on dev/druid): a ``BIGINT``/``INTEGER``
parameter or an integer literal is ``LONG``/``INTEGER``, a decimal literal ``DOUBLE``/``DECIMAL``, a string
``STRING``/``CHAR``, a boolean ``LONG``/``BOOLEAN``, ``NULL`` ``STRING``/``NULL``; an unnamed item is
``EXPR$<position>``. A ``TIMESTAMP``/``DATE`` parameter as a select item is refused as Druid refuses it.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from aiohttp import web

from druid_ingest.testing.fake_http import Ctx, druid_error, json_response

__all__ = ["ROUTES", "post_sql"]

_ITEM = re.compile(r"""\s*(?P<expr>\?|-?\d+\.\d+|-?\d+|'(?:[^']|'')*'|NULL|TRUE|FALSE|"[^"]*"|[A-Za-z_]\w*)"""
                   r"""(?:\s+AS\s+(?:"(?P<qname>[^"]+)"|(?P<name>[A-Za-z_]\w*)))?\s*(?:,|$)""", re.I)
_PARAM_TYPES = {"VARCHAR": ("STRING", "CHAR"), "CHAR": ("STRING", "CHAR"), "BIGINT": ("LONG", "INTEGER"),
                "INTEGER": ("LONG", "INTEGER"), "DOUBLE": ("DOUBLE", "DOUBLE"), "FLOAT": ("FLOAT", "FLOAT"),
                "BOOLEAN": ("LONG", "BOOLEAN")}


def _invalid(message: str) -> web.Response:
    return druid_error(400, "invalidInput", "INVALID_INPUT", message)


def _literal(expr: str) -> tuple[Any, str, str]:
    upper = expr.upper()
    if upper == "NULL":
        return None, "STRING", "NULL"
    if upper in ("TRUE", "FALSE"):
        return upper == "TRUE", "LONG", "BOOLEAN"
    if expr.startswith("'"):
        return expr[1:-1].replace("''", "'"), "STRING", "CHAR"
    if "." in expr:
        return float(expr), "DOUBLE", "DECIMAL"
    return int(expr), "LONG", "INTEGER"


def _select(sql: str, params: list[Any]) -> tuple[list[str], list[str], list[str], list[Any]] | str:
    """The one row of a ``SELECT`` list, or Druid's message for what it would refuse."""
    head = re.match(r"\s*SELECT\s+(.*?)\s*;?\s*$", sql, re.I | re.S)
    if head is None or re.search(r"\bFROM\b", head.group(1), re.I):
        return f"the fake Broker answers only SELECT lists of literals and ? parameters, not {sql[:80]!r}"
    names: list[str] = []
    druid: list[str] = []
    types: list[str] = []
    row: list[Any] = []
    rest, used, column = head.group(1), 0, head.start(1) + 1
    while rest.strip():
        item = _ITEM.match(rest)
        if item is None:
            return f"Incorrect syntax near {rest.strip()[:20]!r} (line [1], column [{column}])"
        expr = item.group("expr")
        if expr == "?":
            if used >= len(params):
                return f"No value bound for parameter (position [{used + 1}])"
            param = params[used]
            used += 1
            kind = str(param.get("type", "")).upper() if isinstance(param, dict) else ""
            if kind not in _PARAM_TYPES:
                return f"Illegal use of dynamic parameter (line [1], column [{column}])"
            value = param.get("value")
            druid_type, sql_type = ("STRING", "NULL") if value is None else _PARAM_TYPES[kind]
        elif (expr[0].isalpha() and expr.upper() not in ("NULL", "TRUE", "FALSE")) or expr.startswith('"'):
            return f"Column '{expr.strip(chr(34))}' not found in any table (line [1], column [{column}])"
        else:
            value, druid_type, sql_type = _literal(expr)
        names.append(item.group("qname") or item.group("name") or f"EXPR${len(names)}")
        druid.append(druid_type)
        types.append(sql_type)
        row.append(value)
        column += item.end()
        rest = rest[item.end():]
    return names, druid, types, row


async def post_sql(ctx: Ctx) -> web.Response:
    body = ctx.rec.json
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return _invalid("Missing query")
    context = body.get("context")
    context = context if isinstance(context, dict) else {}
    query_id = str(context.get("sqlQueryId") or uuid.uuid4())
    params = body.get("parameters") or []
    answer = _select(body["query"], params if isinstance(params, list) else [])
    if isinstance(answer, str):
        resp = _invalid(answer)
    else:
        names, druid, types, row = answer
        fmt = body.get("resultFormat", "object")
        if fmt == "array":
            out: list[Any] = [names] if body.get("header") else []
            out += [druid] if body.get("header") and body.get("typesHeader") else []
            out += [types] if body.get("header") and body.get("sqlTypesHeader") else []
            resp = json_response([*out, row])
        elif fmt == "object":
            resp = json_response([dict(zip(names, row, strict=True))])
        else:
            return _invalid(f"the fake Broker has no resultFormat {fmt!r} (object, array)")
    resp.headers["X-Druid-SQL-Query-Id"] = query_id
    return resp


ROUTES = [("POST", r"/druid/v2/sql/?", post_sql)]
