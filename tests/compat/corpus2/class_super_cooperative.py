# args: {"message": "deploy finished"}
class Base:
    def __init__(self, **kwargs):
        self.log = []
        super().__init__()

    def handle(self, message: str) -> str:
        self.log.append("base")
        return message


class Timestamped(Base):
    def __init__(self, clock="09:00", **kwargs):
        super().__init__(**kwargs)
        self.clock = clock

    def handle(self, message):
        self.log.append("timestamped")
        return f"[{self.clock}] " + super().handle(message)


class Uppercase(Base):
    def handle(self, message):
        self.log.append("upper")
        return super().handle(message.upper())


class Alert(Timestamped, Uppercase):
    def handle(self, message):
        self.log.append("alert")
        return "!! " + super(Alert, self).handle(message)


def class_super_cooperative(message: str) -> dict:
    """Cooperative multiple inheritance with super()."""
    alert = Alert(clock="10:30")
    text = alert.handle(message)
    return {
        "text": text,
        "order": alert.log,
        "bases": [cls.__name__ for cls in (Alert, Timestamped, Uppercase, Base)],
        "isinstance": [isinstance(alert, Uppercase), issubclass(Alert, Base)],
    }
