# args: {"items": [{"sku": "tee", "qty": 3}, {"sku": "cap", "qty": 1}], "coupon": "SAVE10"}
from decimal import Decimal, ROUND_HALF_UP

PRICES = {"tee": Decimal("19.99"), "cap": Decimal("12.50")}
COUPONS = {"SAVE10": Decimal("0.10")}


def price_with_discount(items: list[dict], coupon: str = "") -> dict:
    """Price a cart, applying a coupon."""
    subtotal = sum((PRICES[i["sku"]] * i["qty"] for i in items), Decimal("0"))
    rate = COUPONS.get(coupon.upper(), Decimal("0"))
    discount = (subtotal * rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    total = subtotal - discount
    return {"subtotal": f"{subtotal:.2f}", "discount": f"{discount:.2f}", "total": f"{total:.2f}"}
