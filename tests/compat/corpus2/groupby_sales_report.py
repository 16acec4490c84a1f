# args: {"sales": [{"region": "north", "month": "2026-01", "amount": 120}, {"region": "south", "month": "2026-01", "amount": 80}, {"region": "north", "month": "2026-02", "amount": 50}, {"region": "north", "month": "2026-01", "amount": 30}, {"region": "south", "month": "2026-02", "amount": 200}]}
from itertools import accumulate, chain, groupby
from operator import itemgetter


def groupby_sales_report(sales: list[dict]) -> dict:
    """Totals per region and month with sorted groupby and running sums."""
    key = itemgetter("region", "month")
    report = {}
    for (region, month), rows in groupby(sorted(sales, key=key), key=key):
        report.setdefault(region, {})[month] = sum(r["amount"] for r in rows)
    monthly = {month: sum(v for _, v in group) for month, group in groupby(sorted((s["month"], s["amount"]) for s in sales), key=itemgetter(0))}
    running = list(accumulate(monthly.values()))
    unsorted_groups = [k for k, _ in groupby(s["region"] for s in sales)]
    return {
        "report": report,
        "monthly": monthly,
        "running": running,
        "unsorted_groups": unsorted_groups,
        "all_amounts": sorted(chain.from_iterable([[s["amount"]] for s in sales]), reverse=True),
    }
