# args: {"text": "alpha\nbeta\ngamma\n"}
import io


def io_stringio_cursor(text: str) -> dict:
    """Read and write an in-memory text file with a cursor."""
    stream = io.StringIO(text)
    first = stream.readline()
    position = stream.tell()
    rest = stream.readlines()
    stream.seek(0)
    chars = stream.read(3)
    stream.seek(0, io.SEEK_END)
    written = stream.write("delta\n")
    lines = [line.rstrip() for line in io.StringIO(stream.getvalue())]
    with io.StringIO() as out:
        print("a", "b", sep="-", file=out)
        out.writelines(["x\n", "y\n"])
        captured = out.getvalue()
        closed_inside = out.closed
    binary = io.BytesIO(b"\x00\x01abc")
    binary.seek(2)
    return {
        "first": first,
        "position": position,
        "rest": rest,
        "chars": chars,
        "written": written,
        "lines": lines,
        "captured": captured,
        "closed": [closed_inside, out.closed],
        "binary": binary.read().decode(),
        "bytes_value": binary.getvalue().hex(),
        "truncate": io.StringIO("abcdef").truncate(2),
    }
