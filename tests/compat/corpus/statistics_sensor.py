# args: {"readings": [21.5, 22.0, 21.8, 35.2, 21.9, 22.1, 21.7]}
import statistics


def statistics_sensor(readings: list[float]) -> dict:
    """Detect outliers in sensor readings."""
    median = statistics.median(readings)
    spread = statistics.pstdev(readings)
    mean = statistics.fmean(readings)
    outliers = [r for r in readings if abs(r - median) > 2 * spread]
    clean = [r for r in readings if r not in outliers]
    return {
        "median": median,
        "mean": round(mean, 3),
        "outliers": outliers,
        "clean_mean": round(statistics.mean(clean), 3),
        "quartiles": statistics.quantiles(clean, n=4),
    }
