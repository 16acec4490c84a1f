"""`toolpen web`: a local playground page (editor, diagnostics, schemas, form, run, state diff)."""

from __future__ import annotations

from runtime.web.app import WebConfig, create_app
from runtime.web.guard import is_loopback_host

__all__ = ["WebConfig", "create_app", "is_loopback_host"]
