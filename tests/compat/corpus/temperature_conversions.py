# args: {"values": ["100C", "212F", "300K", "-40C"]}
class Temperature:
    def __init__(self, kelvin):
        self.kelvin = kelvin

    @classmethod
    def parse(cls, text):
        value, unit = float(text[:-1]), text[-1].upper()
        if unit == "C":
            return cls(value + 273.15)
        if unit == "F":
            return cls((value - 32) * 5 / 9 + 273.15)
        return cls(value)

    @staticmethod
    def fmt(value):
        return f"{value:.1f}"

    def __float__(self):
        return self.kelvin

    def __int__(self):
        return int(self.kelvin)

    def __round__(self, digits=0):
        return round(self.kelvin, digits)

    @property
    def celsius(self):
        return self.kelvin - 273.15


def temperature_conversions(values: list[str]) -> list[dict]:
    """Convert temperatures."""
    out = []
    for text in values:
        t = Temperature.parse(text)
        out.append(
            {
                "in": text,
                "celsius": Temperature.fmt(t.celsius),
                "kelvin": float(t),
                "int": int(t),
                "rounded": round(t, 1),
            }
        )
    return out
