# args: {"category": "books", "filters": {"author": "Le Guin", "year": 1969}}
CATALOG = [
    {"category": "books", "author": "Le Guin", "year": 1969, "title": "The Left Hand of Darkness"},
    {"category": "books", "author": "Le Guin", "year": 1974, "title": "The Dispossessed"},
    {"category": "films", "author": "Kurosawa", "year": 1954, "title": "Seven Samurai"},
]


def kwargs_filter(category: str, **filters) -> list[str]:
    """Search the catalog with any field filters.

    Args:
        category: books or films.
        filters: Field equality filters.
    """
    found = [item for item in CATALOG if item["category"] == category]
    for key, value in filters.items():
        found = [item for item in found if item.get(key) == value]
    return [item["title"] for item in found]
