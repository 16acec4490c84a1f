# args: {"order": {"id": "A-7", "items": [{"sku": "x1", "qty": 2}], "paid": true, "note": null}}
from google.protobuf import json_format, struct_pb2


def protobuf_struct_payload(order: dict) -> dict:
    """Round-trips an order through a protobuf Struct, as CES payloads are."""
    message = struct_pb2.Struct()
    message.update(order)
    message["channel"] = "web"
    items = message.get_or_create_list("tags")
    items.extend(["new", 1])
    value = struct_pb2.Value(string_value="hello")
    wire = message.SerializeToString()
    again = struct_pb2.Struct.FromString(wire)
    parsed = json_format.Parse('{"a": [1, "b", {"c": null}]}', struct_pb2.Struct())
    print(json_format.MessageToJson(value))
    return {
        "dict": json_format.MessageToDict(again),
        "keys": sorted(message.keys()),
        "qty": message["items"][0]["qty"],
        "kind": value.WhichOneof("kind"),
        "has_paid": "paid" in message,
        "parsed": json_format.MessageToDict(parsed),
        "same": again == message,
        "size": message.ByteSize() > 0,
        "list": json_format.MessageToJson(message["tags"], indent=None),
    }
