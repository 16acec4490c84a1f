# args: {"requests": [{"user": "ana", "amount": 50}, {"user": "", "amount": 10}, {"user": "bo", "amount": 5000}]}
class PaymentError(Exception):
    code = "payment_error"


class ValidationFailed(PaymentError):
    code = "invalid"


class LimitExceeded(PaymentError):
    code = "limit"

    def __init__(self, amount, limit):
        super().__init__(f"{amount} exceeds limit {limit}")
        self.amount = amount
        self.limit = limit


def charge(request):
    if not request["user"]:
        raise ValidationFailed("missing user")
    if request["amount"] > 1000:
        raise LimitExceeded(request["amount"], 1000)
    return f"charged {request['user']} {request['amount']}"


def custom_exception_hierarchy(requests: list[dict]) -> list:
    """Charge several payments."""
    results = []
    for request in requests:
        try:
            results.append({"ok": charge(request)})
        except PaymentError as error:
            results.append(
                {
                    "error": error.code,
                    "kind": type(error).__name__,
                    "message": str(error),
                    "is_base": isinstance(error, PaymentError),
                }
            )
        finally:
            pass
    return results
