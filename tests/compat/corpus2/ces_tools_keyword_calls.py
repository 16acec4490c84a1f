# args: {"sku": "KB-01", "quantity": 3}
# tools: {"get_price": {"takes": ["sku"], "answers": {"sku": "KB-01", "unit_price": "49.90", "currency": "EUR"}}, "get_stock": {"takes": ["sku"], "answers": {"available": 2}}}
from decimal import Decimal


def ces_tools_keyword_calls(sku: str, quantity: int) -> dict:
    """Quote a price for a quantity of one product, capped by the stock."""
    price = tools.get_price(sku=sku)
    stock = tools.get_stock({"sku": sku}).json()
    granted = min(quantity, stock["available"])
    total = Decimal(price["unit_price"]) * granted
    return {
        "status": price.status_code,
        "granted": granted,
        "backordered": quantity - granted,
        "total": f"{total:.2f} {price['currency']}",
    }
