"""The process wall, whole: the jail policy, the host's pool that starts it, the zygote and the workers.

Promises: each call runs in a fresh process (single-use by default) with rlimits, no-new-privs,
a seccomp filter, an empty environment, no inherited descriptors and no network; it speaks only
framed JSON (``sandbox.wire``, the messages of ``sandbox.messages``) to its parent and dies by
SIGKILL at its deadline.

Host side: ``pool`` (ready workers, repair), ``zygote_link`` (starting the zygote in the jail and
its control socket), ``conversation`` (one call with one worker: RPCs, deadline, SIGKILL),
``ready_stack``, ``leaving_workers``, ``bwrap`` and ``seccomp`` (both generated from the one
policy, ``jail``), ``missing_walls``, ``probes``. Worker side: ``zygote``, ``isolation``,
``worker``, ``warmup``, ``warm_tools``, ``plain``, ``forking``.

Relies on: the Linux kernel (namespaces, seccomp, rlimits), bubblewrap and libseccomp on the host.
"""
