# args: {"defaults": {"color": "blue", "size": "M"}, "prefs": {"size": "L", "fit": "slim"}}
def dict_merge_ops(defaults: dict, prefs: dict) -> dict:
    """Merge preferences."""
    merged = defaults | prefs
    updated = dict(defaults)
    updated |= {"color": "red"}
    inverted = {v: k for k, v in merged.items()}
    common = defaults.keys() & prefs.keys()
    return {
        "merged": merged,
        "updated": updated,
        "inverted": inverted,
        "common": sorted(common),
        "only_prefs": sorted(prefs.keys() - defaults.keys()),
        "items": sorted(merged.items()),
    }
