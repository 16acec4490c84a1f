"""The wire between host and worker: framed JSON (never pickle); the messages themselves are ``sandbox.messages``.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. The zygote's
control channel is a ``SOCK_SEQPACKET`` socket, so its messages are bare JSON packets
(``encode``/``decode``) without the length prefix.
"""

from __future__ import annotations

import json
import math
import re
import select
import socket
import struct
import time
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024 * 1024


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed frame."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as compact UTF-8 JSON; NaN and infinities are refused."""
    return _ENCODER.encode(message).encode()


def decode(data: bytes) -> dict[str, Any]:
    """Parse one message; anything but a JSON object of finite numbers and well-formed text is a ``ProtocolError``.

    NaN, infinities (``1e999`` too) and lone surrogates (``"\\ud800"``) parse in Python but
    fail later, when the host stores or sends them on; they are refused here, at the wire. The
    bytes must be UTF-8 (strictly: a lone surrogate written as raw bytes is refused too, where
    ``json.loads`` would have let it through and read UTF-16 and UTF-32 as well).
    """
    try:
        message = _DECODER.decode(data.decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # RecursionError: "[[[[...]]]]" from a worker past the language wall must not escape the pool
        raise ProtocolError(f"malformed frame: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a frame must hold a JSON object")
    if _ESCAPED_SURROGATE.search(data) and not _well_formed(message):
        raise ProtocolError("a frame holds a lone surrogate")
    return message


_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("a number too large for a float")
    return value


def _well_formed(value: Any) -> bool:
    """True when every string (keys too) encodes as UTF-8; iterative, for deep values."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode()
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


# built once: json.dumps and json.loads with options build a new encoder or decoder per message
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def frame(message: dict[str, Any]) -> bytes:
    """One message as a frame: the 4-byte length, then the JSON."""
    return HEADER.pack(len(encoded := encode(message))) + encoded


def send_frame(sock: socket.socket, message: dict[str, Any], *, deadline: float | None = None) -> None:
    """Send one length-prefixed frame; with ``deadline`` (a ``time.monotonic()`` value) raises
    ``TimeoutError`` once it passes, however slowly the peer reads.

    A socket used with deadlines stays in blocking mode: each call waits in ``poll`` for the
    time left and sends with ``MSG_DONTWAIT`` (a socket timeout would cost two more system
    calls per send and receive).
    """
    data = frame(message)
    if deadline is None:
        sock.sendall(data)
        return
    view = memoryview(data)
    while view:
        _check(deadline)
        try:
            view = view[sock.send(view, socket.MSG_DONTWAIT) :]
        except BlockingIOError:
            _wait(sock, select.POLLOUT, deadline)


def recv_frame(
    sock: socket.socket, *, deadline: float | None = None, max_size: int = MAX_FRAME
) -> dict[str, Any] | None:
    """Receive one frame; ``None`` on a clean end of stream before a frame starts.

    With ``deadline`` (a ``time.monotonic()`` value) raises ``TimeoutError`` once it passes,
    however slowly the peer drips bytes.
    """
    if deadline is not None:  # a frame is rarely there yet: one wait, not a read that fails first
        _wait(sock, select.POLLIN, deadline)
    header = _recv_exact(sock, HEADER.size, deadline, allow_eof=True)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > max_size:
        raise ProtocolError(f"frame of {size} bytes is over the {max_size} byte limit")
    body = _recv_exact(sock, size, deadline, allow_eof=False)
    assert body is not None
    return decode(body)


def _recv_exact(sock: socket.socket, size: int, deadline: float | None, *, allow_eof: bool) -> bytes | None:
    chunks: list[bytes] = []
    missing = size
    while missing:
        if deadline is None:
            chunk = sock.recv(missing)
        else:
            _check(deadline)
            try:
                chunk = sock.recv(missing, socket.MSG_DONTWAIT)
            except BlockingIOError:
                _wait(sock, select.POLLIN, deadline)
                continue
        if not chunk:
            if allow_eof and missing == size:
                return None
            raise ProtocolError("connection closed in the middle of a frame")
        chunks.append(chunk)
        missing -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _check(deadline: float) -> None:
    """``TimeoutError`` once ``deadline`` has passed: checked before every send and read, not only
    before a wait, or a peer that always has the next frame ready (or always reads at once) would
    never let the deadline be seen: a worker feeding rpc frames faster than the host answers
    them would hold its call past its wall time."""
    if time.monotonic() >= deadline:
        raise TimeoutError("deadline passed while sending or reading a frame")


def _wait(sock: socket.socket, event: int, deadline: float) -> None:
    """Wait until ``sock`` is ready for ``event`` (or has hung up); ``TimeoutError`` past ``deadline``."""
    poller = select.poll()
    poller.register(sock, event)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed while sending or reading a frame")
        if poller.poll(math.ceil(remaining * 1000)):
            return
