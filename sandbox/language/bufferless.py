"""A gate on the buffer protocol of library classes: instances it denies export no buffer at all.

A numpy object array's memory holds raw pointers to Python objects: pointers written there are
references to any object (the real builtins module included). Every C function that takes a
"bytes-like object" reaches an array's memory through CPython's buffer protocol (``bytes()``,
``memoryview``, ``BytesIO.readinto``, ``hashlib``, ``zlib``, ``b"".join``, ``re``, ...), and no
check of the numpy view sees every object array: operators make them in C (``np.arange(2) +
Decimal(1)``, and so do ``sum``, ``operator.add``, ``math.prod`` over arrays and Python objects).

The protocol has one entry point per class, the ``bf_getbuffer`` function its type object's
``tp_as_buffer`` slot points to, called by ``PyObject_GetBuffer`` whatever C function asks.
``close`` points that slot of each root class and of every subclass it has (a subclass made
later copies it; on 3.12, where a class made later takes its ``bf_getbuffer`` from the
``__buffer__`` wrapper its base's dict holds (PEP 688), that wrapper's function too) at a table
of ours whose ``bf_getbuffer`` is a gate: ``deny(obj)`` answers the
error refusing ``obj`` a buffer, or None, and then the class's own function runs. ``reopen`` puts
the saved slots back.

The gate is a cffi callback declared with ``error=-1``: if its Python code cannot even start
(the recursion limit, no memory), cffi still answers -1, a refusal (a ctypes callback would
answer an unset value). A callback cannot leave a Python exception set on its way out, so
``PyObject_GetBuffer`` fails without one: CPython reports a ``TypeError`` ("a bytes-like object is
required") or a ``SystemError`` ("returned NULL without setting an exception"), and
``refusal()`` hands the worker the error the gate meant (``deny``'s, or the class's own).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from cffi import FFI

Deny = Callable[[Any], "BaseException | None"]
"""Why an object may not export a buffer (the error its caller should see), or None."""

_ffi = FFI()
_POINTER = ctypes.c_void_p
_GETBUFFER = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_int)
"""A class's own ``bf_getbuffer``, called with the GIL held; its error comes back as a Python exception."""


class _TypeHead(ctypes.Structure):
    """``PyTypeObject`` up to ``tp_as_buffer`` (CPython 3, release builds)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", _POINTER),
        ("ob_size", ctypes.c_ssize_t),
        ("tp_name", ctypes.c_char_p),
        ("tp_basicsize", ctypes.c_ssize_t),
        ("tp_itemsize", ctypes.c_ssize_t),
        *((name, _POINTER) for name in ("tp_dealloc", "tp_vectorcall_offset", "tp_getattr", "tp_setattr")),
        *((name, _POINTER) for name in ("tp_as_async", "tp_repr", "tp_as_number", "tp_as_sequence")),
        *((name, _POINTER) for name in ("tp_as_mapping", "tp_hash", "tp_call", "tp_str")),
        *((name, _POINTER) for name in ("tp_getattro", "tp_setattro", "tp_as_buffer")),
    ]


class _BufferProcs(ctypes.Structure):
    """``PyBufferProcs``: what ``tp_as_buffer`` points to."""

    _fields_ = [("bf_getbuffer", _POINTER), ("bf_releasebuffer", _POINTER)]


class _WrapperDescriptor(ctypes.Structure):
    """``PyWrapperDescrObject``: a slot wrapper such as ``ndarray.__buffer__`` (3.12) and the C function it calls."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        *((name, _POINTER) for name in ("ob_type", "d_type", "d_name", "d_qualname", "d_base", "d_wrapped")),
    ]


_SLOT_WRAPPER = type(object.__init__)


def _head(cls: type) -> _TypeHead:
    return _TypeHead.from_address(id(cls))


def _procs(cls: type) -> _BufferProcs | None:
    address = _head(cls).tp_as_buffer
    return None if address is None else _BufferProcs.from_address(address)


def exports_buffer(cls: type) -> bool:
    """Whether instances of ``cls`` offer the buffer protocol (a ``tp_as_buffer`` with a ``bf_getbuffer``)."""
    procs = _procs(cls)
    return procs is not None and procs.bf_getbuffer is not None


_refused: BaseException | None = None


def refusal() -> BaseException | None:
    """The error of the gate's last refusal (forgotten once read), or None."""
    global _refused
    error, _refused = _refused, None
    return error


