# args: {"weight_kg": 3.2, "country": "DE", "express": true}
ZONES = {"PT": 1, "ES": 1, "FR": 2, "DE": 2, "US": 3}
RATES = {1: (5.0, 1.2), 2: (8.5, 1.8), 3: (20.0, 4.5)}


def shipping_quote(weight_kg: float, country: str, express: bool = False) -> dict:
    """Quote shipping."""
    zone = ZONES.get(country.upper())
    if zone is None:
        return {"error": f"we do not ship to {country!r}"}
    base, per_kg = RATES[zone]
    price = base + per_kg * max(0, weight_kg - 1)
    if express:
        price *= 1.5
    return {
        "zone": zone,
        "price": round(price, 2),
        "label": f"{country}-{'EXP' if express else 'STD'}-{weight_kg:05.1f}",
    }
