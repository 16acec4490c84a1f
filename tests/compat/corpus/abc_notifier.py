# args: {"channel": "sms", "message": "Your code is 1234"}
from abc import ABC, abstractmethod


class Notifier(ABC):
    @abstractmethod
    def send(self, message: str) -> str: ...

    def format(self, message):
        return f"[{self.__class__.__name__}] {message}"


class Sms(Notifier):
    def send(self, message):
        return self.format(message[:20])


class Email(Notifier):
    def send(self, message):
        return self.format(message)


def abc_notifier(channel: str, message: str) -> dict:
    """Send a notification."""
    notifier = {"sms": Sms, "email": Email}[channel]()
    try:
        Notifier()
        abstract = False
    except TypeError:
        abstract = True
    return {"sent": notifier.send(message), "abstract_refused": abstract}
