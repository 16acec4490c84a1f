# args: {"rows": [{"name": "ok", "qty": 1}, {"name": "", "qty": -1}, {"qty": "x"}]}
from pydantic import BaseModel, Field, ValidationError


class Row(BaseModel):
    name: str = Field(min_length=1)
    qty: int = Field(ge=0)


def pydantic_validation_errors(rows: list[dict]) -> list:
    """Report validation problems per row."""
    report = []
    for index, row in enumerate(rows):
        try:
            Row(**row)
            report.append({"row": index, "ok": True})
        except ValidationError as error:
            report.append(
                {
                    "row": index,
                    "ok": False,
                    "count": error.error_count(),
                    "fields": sorted({str(e["loc"][0]) for e in error.errors()}),
                    "types": sorted({e["type"] for e in error.errors()}),
                }
            )
    return report
