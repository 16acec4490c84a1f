# args: {"amount": "12.5x"}
def err_tool_call_arguments(amount: str) -> float:
    """float() of a malformed amount inside a nested helper."""

    def parse(text):
        cleaned = text.strip().replace(",", ".")
        return float(cleaned)

    return parse(amount) * 2
