# args: {"matrix": [[1, 2, 3], [4, 5, 6]]}
FACTOR = 10


class Grid:
    size = 3
    cells = [(r, c) for r in range(3) for c in range(3) if r == c]
    scaled = [FACTOR * n for n in range(3)]


def comprehension_scoping_rules(matrix: list) -> dict:
    """Scopes of comprehensions, generator laziness and loop variables."""
    x = "outer"
    squares = [x * x for x in range(4)]
    transposed = [[row[i] for row in matrix] for i in range(len(matrix[0]))]
    flat = [n for row in matrix for n in row if n % 2]
    lookup = {n: str(n) for n in flat}
    unique = {n % 3 for row in matrix for n in row}
    adders = [lambda v, k=k: v + k for k in range(3)]
    late = [lambda v: v + k for k in range(3)]
    limit = 2
    lazy = (n for n in range(10) if n < limit)
    limit = 5
    for i in range(3):
        pass
    return {
        "x_after": x,
        "squares": squares,
        "transposed": transposed,
        "flat": flat,
        "lookup": lookup,
        "unique": sorted(unique),
        "adders": [f(10) for f in adders],
        "late_binding": [f(10) for f in late],
        "lazy": list(lazy),
        "loop_var": i,
        "grid": [Grid.cells, Grid.scaled],
        "nested_ternary": ["fizz" * (n % 3 == 0) + "buzz" * (n % 5 == 0) or str(n) for n in range(1, 16)][-6:],
    }
