# args: {"text": "hello world"}
import base64
import hashlib


def bytes_checksum(text: str) -> dict:
    """Checksums of a text."""
    data = bytearray(text.encode())
    data[0] = ord("H")
    view = memoryview(bytes(data))
    xor = 0
    for byte in view:
        xor ^= byte
    return {
        "text": data.decode(),
        "xor": xor,
        "first_two": view[:2].tobytes().decode(),
        "b64": base64.b64encode(bytes(data)).decode(),
        "md5": hashlib.md5(data).hexdigest()[:8],
        "is_bytes_like": isinstance(data, (bytes, bytearray)),
    }
