"""Attacks on the standard modules opened for CES (ast, gzip, pprint, shlex, tomllib, xml.etree,
html.parser, zlib, ...): what each view leaves out reads files, writes to the process's stdout or
changes process-wide state, and must stay out of reach; XML entities never fetch a file."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused_when_added_or_called, attack

LEFT_OUT = {
    "shlex-class": "from shlex import shlex\ndef tool():\n    return shlex('source /etc/passwd')\n",
    "shlex-attribute": "import shlex\ndef tool():\n    return shlex.shlex\n",
    "xml-parse-file": "import xml.etree.ElementTree as ET\ndef tool():\n    return ET.parse('/etc/passwd')\n",
    "xml-iterparse": "from xml.etree.ElementTree import iterparse\ndef tool():\n    return 1\n",
    "xml-elementtree-write": (
        "import xml.etree.ElementTree as ET\ndef tool():\n    ET.ElementTree(ET.Element('a')).write('/tmp/x')\n"
    ),
    "xml-dump": "import xml.etree.ElementTree as ET\ndef tool():\n    ET.dump(ET.Element('a'))\n",
    "xml-register-namespace": "import xml.etree.ElementTree as ET\ndef tool():\n    ET.register_namespace('x', 'y')\n",
    "xml-module-walk": "import xml.etree.ElementTree as ET\ndef tool():\n    return ET.ElementPath\n",
    "gzip-open": "import gzip\ndef tool():\n    return gzip.open('/etc/passwd').read()\n",
    "gzip-file": "from gzip import GzipFile\ndef tool():\n    return 1\n",
    "pprint-stdout": "import pprint\ndef tool():\n    pprint.pprint({'a': 1})\n",
    "pprint-printer": "from pprint import PrettyPrinter\ndef tool():\n    return 1\n",
    "ast-parse": "import ast\ndef tool():\n    return ast.parse('1')\n",
    "ast-node": "import ast\ndef tool():\n    return ast.literal_eval(ast.Constant(1))\n",
    "literal-eval-call": "import ast\ndef tool():\n    return ast.literal_eval(\"__import__('os')\")\n",
    "html-parser-module": "import html.parser\ndef tool():\n    return html.parser._markupbase\n",
    "tomllib-open": "import tomllib\ndef tool():\n    return tomllib.load(open('/etc/passwd', 'rb'))\n",
}


@pytest.mark.parametrize("source", LEFT_OUT.values(), ids=LEFT_OUT.keys())
def test_what_the_views_leave_out_is_refused(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)


def test_an_xml_external_entity_is_not_fetched(rt: Runtime) -> None:
    source = """
        import xml.etree.ElementTree as ET

        def tool() -> str:
            doc = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]><x>&e;</x>'
            return ET.tostring(ET.fromstring(doc), encoding="unicode")
        """
    result = attack(rt, source)
    assert not result.success
    assert "undefined entity" in result.error.message


def test_a_left_out_member_says_why(rt: Runtime) -> None:
    tool = rt.add_tool("from xml.etree.ElementTree import parse\ndef tool():\n    return 1\n", replace=True)
    refused = rt.call(tool.name, {}).error  # where the import runs, as an ImportError
    assert refused is not None and refused.kind == "policy"
    assert "reads or writes files by name; use fromstring / tostring" in refused.message


def test_writers_into_a_buffer_are_ordinary(rt: Runtime) -> None:
    """``BytesIO.readinto`` and ``memoryview.cast`` write into the tool's own buffers as in CPython:
    an object array, whose memory is pointers, exports no buffer to them (``test_object_arrays.py``)."""
    source = (
        "import io\ndef tool():\n    b = bytearray(4)\n    n = io.BytesIO(b'abcd').readinto(memoryview(b).cast('B'))\n"
        "    return [n, b.decode(), type(memoryview(b)) is memoryview]\n"
    )
    result = rt.call(rt.add_tool(source, replace=True).name, {})
    assert result.success and result.output == [4, "abcd", True], result.error
