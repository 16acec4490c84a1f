# args: {"a": ["python", "sql", "docker"], "b": ["sql", "go", "docker", "k8s"]}
def set_operations_tags(a: list[str], b: list[str]) -> dict:
    """Compare skill sets."""
    sa, sb = set(a), set(b)
    frozen = frozenset(sa)
    return {
        "both": sorted(sa & sb),
        "either": sorted(sa | sb),
        "only_a": sorted(sa - sb),
        "sym": sorted(sa ^ sb),
        "subset": {"sql"} <= sa,
        "hashable": len({frozen: 1}),
        "jaccard": round(len(sa & sb) / len(sa | sb), 3),
    }
