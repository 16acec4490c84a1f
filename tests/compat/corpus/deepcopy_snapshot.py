# args: {"edits": [["profile", "name", "Bo"], ["settings", "theme", "dark"]]}
# context: {"state": {"profile": {"name": "Ana", "tags": ["a"]}, "settings": {"theme": "light"}}}
import copy


def deepcopy_snapshot(edits: list) -> dict:
    """Edit state, keeping an undo snapshot."""
    undo = copy.deepcopy(dict(context.state))
    shallow = copy.copy(context.state["profile"])
    for section, key, value in edits:
        context.state[section][key] = value
    shallow["tags"].append("b")
    return {"undo": undo, "now": dict(context.state), "shallow_name": shallow["name"]}
