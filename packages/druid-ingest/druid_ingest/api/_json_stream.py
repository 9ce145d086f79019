"""A JSON array body read one item at a time, so a long listing is never held parsed all at once (the
triggerer's peak memory is what a herd's listing of every active task would otherwise set), and a JSON object
body one member at a time (a bulk status answer: each task's body dict dies as soon as it is read, instead of
living through the whole answer's parsing, when young collections run and promote what is alive)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from druid_ingest.errors import DruidProtocolError
from druid_ingest.wire import Response

__all__ = ["json_items", "json_members"]

_DECODER = json.JSONDecoder()


def json_items(resp: Response) -> Iterator[Any]:
    """The items of a JSON array body, decoded one by one; none for any other JSON value. A body that is not
    JSON raises as :meth:`Response.json` does."""
    text = _text(resp, b"[")
    if not text:  # anything else (a BOM, blanks, another encoding, an object, no JSON): as Response.json reads it
        data = resp.json()
        yield from data if isinstance(data, list) else ()
        return
    yield from _read(resp, _entries(text, "]", keyed=False))


def json_members(resp: Response, what: str) -> Iterator[tuple[str, Any]]:
    """The members of a JSON object body, decoded one by one. A body that is not JSON raises as
    :meth:`Response.json` does; another JSON value raises DruidProtocolError ("``what`` is not an object")."""
    text = _text(resp, b"{")
    if not text:  # anything else (a BOM, blanks, another encoding, no JSON): as Response.json reads it
        data = resp.json()
        if not isinstance(data, dict):
            raise DruidProtocolError(f"{what} is not an object: {resp.text[:200]!r}", url=resp.url)
        yield from data.items()
        return
    yield from _read(resp, _entries(text, "}", keyed=True))


def _text(resp: Response, opener: bytes) -> str:
    """The body as text when it starts with ``opener`` and decodes as UTF-8, else "" (read whole instead)."""
    try:
        return resp.body.decode("utf-8", errors="surrogatepass") if resp.body[:1] == opener else ""
    except UnicodeDecodeError:
        return ""


def _read(resp: Response, entries: Iterator[Any]) -> Iterator[Any]:
    """``entries``, or on malformed JSON the error :meth:`Response.json` raises for the whole body."""
    try:
        yield from entries
    except ValueError:
        resp.json()  # raises its DruidProtocolError
        raise


def _entries(text: str, close: str, keyed: bool) -> Iterator[Any]:
    """The entries of the array or object ``text`` opens, one by one: values, or ``(key, value)`` when
    ``keyed``. Raises ValueError at the first thing that is not JSON."""
    at = _blank(text, 1)
    if text.startswith(close, at):
        at += 1
    else:
        while True:
            if keyed:
                key, at = _DECODER.raw_decode(text, at)
                at = _blank(text, at)
                if not isinstance(key, str) or not text.startswith(":", at):
                    raise ValueError(f"expected a key and ':' at {at}")
                value, at = _DECODER.raw_decode(text, _blank(text, at + 1))
                yield key, value
            else:
                item, at = _DECODER.raw_decode(text, at)
                yield item
            at = _blank(text, at)
            if text.startswith(close, at):
                at += 1
                break
            if not text.startswith(",", at):
                raise ValueError(f"expected ',' or {close!r} at {at}")
            at = _blank(text, at + 1)
    if text[_blank(text, at):]:
        raise ValueError(f"extra data at {at}")


def _blank(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at
