"""The language wall: what tool code may write and do, checked at compile time and at run time.

Promises: tool code compiled by ``compiler.compile_tool`` and run in ``namespace.build_globals``
reaches no frame, no code object, no module it was not given, no private name of an object it
did not define, and evaluates no string as code outside the guards. It is defence in depth and
the source of friendly errors; the boundary is the process wall (``sandbox.process``).

Relies on: RestrictedPython's transformer (``policy.py``), the run-time guards (``guards.py``),
the vetted module views (``modules.py``) and the hooks that hold typing, pydantic and Enum to
the same rules (``annotations.py``, ``pydantic_wall.py``, ``enum_wall.py``), installed once per
process before any tool code runs.
"""
