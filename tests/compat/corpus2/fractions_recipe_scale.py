# args: {"ingredients": {"flour": "2 1/4", "sugar": "3/4", "butter": "0.5", "eggs": "2"}, "factor": "2/3"}
from fractions import Fraction
import math


def parse_quantity(text: str) -> Fraction:
    whole, _, rest = text.partition(" ")
    return Fraction(whole) + Fraction(rest) if rest else Fraction(whole)


def pretty(value: Fraction) -> str:
    whole, rest = divmod(value.numerator, value.denominator)
    if rest == 0:
        return str(whole)
    frac = f"{rest}/{value.denominator}"
    return f"{whole} {frac}" if whole else frac


def fractions_recipe_scale(ingredients: dict, factor: str) -> dict:
    """Scale a recipe by an exact factor."""
    scale = Fraction(factor)
    scaled = {name: pretty(parse_quantity(q) * scale) for name, q in ingredients.items()}
    pi_approx = Fraction(math.pi).limit_denominator(1000)
    return {
        "scaled": scaled,
        "pi": [pi_approx.numerator, pi_approx.denominator, str(pi_approx)],
        "float": float(Fraction(1, 3)),
        "ratio": list((0.75).as_integer_ratio()),
        "from_decimal": str(Fraction("1.125")),
        "compare": Fraction(1, 3) < 0.34,
        "gcd_lcm": [math.gcd(12, 18), math.lcm(4, 6)],
        "repr": repr(Fraction(6, 4)),
        "power": str(Fraction(2, 3) ** 3),
        "round": str(round(Fraction(7, 3), 1)),
    }
