# args: {"cities": ["Lisbon", "Oslo"]}
TEMPS = {"Lisbon": 21, "Oslo": 4}


async def fetch_temperature(city: str) -> int:
    return TEMPS.get(city, 15)


async def describe(city):
    temp = await fetch_temperature(city)
    return f"{city}: {temp}°C ({'warm' if temp > 15 else 'cold'})"


async def async_weather_summary(cities: list[str]) -> list[str]:
    """Summarize the weather in several cities."""
    return [await describe(city) for city in cities]
