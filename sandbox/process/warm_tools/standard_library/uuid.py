import uuid


def warm_up() -> str:
    return repr(
        [
            len(uuid.uuid4().hex),
            str(uuid.UUID(int=1)),
            uuid.uuid5(uuid.NAMESPACE_DNS, "x").hex,
            uuid.uuid3(uuid.NAMESPACE_URL, "x").hex,
        ]
    )
