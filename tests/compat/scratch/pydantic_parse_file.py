# args: {"name": "settings.json"}
import json
from pathlib import Path

from pydantic import BaseModel


class Settings(BaseModel):
    name: str
    retries: int = 3


def pydantic_parse_file(name: str) -> dict:
    """A tool's own model read from a file it wrote: parse_file by name and by Path, model_validate_json."""
    Path(name).write_text(json.dumps({"name": "primary", "retries": 5}), encoding="utf-8")
    by_name = Settings.parse_file(name)
    by_path = Settings.parse_file(Path(name), content_type="application/json")
    from_text = Settings.model_validate_json(Path(name).read_text(encoding="utf-8"))
    raw = Settings.parse_raw(Path(name).read_bytes())
    try:
        Settings.parse_file("missing.json")
        missing = "found"
    except FileNotFoundError as error:
        missing = type(error).__name__
    return {
        "by_name": by_name.model_dump(),
        "by_path": by_path.model_dump(),
        "from_text": from_text.model_dump(),
        "raw": raw.model_dump(),
        "missing": missing,
    }
