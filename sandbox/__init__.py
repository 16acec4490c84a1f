"""Both walls whole: what runs inside the worker processes (the untrusted side), and the host's side of the process wall.

Internal as a whole: nothing here is public API. What a host needs of it (``Limits``, the error
kinds, ``WallsMode``) is re-exported by ``runtime``.

- ``language/``: the language wall (RestrictedPython with our policy, run-time guards, vetted
  module views, the restricted globals a tool runs in).
- ``process/``: the process wall whole: the jail policy, the host's pool and its link to the
  zygote, the conversation with a worker, the zygote and the worker loop.
- ``bridges/``: ``context``, ``tools`` and ``ces_requests`` as tool code sees them; every call
  they make crosses to the host as an RPC.
- ``messages.py``: the typed messages between host and worker; ``wire.py``: their framing.
- ``common/``: the leaves both sides share (errors, diagnostics, limits, walls mode, state deltas).

The host (the engine, the brokers, sessions) is ``runtime/``; it imports from here the pool
(``process.pool``), the leaves, and, to compile a tool early, the language wall or ``process.plain``.
"""
