# args: {"name": "Ana", "score": 91.456, "rank": 3}
def percent_format_report(name: str, score: float, rank: int) -> dict:
    """Old-style and new-style formatting."""
    return {
        "percent": "%s scored %.1f (rank #%d)" % (name, score, rank),
        "named": "%(name)-6s|%(score)08.3f" % {"name": name, "score": score},
        "format": "{0} scored {1:.2f}, rank {2:02d}".format(name, score, rank),
        "format_named": "{n!r:>8} {s:.0f}%".format(n=name, s=score),
        "hex": f"{rank:#06x} {rank:o} {255:X}",
        "sci": f"{score * 1e6:.3e}",
        "thousands": f"{1234567.891:_.2f}",
        "nested": "{:{fill}{align}{width}}".format(name, fill="-", align="^", width=9),
    }
