# args: {"movies": [{"title": "Alien", "year": 1979}, {"title": "Heat", "year": 1995}]}
from typing import TypedDict, Optional


class Movie(TypedDict):
    title: str
    year: int


def typed_dict_summary(movies: list[dict]) -> dict:
    """Summarize movies."""
    typed: list[Movie] = [Movie(title=m["title"], year=m["year"]) for m in movies]
    oldest: Optional[Movie] = min(typed, key=lambda m: m["year"], default=None)
    return {"oldest": oldest, "decades": sorted({m["year"] // 10 * 10 for m in typed})}
