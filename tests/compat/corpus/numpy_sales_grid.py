# args: {"sales": [[3, 0, 5], [1, 8, 2], [0, 0, 9], [4, 4, 4]], "regions": ["north", "south", "east", "west"]}
import numpy as np


def numpy_sales_grid(sales: list[list[int]], regions: list[str]) -> dict:
    """Per-region and per-product totals from a grid of sales."""
    grid = np.array(sales)
    names = np.array(regions)
    by_region = grid.sum(axis=1)
    best = names[np.argmax(by_region)]
    counts, edges = np.histogram(grid.ravel(), bins=3)
    for name, total in zip(names, by_region):
        print(f"{name:>6}: {total:3d}")
    return {
        "by_region": by_region.tolist(),
        "by_product": grid.sum(axis=0).tolist(),
        "best": str(best),
        "share": np.round(by_region / by_region.sum(), 4).tolist(),
        "nonzero": int(np.count_nonzero(grid)),
        "where": np.argwhere(grid == 0).tolist(),
        "histogram": [counts.tolist(), np.round(edges, 3).tolist()],
        "dtype": str(grid.dtype),
        "is_array": isinstance(grid, np.ndarray),
        "padded": np.pad(np.array([1, 2]), 1).tolist(),
        "text": np.array2string(grid[:2], separator=", "),
        "mask": np.where(grid > 3, "high", "low").tolist(),
        "sorted_names": np.sort(names)[::-1].tolist(),
    }
