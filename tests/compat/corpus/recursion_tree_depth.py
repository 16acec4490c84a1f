# args: {"tree": {"name": "root", "children": [{"name": "a", "children": [{"name": "a1", "children": []}]}, {"name": "b", "children": []}]}}
def depth(node):
    return 1 + max((depth(c) for c in node["children"]), default=0)


def paths(node, prefix=""):
    here = f"{prefix}/{node['name']}"
    if not node["children"]:
        return [here]
    return [p for child in node["children"] for p in paths(child, here)]


def recursion_tree_depth(tree: dict) -> dict:
    """Analyse a tree."""
    return {"depth": depth(tree), "leaves": paths(tree)}
