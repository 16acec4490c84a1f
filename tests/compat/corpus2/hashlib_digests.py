# args: {"message": "The quick brown fox", "password": "correct horse", "salt": "NaCl"}
import hashlib


def hashlib_digests(message: str, password: str, salt: str) -> dict:
    """Checksums and key derivation with hashlib."""
    data = message.encode()
    streamed = hashlib.sha256()
    for chunk in (data[:5], data[5:]):
        streamed.update(chunk)
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "streamed_equal": streamed.hexdigest() == hashlib.sha256(data).hexdigest(),
        "md5": hashlib.md5(data).hexdigest(),
        "sha1_new": hashlib.new("sha1", data).hexdigest(),
        "sha512_len": len(hashlib.sha512(data).digest()),
        "blake2b": hashlib.blake2b(data, digest_size=8, key=b"k").hexdigest(),
        "sha3": hashlib.sha3_256(data).hexdigest()[:16],
        "pbkdf2": hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), 1000).hex(),
        "copy": streamed.copy().hexdigest()[:8],
        "name_size": [streamed.name, streamed.digest_size, streamed.block_size],
        "available": "sha256" in hashlib.algorithms_guaranteed,
        "shake": hashlib.shake_128(data).hexdigest(6),
    }
