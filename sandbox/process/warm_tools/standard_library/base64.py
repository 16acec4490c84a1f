import base64


def warm_up() -> str:
    return repr(
        [
            base64.b64encode(b"x"),
            base64.b64decode("eA=="),
            base64.urlsafe_b64decode(b"eA=="),
            base64.b32encode(b"x"),
            base64.b16encode(b"x"),
        ]
    )
