# args: {"people": ["ana", "bo", "cy"], "days": ["mon", "tue", "wed", "thu", "fri"]}
import itertools


def itertools_schedule(people: list[str], days: list[str]) -> dict:
    """Round-robin on-call schedule."""
    rota = dict(zip(days, itertools.cycle(people)))
    pairs = list(itertools.combinations(people, 2))
    grouped = {
        person: [d for d, _ in group]
        for person, group in itertools.groupby(
            sorted(rota.items(), key=lambda kv: kv[1]), key=lambda kv: kv[1]
        )
    }
    running = list(itertools.accumulate([len(d) for d in days]))
    return {
        "rota": rota,
        "pairs": pairs,
        "grouped": grouped,
        "running": running,
        "chunks": [list(c) for c in itertools.zip_longest(*[iter(days)] * 2)],
    }
