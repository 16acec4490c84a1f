"""Attacks on the protobuf view under both walls: descriptors and the process-wide pool, extensions,
``google.protobuf.internal``, and the modules that build message types or read files.

Each must end in a structured refusal and leave the runtime serving; why each is closed:
``sandbox/language/protobuf_view.py`` and docs/security.md.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused_when_added_or_called

pytest.importorskip("google.protobuf")

IMPORTS = "from google.protobuf import any_pb2, json_format, struct_pb2, timestamp_pb2\n"


def _returning(expression: str) -> str:
    return IMPORTS + f"def tool():\n    return {expression}\n"


PROTOBUF_ATTACKS = {
    "descriptor": _returning("struct_pb2.Struct().DESCRIPTOR"),
    "class-descriptor": _returning("struct_pb2.Struct.DESCRIPTOR.file.pool"),
    "type-descriptor": _returning("type(struct_pb2.Value()).DESCRIPTOR"),
    "getattr-descriptor": _returning("getattr(timestamp_pb2.Timestamp(), 'DESCRIPTOR')"),
    "field-descriptor-file": _returning("struct_pb2.Value(string_value='x').ListFields()[0][0].file"),
    "field-descriptor-containing": _returning(
        "struct_pb2.Value(number_value=1).ListFields()[0][0].containing_type"
    ),
    "enum-descriptor": _returning("struct_pb2.NullValue.DESCRIPTOR"),
    "map-entry-descriptor": _returning("struct_pb2.Struct().fields.GetEntryClass().DESCRIPTOR"),
    "register-extension": _returning("struct_pb2.Struct.RegisterExtension"),
    "json-format-pool": _returning("json_format.descriptor_pool"),
    "json-format-factory": _returning("json_format.message_factory.GetMessageClass"),
    "json-format-symbols": _returning("json_format.symbol_database.Default()"),
    "import-internal": "import google.protobuf.internal\ndef tool():\n    return 1\n",
    "import-pool": "from google.protobuf import descriptor_pool\ndef tool():\n    return 1\n",
    "import-pool-module": "import google.protobuf.descriptor_pool\ndef tool():\n    return 1\n",
    "import-factory": "from google.protobuf import message_factory\ndef tool():\n    return 1\n",
    "import-text-format": "from google.protobuf import text_format\ndef tool():\n    return 1\n",
    "import-upb": "import google._upb._message\ndef tool():\n    return 1\n",
    "subclass-message": IMPORTS + "class M(struct_pb2.Struct):\n    pass\ndef tool():\n    return 1\n",
    "descriptor-write": IMPORTS + "def tool():\n    m = struct_pb2.Struct()\n    m.DESCRIPTOR = 1\n",
    "class-method-write": IMPORTS + "def tool():\n    struct_pb2.Struct.FromString = len\n",
    "match-descriptor": IMPORTS
    + "def tool():\n    match struct_pb2.Struct():\n        case object(DESCRIPTOR=d):\n            return d\n",
    "pydantic-descriptor": IMPORTS
    + "from pydantic import BaseModel, ConfigDict\nclass M(BaseModel):\n"
    + "    model_config = ConfigDict(from_attributes=True, arbitrary_types_allowed=True)\n    DESCRIPTOR: object\n"
    + "def tool():\n    return M.model_validate(struct_pb2.Struct()).DESCRIPTOR\n",
}


@pytest.mark.parametrize("source", PROTOBUF_ATTACKS.values(), ids=PROTOBUF_ATTACKS.keys())
def test_protobuf_escape_hatches_are_closed(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)
