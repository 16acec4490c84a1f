import hashlib


def warm_up() -> str:
    return repr(
        [
            hashlib.sha256(b"x").hexdigest(),
            hashlib.md5(b"x").hexdigest(),
            hashlib.sha1(b"x").hexdigest(),
            hashlib.blake2b(b"x").hexdigest(),
            hashlib.sha512(b"x").hexdigest(),
            hashlib.pbkdf2_hmac("sha256", b"x", b"y", 2).hex(),
        ]
    )
