# args: {"rows": [["Coffee", 3.5, 2], ["Sandwich", 7.25, 1], ["Water", 1, 12]]}
def format_spec_table(rows: list) -> dict:
    """Format a receipt with str.format and format specs."""
    lines = ["{:<10}|{:>8}|{:^5}|{:>9}".format("item", "price", "qty", "total")]
    for name, price, qty in rows:
        lines.append("{0:<10}|{1:>8.2f}|{2:^5d}|{total:>9,.2f}".format(name, price, qty, total=price * qty))
    grand = sum(price * qty for _, price, qty in rows)
    width, precision = 12, 3
    return {
        "lines": lines,
        "grand": "{:=+12,.2f}".format(grand),
        "nested": "{:{w}.{p}f}".format(grand, w=width, p=precision),
        "bases": "{0:b} {0:o} {0:x} {0:#X} {0:#010b}".format(42),
        "percent": "{:.1%}".format(0.0725),
        "exp": "{:.3e}|{:g}|{:g}".format(123456.789, 0.00001, 1e20),
        "fill": "{:*^20}".format(" total "),
        "sign": "{: d}|{:+d}|{:-d}".format(5, 5, -5),
        "underscore": format(1234567, "_d"),
        "index": "{0[0]}-{1[name]}".format(["a"], {"name": "b"}),
        "builtin": [format(3.14159, ".2f"), format(255, "x"), format("s", ">3")],
        "percent_old": "%-6s|%5.1f|%03d|%x|%r" % ("ab", 2.345, 7, 255, "q"),
        "percent_map": "%(name)s is %(age)d" % {"name": "Ana", "age": 30},
    }
