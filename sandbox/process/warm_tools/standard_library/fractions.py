import fractions


def warm_up() -> str:
    return repr([str(fractions.Fraction(3, 4) + 1), fractions.Fraction("0.25").limit_denominator(10)])
