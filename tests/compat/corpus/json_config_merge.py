# args: {"base": "{\"debug\": false, \"db\": {\"host\": \"localhost\", \"port\": 5432}}", "override": {"db": {"port": 6543}, "debug": true}}
import json


def deep_merge(a, b):
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def json_config_merge(base: str, override: dict) -> dict:
    """Merge a JSON config with overrides."""
    merged = deep_merge(json.loads(base), override)
    return {"merged": merged, "pretty": json.dumps(merged, indent=2, sort_keys=True)}
