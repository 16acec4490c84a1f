# args: {"n": 200}
import math


def huge_integers(n: int) -> dict:
    """Big integers: factorials, powers, conversions, bit operations."""
    big = math.factorial(n)
    power = 2**521 - 1
    text = str(big)
    too_long = 10**5000
    try:
        str(too_long)
        limit = None
    except ValueError as error:
        limit = str(error)
    return {
        "digits": len(text),
        "head": text[:20],
        "trailing_zeros": len(text) - len(text.rstrip("0")),
        "mersenne_bits": power.bit_length(),
        "bit_count": (255).bit_count(),
        "mod_pow": pow(3, 10**18, 1_000_000_007),
        "inverse": pow(3, -1, 11),
        "parse": [int("ff", 16), int("0b1010", 0), int("1_000_000"), int("  -42 "), int("z", 36)],
        "formats": [bin(10), oct(64), hex(255), f"{2**64:,}", f"{2**70:e}"],
        "floor_div_neg": [-7 // 2, -7 % 2, divmod(-7, 2)],
        "limit": limit,
        "float_big": float(2**100),
        "shift": [1 << 100 >> 98, -1 >> 5, ~5, 6 & 3, 6 | 3, 6 ^ 3],
        "to_bytes_len": len(power.to_bytes((power.bit_length() + 7) // 8, "big")),
        "int_of_float": [int(3.99), int(-3.99), round(2.675, 2), int(1e20)],
    }
