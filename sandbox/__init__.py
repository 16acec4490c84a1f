"""What runs inside the worker processes: the untrusted side of toolpen.

- ``language/``: the language wall (RestrictedPython with our policy, run-time guards, vetted
  module views, the restricted globals a tool runs in).
- ``process/``: the process wall as the worker applies it (isolation, the zygote, the worker loop).
- ``bridges/``: ``context``, ``tools`` and ``ces_requests`` as tool code sees them; every call
  they make crosses to the host as an RPC.
- ``wire.py``: the framed JSON protocol and the constants host and worker share.
- ``limits.py``: ``Limits``, the per-call budgets both sides read.

The host side (the pool that starts zygotes and workers, the brokers, sessions) is ``runtime/``;
it imports from here only ``limits``, ``wire`` and, to compile a tool early, the language wall or
``process.plain``.
"""
