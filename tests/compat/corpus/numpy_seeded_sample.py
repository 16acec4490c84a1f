# args: {"seed": 7, "n": 5}
import numpy as np


def numpy_seeded_sample(seed: int, n: int) -> dict:
    """Reproducible random picks with a seeded generator."""
    rng = np.random.default_rng(seed)
    items = np.arange(10, 20)
    return {
        "uniform": np.round(rng.random(n), 6).tolist(),
        "integers": rng.integers(0, 100, size=n).tolist(),
        "choice": rng.choice(items, size=3, replace=False).tolist(),
        "normal": np.round(rng.normal(0.0, 1.0, 3), 6).tolist(),
        "permutation": rng.permutation(5).tolist(),
        "names": rng.choice(["red", "green", "blue"], size=4).tolist(),
    }
