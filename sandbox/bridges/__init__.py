"""What tool code talks through: ``context``, ``tools`` and ``ces_requests`` as seen from inside.

Promises: every effect outside the worker (another tool, an HTTP request) is an RPC to the host,
which decides under its own policy and budgets; the proxies hold no secret and no host object.

Relies on: the wire (``sandbox.wire``) and on the host's brokers (``runtime._http``, the executor's
nested calls) to enforce what is allowed.
"""
