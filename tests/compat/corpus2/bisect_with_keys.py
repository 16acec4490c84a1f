# args: {"scores": [55, 67, 72, 88, 91, 100]}
import bisect

BREAKPOINTS = [60, 70, 80, 90]
GRADES = "FDCBA"


def grade(score: int) -> str:
    return GRADES[bisect.bisect(BREAKPOINTS, score)]


def bisect_with_keys(scores: list[int]) -> dict:
    """Grades with bisect, sorted inserts and key functions."""
    people = [("ana", 31), ("bo", 25), ("cy", 40)]
    people.sort(key=lambda p: p[1])
    bisect.insort(people, ("di", 33), key=lambda p: p[1])
    ages = [p[1] for p in people]
    sorted_scores = []
    for s in reversed(scores):
        bisect.insort_left(sorted_scores, s)
    return {
        "grades": [grade(s) for s in scores],
        "people": [p[0] for p in people],
        "left_right": [bisect.bisect_left(ages, 33), bisect.bisect_right(ages, 33)],
        "key_search": bisect.bisect_left(people, 31, key=lambda p: p[1]),
        "sorted": sorted_scores,
    }
