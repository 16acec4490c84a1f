# args: {"city": "Porto"}
# tools: {"find_stores": {"takes": ["city"], "answers": [{"name": "Baixa", "open": true, "km": 1.2}, {"name": "Foz", "open": false, "km": 4.0}, {"name": "Boavista", "open": true, "km": 2.5}]}}
def ces_tools_list_result(city: str) -> str:
    """Find the nearest open store."""
    stores = tools.find_stores({"city": city})
    open_stores = sorted((s for s in stores if s["open"]), key=lambda s: s["km"])
    if not open_stores:
        return f"No open store in {city}."
    best = open_stores[0]
    context.state["store"] = best["name"]
    return f"{best['name']} ({best['km']:.1f} km), {len(open_stores)} open of {len(stores)}"
