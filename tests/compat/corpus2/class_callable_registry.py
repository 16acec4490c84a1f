# args: {"event": "order_paid", "payload": {"id": 5, "amount": 20}}
class Handler:
    registry: dict = {}

    def __init_subclass__(cls, event: str = "", **kwargs):
        super().__init_subclass__(**kwargs)
        if event:
            Handler.registry[event] = cls

    def __call__(self, payload: dict) -> str:
        return self.handle(payload)


class PaidHandler(Handler, event="order_paid"):
    def handle(self, payload):
        return f"receipt for order {payload['id']}: {payload['amount']:.2f}"


class RefundHandler(Handler, event="order_refunded"):
    def handle(self, payload):
        return f"refund {payload['id']}"


def register(name):
    def decorate(fn):
        HOOKS[name] = fn
        fn.hook_name = name
        return fn

    return decorate


HOOKS = {}


@register("audit")
def audit(payload):
    return f"audit {sorted(payload)}"


class Counter:
    def __init__(self):
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.calls


def class_callable_registry(event: str, payload: dict) -> dict:
    """Dispatch events through a registry filled by __init_subclass__ and decorators."""
    handler = Handler.registry[event]()
    counter = Counter()
    for _ in range(3):
        counter()
    return {
        "result": handler(payload),
        "events": sorted(Handler.registry),
        "hook": HOOKS["audit"](payload),
        "hook_name": audit.hook_name,
        "callable": [callable(handler), callable(counter), callable(payload)],
        "calls": counter.calls,
    }
