# args: {"text": "user:pässwörd?>>"}
import base64


def base64_encodings(text: str) -> dict:
    """The base64 family, padded and unpadded."""
    raw = text.encode()
    urlsafe = base64.urlsafe_b64encode(raw).decode()
    unpadded = urlsafe.rstrip("=")
    restored = base64.urlsafe_b64decode(unpadded + "=" * (-len(unpadded) % 4)).decode()
    try:
        base64.b64decode("abc", validate=True)
        strict = "ok"
    except ValueError as error:
        strict = f"{type(error).__name__}: {error}"
    return {
        "standard": base64.b64encode(raw).decode(),
        "urlsafe": urlsafe,
        "restored": restored == text,
        "basic_auth": "Basic " + base64.b64encode(b"ana:secret").decode("ascii"),
        "b32": base64.b32encode(b"hi").decode(),
        "b16": base64.b16encode(b"hi").decode(),
        "b85": base64.b85encode(b"hi").decode(),
        "a85": base64.a85encode(b"hi").decode(),
        "decode_str": base64.b64decode("aGk=").decode(),
        "strict": strict,
        "altchars": base64.b64encode(b"\xfb\xff", altchars=b"-_").decode(),
    }
