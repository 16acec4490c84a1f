# args: {"code": 404}
class HttpProblem(Exception):
    def __init__(self, status, detail):
        super().__init__(status, detail)
        self.status = status
        self.detail = detail

    def __str__(self):
        return f"HTTP {self.status}: {self.detail}"


def err_custom_str_exception(code: int) -> str:
    """A custom exception with its own __str__."""
    raise HttpProblem(code, "resource missing")
