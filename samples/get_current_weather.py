"""The weather function of the Chat Completions function-calling example (seed 004)."""

from typing import Literal

# Canned observations in Fahrenheit, as in the published example conversation.
TEMPERATURES_F = {"boston": 75, "new delhi": 50}


def get_current_weather(location: str, unit: Literal["celsius", "fahrenheit"] = None) -> str:
    """Get the current weather in a given location

    Args:
        location: The city and state, e.g. San Francisco, CA
    """
    city = location.split(",")[0].strip().lower()
    if city not in TEMPERATURES_F:
        return f"No weather data for {location}."
    fahrenheit = TEMPERATURES_F[city]
    if unit == "celsius":
        return f"The temperature in {location} is {round((fahrenheit - 32) * 5 / 9)} degrees Celsius."
    return f"The temperature in {location} is {fahrenheit} degrees Fahrenheit."
