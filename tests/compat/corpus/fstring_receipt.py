# args: {"lines": [["Coffee", 2, 3.5], ["Croissant", 1, 2.25], ["Orange juice (large)", 1, 4.0]]}
def fstring_receipt(lines: list) -> str:
    """Print a receipt."""
    width = 32
    out = [f"{'RECEIPT':^{width}}", "-" * width]
    total = 0.0
    for name, qty, price in lines:
        cost = qty * price
        total += cost
        out.append(f"{name[:18]:<18}{qty:>3} x{price:>6.2f}")
    out.append("-" * width)
    out.append(f"{'TOTAL':<20}{total:>12,.2f}")
    out.append(f"{'items':<20}{len(lines):>12d}")
    out.append(f"{total / len(lines):=^+{width}.3f}")
    text = "\n".join(out)
    print(text)
    return text
