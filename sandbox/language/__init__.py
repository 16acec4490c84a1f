"""The language wall: what tool code may write and do, checked at compile time and at run time.

Promises: tool code compiled by ``compiler.compile_tool`` and run in ``namespace.build_globals``
reaches no frame, no code object, no module it was not given, no private name of an object it
did not define, and evaluates no string as code outside the guards. It is defence in depth and
the source of friendly errors; the boundary is the process wall (``sandbox.process``).

Relies on, each wall job in one module: the rules as data (``rules.py``: which names, whose
objects); RestrictedPython's transformer with our policy (``policy.py``, compile time); the
run-time guards (``guards.py``: attributes, items, writes, calls, ``match``), classes and
``type`` (``classes.py``), ``str.format`` (``formatting.py``); when the checks apply and the
audit hook on code objects (``arming.py``); the vetted module views (``modules.py``, their
allowlist ``module_allowlist.py``) and what they hand out instead of a library's own member
(``replacements.py``); the copy protocol (``copy_protocol.py``) and numpy's array interface
(``array_interface.py``) closed on the tool's classes; the rule each library class is read
through (``library_rules.py``) and the library views (``numpy_view.py``, ``bufferless.py``,
``protobuf_view.py``); and the hooks that hold typing, pydantic and Enum to the same rules
(``annotations.py``, ``pydantic_loader.py``, ``pydantic_wall.py``, ``enum_wall.py``), installed
once per process before any tool code runs (``namespace.install_process_hooks``).
"""
