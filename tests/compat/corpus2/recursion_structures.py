# args: {"tree": {"name": "root", "children": [{"name": "a", "children": [{"name": "a1", "children": []}, {"name": "a2", "children": []}]}, {"name": "b", "children": []}]}, "n": 4}
def depth(node) -> int:
    return 1 + max((depth(c) for c in node["children"]), default=0)


def paths(node, prefix=""):
    here = f"{prefix}/{node['name']}"
    if not node["children"]:
        return [here]
    return [p for child in node["children"] for p in paths(child, here)]


def permutations(items):
    if len(items) <= 1:
        return [items]
    return [[x] + rest for i, x in enumerate(items) for rest in permutations(items[:i] + items[i + 1 :])]


def hanoi(n, source="A", target="C", spare="B", moves=None):
    moves = [] if moves is None else moves
    if n:
        hanoi(n - 1, source, spare, target, moves)
        moves.append(source + target)
        hanoi(n - 1, spare, target, source, moves)
    return moves


def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


def recursion_structures(tree: dict, n: int) -> dict:
    """Recursive tree walks, permutations and puzzles."""
    return {
        "depth": depth(tree),
        "paths": paths(tree),
        "perms": ["".join(p) for p in permutations(list("abc"))],
        "hanoi": len(hanoi(n)),
        "first_moves": hanoi(3)[:3],
        "ackermann": ackermann(2, 3),
    }
