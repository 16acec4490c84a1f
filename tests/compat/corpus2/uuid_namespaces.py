# args: {"email": "ana@example.com", "order": 42}
import uuid

ORDERS_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def uuid_namespaces(email: str, order: int) -> dict:
    """Deterministic identifiers with uuid3 and uuid5."""
    customer = uuid.uuid5(uuid.NAMESPACE_DNS, email.lower())
    order_id = uuid.uuid5(ORDERS_NAMESPACE, str(order))
    parsed = uuid.UUID("{12345678-1234-5678-1234-567812345678}")
    random_id = uuid.uuid4()
    return {
        "customer": str(customer),
        "order": order_id.hex,
        "uuid3": str(uuid.uuid3(uuid.NAMESPACE_URL, "https://example.com")),
        "version": [customer.version, random_id.version, uuid.uuid3(uuid.NAMESPACE_OID, "x").version],
        "variant": customer.variant,
        "urn": parsed.urn,
        "int": parsed.int,
        "bytes": parsed.bytes[:4].hex(),
        "fields": list(parsed.fields)[:3],
        "from_int": str(uuid.UUID(int=1)),
        "compare": uuid.UUID(int=1) < uuid.UUID(int=2),
        "random_len": len(str(random_id)),
        "nil": str(uuid.UUID(int=0)) == "00000000-0000-0000-0000-000000000000",
    }
