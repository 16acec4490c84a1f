import csv
import io


def warm_up() -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["a", "b"])
    writer.writeheader()
    writer.writerow({"a": 1, "b": "x,y"})
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerow([1])
    return repr(
        [
            list(csv.DictReader(io.StringIO(buffer.getvalue()))),
            list(csv.reader(["a;b"], delimiter=";")),
            csv.Sniffer().sniff("a,b\n1,2\n").delimiter,
        ]
    )
