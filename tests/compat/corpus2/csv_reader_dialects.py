# args: {"text": "sku;name;price\nA1;\"Tea; green\";3,50\nB2;Mug;7,00\n\nC3;Pot;12,00\n"}
import csv
import io


def csv_reader_dialects(text: str) -> dict:
    """Read a semicolon CSV with decimal commas."""
    dialect = csv.Sniffer().sniff(text.splitlines()[0])
    reader = csv.DictReader(io.StringIO(text), delimiter=";")
    rows = [row for row in reader if any(row.values())]
    total = sum(float(row["price"].replace(",", ".")) for row in rows)
    plain = list(csv.reader(io.StringIO(text), delimiter=";"))
    return {
        "delimiter": dialect.delimiter,
        "fields": reader.fieldnames,
        "rows": rows,
        "total": round(total, 2),
        "plain_len": len(plain),
        "line_num": reader.line_num,
        "has_header": csv.Sniffer().has_header(text),
        "excel_tab": csv.excel_tab.delimiter == "\t",
    }
