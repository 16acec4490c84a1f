# args: {"payload": "héllo wörld"}
def bytes_and_buffers(payload: str) -> dict:
    """Encode, slice and rebuild binary data."""
    raw = payload.encode("utf-8")
    buffer = bytearray(raw)
    buffer[0:1] = b"H"
    buffer.extend(b"!!")
    buffer.reverse()
    buffer.reverse()
    view = memoryview(bytes(buffer))
    number = int.from_bytes(raw[:4], "big")
    return {
        "len": [len(payload), len(raw)],
        "hex": raw[:4].hex(),
        "hex_sep": raw[:4].hex(":"),
        "fromhex": bytes.fromhex("de ad be ef").hex(),
        "latin1": payload.encode("latin-1", errors="replace").decode("latin-1"),
        "ascii_ignore": payload.encode("ascii", errors="ignore").decode(),
        "xml": "☃".encode("ascii", "xmlcharrefreplace").decode(),
        "decode_replace": b"ok\xff\xfe".decode("utf-8", errors="replace"),
        "buffer": buffer.decode(),
        "view": [view[0], view[1:3].tobytes().decode(), view.nbytes, view.readonly],
        "view_list": list(view[:3]),
        "int": number,
        "to_bytes": number.to_bytes(6, "little").hex(),
        "signed": (-2).to_bytes(2, "big", signed=True).hex(),
        "bytes_ops": repr([b"a,b".split(b","), b"abc".upper(), b" x ".strip(), bytes(3), bytes([65, 66])]),
        "find": raw.find(b"w"),
        "count": buffer.count(b"l"),
    }
