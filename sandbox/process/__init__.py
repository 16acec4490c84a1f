"""The process wall, worker side: the zygote that forks workers and the loop each worker runs.

Promises: each call runs in a fresh process (single-use by default) with rlimits, no-new-privs,
a seccomp filter, an empty environment, no inherited descriptors and no network; it speaks only
framed JSON (``sandbox.wire``) to its parent and dies by SIGKILL at its deadline.

Relies on: the Linux kernel (namespaces, seccomp, rlimits) and on the host's pool
(``runtime.pool``) for the deadline, the replacement of used workers and the decision of what
a worker's reply means.
"""
