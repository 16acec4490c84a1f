# args: {"weights": [1.0, 2.0, 1.0], "values": [10, 20, 40]}
"""Weighted statistics for survey answers."""

PRECISION = 3


def weighted_mean(values, weights):
    """Compute a weighted mean.

    Parameters
    ----------
    values : list of float
        The observations.
    weights : list of float
        One weight per observation.

    Returns
    -------
    float
        The weighted mean.
    """
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)


def docstring_styles_numpy(weights: list[float], values: list[float]) -> dict:
    """Summarize weighted answers.

    Args:
        weights (list[float]): One weight per answer.
        values (list[float]): The answers.

    Returns:
        dict: The weighted mean and the module's docstring.

    Raises:
        ValueError: If the lists differ in length.
    """
    if len(weights) != len(values):
        raise ValueError("length mismatch")
    return {
        "mean": round(weighted_mean(values, weights), PRECISION),
        "module_doc": __doc__,
        "helper_doc_first": weighted_mean.__doc__.strip().splitlines()[0],
        "own_doc_lines": len(docstring_styles_numpy.__doc__.splitlines()),
        "name": __name__ != "__main__",
    }
