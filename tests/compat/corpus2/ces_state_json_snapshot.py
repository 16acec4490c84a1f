# context: {"state": {"user": {"name": "Zoë", "tags": ["vip", "beta"]}, "score": 1.5, "ok": true}}
import json


def ces_state_json_snapshot() -> dict:
    """Serialize the state for a log line."""
    compact = json.dumps(context.state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    pretty = json.dumps(context.state["user"], indent=2)
    print(compact)
    return {"compact": compact, "pretty": pretty, "size": len(compact.encode())}
