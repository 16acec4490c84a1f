# args: {"city": "Porto"}
from pydantic import BaseModel


class Forecast(BaseModel):
    city: str
    high: int
    low: int
    summary: str = "sunny"


def pydantic_model_returned(city: str) -> Forecast:
    """Forecast for a city."""
    forecast = Forecast(city=city, high=24, low=15)
    return forecast.model_copy(update={"summary": "cloudy"})
