# args: {"rows": 3, "cols": 4}
def comprehension_matrix(rows: int, cols: int) -> dict:
    """Matrix tricks with comprehensions."""
    m = [[r * cols + c for c in range(cols)] for r in range(rows)]
    transposed = [list(col) for col in zip(*m)]
    evens = {v for row in m for v in row if v % 2 == 0}
    index = {f"r{r}c{c}": m[r][c] for r in range(rows) for c in range(cols) if (r + c) % 3 == 0}
    diag = [m[i][i] for i in range(min(rows, cols))]
    return {
        "m": m,
        "t": transposed,
        "evens": sorted(evens),
        "index": index,
        "diag": diag,
        "flat_sum": sum(v for row in m for v in row),
    }
