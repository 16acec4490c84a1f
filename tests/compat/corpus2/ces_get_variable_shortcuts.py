# args: {"points": 50}
# context: {"state": {"customer_profile": {"email": "a@b.c", "loyalty_points": 10, "plan": "Gold"}}}
def ces_get_variable_shortcuts(points: int) -> dict:
    """Update loyalty points with the module-level get_variable/set_variable shortcuts."""
    profile = get_variable("customer_profile") or {}
    profile = dict(profile)
    profile["loyalty_points"] = profile.get("loyalty_points", 0) + points
    set_variable("customer_profile", profile)
    set_variable("last_update", f"+{points}")
    print(f"Updated loyalty points to: {profile['loyalty_points']}")
    return profile
