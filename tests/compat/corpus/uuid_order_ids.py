# args: {"customer": "ana@example.com", "count": 3}
import uuid


def uuid_order_ids(customer: str, count: int) -> dict:
    """Stable order ids for a customer."""
    namespace = uuid.uuid5(uuid.NAMESPACE_DNS, "shop.example.com")
    ids = [str(uuid.uuid5(namespace, f"{customer}/{i}")) for i in range(count)]
    random_id = uuid.uuid4()
    return {
        "ids": ids,
        "short": [i.split("-")[0] for i in ids],
        "random_version": random_id.version,
        "random_len": len(random_id.hex),
    }
