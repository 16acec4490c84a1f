# args: {"rows": [["ana", 34, "pt"], ["bo", 28, "br"], ["cy", 41, "pt"]]}
import operator
from itertools import groupby


def operator_itemgetter_table(rows: list) -> dict:
    """Group and sort table rows."""
    by_country = sorted(rows, key=operator.itemgetter(2, 0))
    groups = {k: [r[0] for r in g] for k, g in groupby(by_country, key=operator.itemgetter(2))}
    ages = list(map(operator.itemgetter(1), rows))
    return {
        "groups": groups,
        "oldest": max(rows, key=operator.itemgetter(1))[0],
        "total_age": sum(ages),
        "neg": list(map(operator.neg, ages)),
    }
