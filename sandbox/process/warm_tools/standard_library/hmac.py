import hmac


def warm_up() -> str:
    return repr([hmac.new(b"k", b"m", "sha256").hexdigest(), hmac.compare_digest("a", "a")])
