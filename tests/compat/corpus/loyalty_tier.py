# args: {"points": 1234}
# context: {"state": {"customer": {"name": "Ana", "points": 0}}}
TIERS = [(0, "bronze"), (500, "silver"), (1000, "gold"), (5000, "platinum")]


def loyalty_tier(points: int) -> dict:
    """Update a customer's points and tier."""
    customer = context.state["customer"]
    customer["points"] += points
    tier = [name for threshold, name in TIERS if customer["points"] >= threshold][-1]
    customer["tier"] = tier
    print(f"{customer['name']} is now {tier} with {customer['points']:,} points")
    return customer
