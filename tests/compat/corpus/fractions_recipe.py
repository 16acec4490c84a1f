# args: {"servings": 6, "base_servings": 4, "ingredients": {"flour (cups)": "3/4", "sugar (cups)": "1/3", "eggs": "2"}}
from fractions import Fraction


def _pretty(value):
    whole, rest = divmod(value.numerator, value.denominator)
    if rest == 0:
        return str(whole)
    frac = f"{rest}/{value.denominator}"
    return f"{whole} {frac}" if whole else frac


def fractions_recipe(servings: int, base_servings: int, ingredients: dict) -> dict:
    """Scale a recipe."""
    factor = Fraction(servings, base_servings)
    return {name: _pretty(Fraction(amount) * factor) for name, amount in ingredients.items()}