class _Gate:
    """A ``bf_getbuffer`` that asks ``deny`` before calling ``original``, and its ``PyBufferProcs``."""

    def __init__(self, original: _BufferProcs, deny: Deny) -> None:
        self._original = _GETBUFFER(original.bf_getbuffer)
        self._deny = deny
        self._callback = _ffi.callback("int(void *, void *, int)", self._getbuffer, error=-1, onerror=_quiet)
        self.address = int(_ffi.cast("uintptr_t", self._callback))
        self.procs = _BufferProcs(self.address, original.bf_releasebuffer)

    def _getbuffer(self, obj: Any, view: Any, flags: int) -> int:
        global _refused
        try:
            target = ctypes.cast(int(_ffi.cast("uintptr_t", obj)), ctypes.py_object).value
            denied = self._deny(target)
            if denied is not None:
                _refused = denied
                return -1
            return int(self._original(target, int(_ffi.cast("uintptr_t", view)), flags))
        except BaseException as exc:  # the class's own refusal (or ours failing): no buffer
            _refused = exc
            return -1


def _quiet(*exc_info: Any) -> None:
    """cffi's ``onerror``: answer ``error`` (-1) without printing."""


_gates: dict[int, _Gate] = {}
"""One gate per original ``bf_getbuffer``; kept alive while any slot points at it."""
_saved: dict[type, int] = {}
"""The ``tp_as_buffer`` each gated class had, to put back."""
_saved_wrappers: dict[int, tuple[object, int]] = {}
"""The function each gated ``__buffer__`` slot wrapper called (kept alive with it), to put back."""


def _with_subclasses(roots: Iterable[type]) -> Iterator[type]:
    pending = list(roots)
    while pending:
        cls = pending.pop()
        yield cls
        pending.extend(type.__subclasses__(cls))


def close(roots: Iterable[type], deny: Deny) -> None:
    """Gate the buffers of ``roots`` and their subclasses by ``deny`` (idempotent; a refusal noted before is forgotten)."""
    refusal()
    gate_functions = {gate.address for gate in _gates.values()}
    for cls in _with_subclasses(roots):
        head, procs = _head(cls), _procs(cls)
        if procs is None or procs.bf_getbuffer is None or procs.bf_getbuffer in gate_functions:
            continue  # no buffer, or gated already (a subclass made while gated copied the gate)
        gate = _gates.get(procs.bf_getbuffer)
        if gate is None:
            gate = _gates[procs.bf_getbuffer] = _Gate(procs, deny)
        _saved[cls] = head.tp_as_buffer
        head.tp_as_buffer = ctypes.addressof(gate.procs)
        _gate_buffer_wrapper(cls, procs.bf_getbuffer, gate)


def _gate_buffer_wrapper(cls: type, original: int, gate: _Gate) -> None:
    """On 3.12, point the class's own ``__buffer__`` slot wrapper at the gate: a class made later
    (``type("Sub", (np.ndarray,), {})``) takes its ``bf_getbuffer`` from that wrapper, not the slot."""
    wrapper = vars(cls).get("__buffer__")
    if type(wrapper) is not _SLOT_WRAPPER:
        return
    descriptor = _WrapperDescriptor.from_address(id(wrapper))
    if descriptor.d_wrapped == original:
        _saved_wrappers[id(wrapper)] = (wrapper, original)
        descriptor.d_wrapped = gate.address


def reopen() -> None:
    """Put back every slot ``close`` changed."""
    refusal()
    while _saved:
        cls, slot = _saved.popitem()
        _head(cls).tp_as_buffer = slot
    while _saved_wrappers:
        _, (wrapper, original) = _saved_wrappers.popitem()
        _WrapperDescriptor.from_address(id(wrapper)).d_wrapped = original


def _check_layout() -> None:
    """Refuse to load where ``_TypeHead`` is not this interpreter's layout (a debug build, another ABI)."""
    for cls in (int, bytes, bytearray, memoryview, type):
        head = _head(cls)
        if (head.tp_basicsize, head.tp_itemsize) != (cls.__basicsize__, cls.__itemsize__):
            raise RuntimeError("toolpen cannot read this interpreter's type objects to gate buffers")
    if exports_buffer(int) or not (exports_buffer(bytes) and exports_buffer(bytearray)):
        raise RuntimeError("toolpen cannot find the buffer slot of this interpreter's type objects")


_check_layout()
