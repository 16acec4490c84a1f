# args: {"amounts": [12.5, 40.0, 7.25, 99.99, 40.0, 3.5]}
import numpy as np


def numpy_order_stats(amounts: list[float]) -> dict:
    """Summary statistics of order amounts."""
    values = np.array(amounts, dtype=np.float64)
    print("orders:", values)
    print(f"mean {values.mean():.2f}, max {values.max()}")
    return {
        "count": int(values.size),
        "mean": round(float(np.mean(values)), 4),
        "median": float(np.median(values)),
        "std": round(float(values.std(ddof=1)), 4),
        "p90": float(np.percentile(values, 90)),
        "total": float(values.sum()),
        "above_mean": values[values > values.mean()].tolist(),
        "rank": np.argsort(-values, kind="stable").tolist(),
        "unique": np.unique(values).tolist(),
        "clipped": np.clip(values, 5, 50).tolist(),
        "cumulative": np.round(np.cumsum(values), 2).tolist(),
    }
