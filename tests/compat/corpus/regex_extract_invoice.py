# args: {"text": "Invoice INV-2024-0042 dated 2024-03-15, total EUR 1,234.50; due 2024-04-14"}
import re

PATTERN = re.compile(
    r"(?P<number>INV-\d{4}-\d{4}).*?(?P<date>\d{4}-\d{2}-\d{2}).*?(?P<currency>[A-Z]{3}) (?P<amount>[\d,]+\.\d{2})"
)


def regex_extract_invoice(text: str) -> dict:
    """Extract invoice fields."""
    match = PATTERN.search(text)
    if not match:
        return {}
    fields = match.groupdict()
    fields["amount"] = float(fields["amount"].replace(",", ""))
    fields["all_dates"] = re.findall(r"\d{4}-\d{2}-\d{2}", text)
    fields["span"] = list(match.span("number"))
    return fields
