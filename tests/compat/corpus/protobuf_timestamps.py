# args: {"when": "2024-03-05T10:30:00Z", "seconds": 5400}
import datetime

from google.protobuf import duration_pb2, json_format, timestamp_pb2, wrappers_pb2


def protobuf_timestamps(when: str, seconds: int) -> dict:
    """Timestamp and Duration arithmetic with protobuf's well-known types."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromJsonString(when)
    span = duration_pb2.Duration(seconds=seconds)
    end = stamp.ToDatetime(tzinfo=datetime.timezone.utc) + span.ToTimedelta()
    later = timestamp_pb2.Timestamp()
    later.FromDatetime(end)
    count = wrappers_pb2.Int32Value(value=3)
    return {
        "start": stamp.ToJsonString(),
        "end": later.ToJsonString(),
        "duration": span.ToJsonString(),
        "millis": span.ToMilliseconds(),
        "epoch": stamp.seconds,
        "wrapped": json_format.MessageToDict(count),
        "fields": [field.name for field, _ in later.ListFields()],
    }
