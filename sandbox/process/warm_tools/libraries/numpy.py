import numpy as np


def warm_up() -> str:
    values = np.array([3.0, 1.0, 2.0, 8.0])
    grid = np.arange(6).reshape(2, 3)
    rng = np.random.default_rng(1)
    out = [
        np.percentile(values, [10, 90]),
        np.quantile(values, 0.5),
        np.median(values),
        np.histogram(values, 3),
        np.nanmean(values),
        np.average(values, weights=values),
        np.polyfit(values, values, 1),
        np.unique(grid),
        np.linalg.inv(np.eye(2)),
        np.linalg.eig(np.eye(2)),
        np.linalg.svd(np.eye(2)),
        np.linalg.lstsq(np.eye(2), values[:2]),
        np.fft.fft(values),
        rng.choice(["a", "b"], 2),
        rng.normal(size=2),
        rng.permutation(3),
        np.pad(values, 1),
        np.where(values > 2, "high", "low"),
        np.array(["b", "a"]).astype("U3"),
        np.datetime64("2024-01-01") + 1,
        np.vectorize(lambda x: x + 1)(values),
        np.isclose(values, values),
        np.corrcoef(values, values),
        values.std(),
    ]
    return repr(out) + str(grid) + np.array2string(grid, separator=", ") + f"{values.mean():.2f}"
