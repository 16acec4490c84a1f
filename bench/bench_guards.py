"""Guard overhead on a CPU-bound tool body: counting primes below 30,000 by trial division.

Compares plain CPython, RestrictedPython used directly (``compile_restricted`` with its own
``safe_globals``) and toolpen's compiler and namespace. Run: ``.venv/bin/python bench/bench_guards.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from RestrictedPython import compile_restricted, safe_globals
from RestrictedPython.Guards import guarded_iter_unpack_sequence

from sandbox.language.compiler import compile_tool
from sandbox.language.namespace import OutputCapture, build_globals

PRIME_COUNTER = """
def count_primes(limit: int) -> int:
    count = 0
    for candidate in range(2, limit):
        divisor = 2
        is_prime = True
        while divisor * divisor <= candidate:
            if candidate % divisor == 0:
                is_prime = False
                break
            divisor += 1
        if is_prime:
            count += 1
    return count
"""
LIMIT = 30_000
REPEATS = 5


def plain_cpython() -> Callable[[int], int]:
    namespace: dict[str, object] = {}
    exec(compile(PRIME_COUNTER, "<plain>", "exec"), namespace)
    return namespace["count_primes"]  # type: ignore[return-value]


def restrictedpython_directly() -> Callable[[int], int]:
    namespace = dict(safe_globals)
    namespace.update(
        _getiter_=iter, _iter_unpack_sequence_=guarded_iter_unpack_sequence, _inplacevar_=_inplacevar
    )
    exec(compile_restricted(PRIME_COUNTER, "<restricted>", "exec"), namespace)
    return namespace["count_primes"]  # type: ignore[return-value]


def _inplacevar(op: str, left: int, right: int) -> int:
    if op != "+=":
        raise NotImplementedError(op)
    return left + right


def toolpen() -> Callable[[int], int]:
    namespace = build_globals(injected={}, output=OutputCapture(1000))
    exec(compile_tool(PRIME_COUNTER), namespace)
    return namespace["count_primes"]  # type: ignore[return-value]


def best_time(function: Callable[[int], int]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        function(LIMIT)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    baseline = best_time(plain_cpython())
    print(f"plain CPython              {baseline * 1000:8.1f} ms   1.00x")
    for label, build in (("RestrictedPython directly", restrictedpython_directly), ("toolpen", toolpen)):
        elapsed = best_time(build())
        print(f"{label:26} {elapsed * 1000:8.1f} ms   {elapsed / baseline:.2f}x")


if __name__ == "__main__":
    main()
