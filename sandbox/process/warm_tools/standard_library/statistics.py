import statistics


def warm_up() -> str:
    return repr(
        [
            statistics.mean([1, 2, 3]),
            statistics.median([1, 2, 3]),
            statistics.stdev([1, 2, 3]),
            statistics.mode([1, 1, 2]),
            statistics.quantiles([1, 2, 3, 4]),
            statistics.fmean([1.5, 2]),
        ]
    )
