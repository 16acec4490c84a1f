import secrets


def warm_up() -> str:
    return repr([len(secrets.token_hex(4)), len(secrets.token_urlsafe(4)), secrets.randbelow(3) < 3])
