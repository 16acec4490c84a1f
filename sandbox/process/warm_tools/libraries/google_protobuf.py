from google.protobuf import any_pb2, duration_pb2, json_format, struct_pb2, timestamp_pb2, wrappers_pb2


def warm_up() -> str:
    message = struct_pb2.Struct()
    message.update({"a": [1, {"b": None}], "c": "d"})
    stamp = timestamp_pb2.Timestamp()
    stamp.FromJsonString("2024-01-02T03:04:05Z")
    packed = any_pb2.Any()
    packed.Pack(wrappers_pb2.StringValue(value="x"))
    out = [
        json_format.MessageToDict(message),
        json_format.MessageToJson(message),
        json_format.Parse('{"k": [1]}', struct_pb2.Struct()),
        json_format.ParseDict({"k": 1}, struct_pb2.Struct()),
        struct_pb2.Struct.FromString(message.SerializeToString()),
        stamp.ToDatetime(),
        stamp.ToJsonString(),
        duration_pb2.Duration(seconds=5).ToTimedelta(),
        json_format.MessageToDict(packed),
        message.ListFields(),
    ]
    return repr(out)
