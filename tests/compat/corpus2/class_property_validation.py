# args: {"celsius": 21.5}
class Thermostat:
    """A thermostat whose target is validated on every write."""

    MIN, MAX = 5.0, 30.0

    def __init__(self, target: float) -> None:
        self._target = None
        self.target = target
        self.history = []

    @property
    def target(self) -> float:
        return self._target

    @target.setter
    def target(self, value: float) -> None:
        if not self.MIN <= value <= self.MAX:
            raise ValueError(f"target {value} outside {self.MIN}-{self.MAX}")
        if self._target is not None:
            self.history.append(self._target)
        self._target = round(value, 1)

    @target.deleter
    def target(self) -> None:
        self._target = self.MIN

    @property
    def fahrenheit(self) -> float:
        return round(self._target * 9 / 5 + 32, 1)


def class_property_validation(celsius: float) -> dict:
    """Set a thermostat through a validated property."""
    t = Thermostat(celsius)
    errors = []
    for value in (18.25, 45, 22):
        try:
            t.target = value
        except ValueError as error:
            errors.append(str(error))
    try:
        t.fahrenheit = 1
    except AttributeError as error:
        errors.append(str(error))
    f = t.fahrenheit
    del t.target
    return {"fahrenheit": f, "history": t.history, "errors": errors, "after_delete": t.target, "is_property": isinstance(Thermostat.target, property)}
