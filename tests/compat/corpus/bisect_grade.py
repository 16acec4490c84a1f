# args: {"scores": [33, 99, 77, 70, 89, 90, 100]}
import bisect


def bisect_grade(scores: list[int]) -> dict:
    """Letter grades by score."""
    breakpoints = [60, 70, 80, 90]
    grades = "FDCBA"
    ranked = []
    for score in scores:
        bisect.insort(ranked, score)
    return {
        "grades": [grades[bisect.bisect(breakpoints, s)] for s in scores],
        "ranked": ranked,
        "position_of_80": bisect.bisect_left(ranked, 80),
    }
