"""A tool image: a tool's module-level code run once, in a process that then forks that tool's workers.

The image process (``zygote.ImageServer``, a fork of the zygote walled as a worker is) runs the
module's code (imports, classes, pydantic models, constants) once with ``build``; each worker it
forks runs only the entry function, in a copy of that module: ``bind`` gives the module the
call's ``context``, ``tools`` and the other names bound to a call, its output and its scratch
directory. Every call of the tool starts from the same module state, the image's, and nothing a
call changes reaches the next (its worker exits with it).

Which tools get an image is ``sandbox.process.imageable``'s to say; the others run their whole
source in each worker.
"""

from __future__ import annotations

import resource
import sys
import types
from dataclasses import dataclass
from typing import Any

from sandbox.bridges.ces_context import ces_classes, uses_model_classes
from sandbox.common.limits import Limits
from sandbox.language import scratch
from sandbox.language.arming import arm_checks
from sandbox.language.compiler import TOOL_FILENAME, compile_tool
from sandbox.language.namespace import OutputCapture, bind_output, build_globals
from sandbox.language.rules import TOOL_MODULE_NAME
from sandbox.messages import Call
from sandbox.process.isolation import address_space_size

IMAGE_LIMITS = (resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_NOFILE)


@dataclass(frozen=True)
class ToolImage:
    """A module whose top-level code has run: what each worker of its image calls the entry of."""

    source: str
    module: types.ModuleType
    output: str  # what the module-level code printed: the start of every call's log, as before
    model_classes: bool


def build(job: Call) -> ToolImage:
    """Run the module-level code of ``job``'s tool under its limits (in the image process, walled);
    raises what the code raises. The limits are lifted again once it has run."""
    limits = Limits(**(job.limits or {}))
    before = {which: resource.getrlimit(which) for which in IMAGE_LIMITS}
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + limits.cpu_time) + 1
    memory = address_space_size() + limits.memory
    for which, soft in zip(IMAGE_LIMITS, (cpu, memory, max(limits.open_files, 4)), strict=True):
        hard = before[which][1]  # soft limits only: lifted again once the module has run
        resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    try:
        arm_checks(True)
        code = compile_tool(job.source, filename=TOOL_FILENAME)
        output = OutputCapture(limits.output)
        model_classes = uses_model_classes(job.source)
        namespace = build_globals(
            injected=ces_classes(model_classes=model_classes),
            output=output,
            single_use=True,
            entry=job.entry,
            limits=limits,
            environment=job.environment,
        )
        exec(code, namespace)
    finally:
        for which, (soft, hard) in before.items():
            resource.setrlimit(which, (soft, hard))
    return ToolImage(job.source, sys.modules[TOOL_MODULE_NAME], output.text, model_classes)


def bind(image: ToolImage, call_names: dict[str, Any], output: OutputCapture, job: Call) -> dict[str, Any]:
    """The image's module as one call's globals: its scratch directory and environment, its output
    (what the module printed first), and the names bound to it."""
    limits = Limits(**(job.limits or {}))
    scratch.start_call(limits, job.environment)
    output.write(image.output)
    namespace = vars(image.module)
    bind_output(namespace, output)
    namespace.update(call_names)
    sys.modules[TOOL_MODULE_NAME] = image.module  # the idle worker's no-op call put its own there
    return namespace
