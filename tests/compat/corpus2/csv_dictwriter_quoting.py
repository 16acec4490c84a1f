# args: {"rows": [{"id": 1, "name": "Ana, PhD", "note": "said \"hi\"", "amount": 10.5}, {"id": 2, "name": "Bo", "note": "line1\nline2", "amount": 3}]}
import csv
import io


def csv_dictwriter_quoting(rows: list[dict]) -> dict:
    """Export rows as CSV with different quoting rules."""
    outputs = {}
    for label, quoting in (("minimal", csv.QUOTE_MINIMAL), ("nonnumeric", csv.QUOTE_NONNUMERIC), ("all", csv.QUOTE_ALL)):
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=["id", "name", "note", "amount"], quoting=quoting, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        outputs[label] = buffer.getvalue()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["id"], extrasaction="ignore")
    writer.writerow(rows[0])
    try:
        csv.DictWriter(io.StringIO(), fieldnames=["id"]).writerow(rows[0])
        extra = None
    except ValueError as error:
        extra = str(error).partition(":")[0]  # the names follow in set order
    return {**outputs, "ignored": buffer.getvalue(), "extra_error": extra}
