# args: {"points": [[0, 0], [3, 4], [6, 8]], "n": 10}
import math


def math_toolbox(points: list, n: int) -> dict:
    """The math functions ordinary tools use."""
    return {
        "dist": [math.dist(points[0], p) for p in points],
        "hypot": math.hypot(3, 4, 12),
        "comb_perm": [math.comb(n, 3), math.perm(n, 2)],
        "factorial": math.factorial(n),
        "prod": math.prod(range(1, 6)),
        "fsum": [sum([0.1] * 10), math.fsum([0.1] * 10)],
        "isclose": [0.1 + 0.2 == 0.3, math.isclose(0.1 + 0.2, 0.3)],
        "floor_ceil": [math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.5), round(-2.5), round(3.5)],
        "logs": [math.log(8, 2), math.log10(1000), math.log2(1024), round(math.log1p(1e-9), 15)],
        "isqrt": [math.isqrt(99), math.sqrt(2)],
        "copysign": math.copysign(3, -0.0),
        "inf_nan": [math.isinf(math.inf), math.isnan(math.nan), math.isfinite(1e308 * 10)],
        "radians": round(math.degrees(math.atan2(1, 1)), 6),
        "gcd_many": math.gcd(12, 18, 30),
        "remainder": [math.remainder(10, 3), math.fmod(-10, 3), -10 % 3],
        "modf_frexp": [list(math.modf(3.75)), list(math.frexp(8.0))],
        "constants": [round(math.pi, 5), round(math.e, 5), round(math.tau, 5)],
        "ulp": math.ulp(1.0) > 0,
        "divmod": [divmod(-7, 2), divmod(7.5, 2)],
        "pow": [pow(2, -1), pow(3, 4, 5), 2**0.5, round(abs(-8) ** (1 / 3), 9)],
    }
