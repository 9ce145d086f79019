"""A small, fast grammar of JSON generators, driven by a seed that Hypothesis draws.

Why not Hypothesis' own composite strategies all the way down: drawing a Druid-shaped body through them costs
about 7 ms of CPU per example, so 10,000 examples for each of a dozen targets would take a quarter of an hour.
Here Hypothesis draws one integer (its profiles, derandomization, deadline, failure replay and example database
still apply) and a :class:`G` turns it into the body with ``random.Random``: about 0.05 ms. The price is
shrinking: a failure is reported with its seed and the generated value (``note``), not a minimal example.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.control import current_build_context

__all__ = ["G", "any_json", "dicts", "field", "floats", "integers", "just", "lists", "mostly", "obj", "one_of",
           "sampled", "seeded", "text", "tuples"]

R = random.Random


class G:
    """A generator of values from an ``random.Random``."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[R], Any]) -> None:
        self.fn = fn

    def __call__(self, r: R) -> Any:
        return self.fn(r)

    def map(self, f: Callable[[Any], Any]) -> G:
        return G(lambda r: f(self.fn(r)))


def just(value: Any) -> G:
    return G(lambda r: value)


def sampled(values: Sequence[Any]) -> G:
    items = list(values)
    return G(lambda r: r.choice(items))


def one_of(*gens: G) -> G:
    return G(lambda r: r.choice(gens)(r))


def tuples(*gens: G) -> G:
    return G(lambda r: tuple(g(r) for g in gens))


_EDGE_INTS = [0, 1, -1, 2, 2**31 - 1, -(2**31), 2**63, -(2**63) - 1, 10**30]


def integers(lo: int | None = None, hi: int | None = None) -> G:
    """Within [lo, hi] (default +-10**6), the bounds themselves often; unbounded, edge integers (2**63, 10**30)
    now and then. Values outside a field's bounds come from :func:`field` substituting any JSON value."""
    low, high = -(10**6) if lo is None else lo, 10**6 if hi is None else hi
    edges = [e for e in _EDGE_INTS if (lo is None or e >= lo) and (hi is None or e <= hi)] + [low, high]

    def draw(r: R) -> int:
        if r.random() < 0.15:
            return r.choice(edges)
        return r.randint(low, high)
    return G(draw)


_EDGE_FLOATS = [0.0, -0.0, 1.5, -1.5, 1e308, -1e308, 5e-324, float("nan"), float("inf"), float("-inf")]


def floats() -> G:
    return G(lambda r: r.choice(_EDGE_FLOATS) if r.random() < 0.6 else r.uniform(-1e6, 1e6))


_ALPHABET = "aZ09 _-:./%\\\"'{}[]<>\t\n\x00\x7f\u00e9\u2028\ud800\U0001f600"


def text(max_size: int = 12) -> G:
    return G(lambda r: "".join(r.choice(_ALPHABET) for _ in range(r.randint(0, max_size))))


def lists(g: G, max_size: int = 3, min_size: int = 0) -> G:
    return G(lambda r: [g(r) for _ in range(r.randint(min_size, max_size))])


def dicts(keys: G, values: G, max_size: int = 3) -> G:
    return G(lambda r: {keys(r): values(r) for _ in range(r.randint(0, max_size))})


_SCALAR = one_of(just(None), sampled([True, False]), integers(), floats(), text())


def _any(r: R, depth: int = 0) -> Any:
    roll = r.random()
    if depth >= 3 or roll < 0.6:
        return _SCALAR(r)
    if roll < 0.8:
        return [_any(r, depth + 1) for _ in range(r.randint(0, 3))]
    return {text(6)(r): _any(r, depth + 1) for _ in range(r.randint(0, 3))}


#: any JSON value, NaN and Infinity included (Python's json reads them, as Jackson can be told to)
any_json = G(_any)


#: how often a field is replaced or dropped: drawn per example, so some examples are nearly valid (and get past
#: the first check) and others are mostly noise
RATES = [0.0, 0.01, 0.03, 0.1, 0.2, 0.35]


def _rate(r: R) -> float:
    return getattr(r, "mutation_rate", 0.2)


def field(good: G) -> G:
    """Usually ``good``; at the example's mutation rate, any JSON value in its place."""
    return G(lambda r: any_json(r) if r.random() < _rate(r) else good(r))


def mostly(good: Sequence[Any], bad: G | Sequence[Any]) -> G:
    """One of the ``good`` values, or (at the example's mutation rate, doubled) a ``bad`` one."""
    goods = list(good)
    wrong = bad if isinstance(bad, G) else sampled(bad)
    return G(lambda r: wrong(r) if r.random() < 2 * _rate(r) else r.choice(goods))


def obj(required: dict[str, G], optional: dict[str, G] | None = None) -> G:
    """A JSON object: ``required`` keys usually there, ``optional`` ones half the time, every value possibly of
    another type (:func:`field`), and now and then an unknown key."""
    req = [(k, field(v)) for k, v in required.items()]
    opt = [(k, field(v)) for k, v in (optional or {}).items()]

    def draw(r: R) -> dict[str, Any]:
        drop = _rate(r) / 2
        out = {k: g(r) for k, g in req if r.random() >= drop}
        out.update({k: g(r) for k, g in opt if r.random() < 0.5})
        if r.random() < drop:
            out[text(6)(r)] = any_json(r)
        return out
    return G(draw)


def seeded(gen: G) -> st.SearchStrategy[Any]:
    """A Hypothesis strategy: one drawn seed, turned into a value by ``gen`` (noted for failure reports)."""
    def build(seed: int) -> Any:
        r = random.Random(seed)
        r.mutation_rate = r.choice(RATES)  # type: ignore[attr-defined]
        value = gen(r)
        if current_build_context().is_final:  # the replay of a failing example: show what it was
            note(f"seed {seed}: {_show(value)}")
        return value
    return st.integers(min_value=0, max_value=2**64 - 1).map(build)


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, default=repr)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) < 4000 else text[:4000] + "..."
