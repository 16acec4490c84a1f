"""Framed JSON between parent and worker: round trips, clean EOF, broken and slow peers."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from sandbox.wire import HEADER, ProtocolError, encode, recv_frame, send_frame


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def test_round_trip_keeps_unicode_and_nesting(pair):
    a, b = pair
    message = {"op": "call", "args": {"name": "Zoë ✓", "items": [1, 2.5, None, True]}}
    send_frame(a, message)
    assert recv_frame(b) == message


def test_clean_end_of_stream_is_none(pair):
    a, b = pair
    a.close()
    assert recv_frame(b) is None


def test_end_in_the_middle_of_a_frame_is_an_error(pair):
    a, b = pair
    a.sendall(HEADER.pack(10) + b'{"op"')
    a.close()
    with pytest.raises(ProtocolError):
        recv_frame(b)


def test_oversized_frame_is_refused_before_reading_it(pair):
    a, b = pair
    a.sendall(HEADER.pack(10_000))
    with pytest.raises(ProtocolError, match="over the 100 byte limit"):
        recv_frame(b, max_size=100)


@pytest.mark.parametrize("body", [b"[1, 2]", b"not json", b"\xff\xfe"])
def test_anything_but_a_json_object_is_refused(pair, body):
    a, b = pair
    a.sendall(HEADER.pack(len(body)) + body)
    with pytest.raises(ProtocolError):
        recv_frame(b)


def test_nan_is_never_sent():
    with pytest.raises(ValueError):
        encode({"x": float("nan")})


def test_deadline_holds_against_a_peer_that_drips_bytes(pair):
    a, b = pair
    data = encode({"op": "done"})
    frame = HEADER.pack(len(data)) + data

    def drip() -> None:
        for byte in frame:
            time.sleep(0.05)
            try:
                a.send(bytes([byte]))
            except OSError:
                return

    threading.Thread(target=drip, daemon=True).start()
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        recv_frame(b, deadline=start + 0.3)
    assert time.monotonic() - start < 0.5


def test_deadline_holds_against_a_peer_whose_frames_are_always_waiting(pair):
    """A reader that never has to wait still sees its deadline (before each read, not only before a wait)."""
    a, b = pair
    send_frame(a, {"op": "rpc"})
    with pytest.raises(TimeoutError):
        recv_frame(b, deadline=time.monotonic() - 0.001)


def test_deadline_holds_for_a_sender_that_never_has_to_wait(pair):
    a, _ = pair
    with pytest.raises(TimeoutError):
        send_frame(a, {"op": "rpc_result"}, deadline=time.monotonic() - 0.001)
