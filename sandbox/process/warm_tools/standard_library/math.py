import math


def warm_up() -> str:
    return repr([math.isclose(1.0, 1.0), math.sqrt(2), math.floor(2.5), math.pi, math.gcd(4, 6)])
