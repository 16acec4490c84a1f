# args: {"rows": [{"name": "Ana", "score": 91}, {"name": "Bo, Jr.", "score": 78}, {"name": "Cy", "score": 85}]}
import csv
import io


def csv_report(rows: list[dict]) -> dict:
    """Export rows as CSV and read them back."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["name", "score"])
    writer.writeheader()
    for row in sorted(rows, key=lambda r: -r["score"]):
        writer.writerow(row)
    text = buffer.getvalue()
    parsed = list(csv.DictReader(io.StringIO(text)))
    return {
        "csv": text,
        "top": parsed[0]["name"],
        "average": sum(int(r["score"]) for r in parsed) / len(parsed),
    }
