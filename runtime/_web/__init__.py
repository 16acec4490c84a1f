"""`toolpen web`: a local playground page (editor, diagnostics, schemas, form, run, turns, state diff)."""

from __future__ import annotations

from runtime._egress import is_loopback_host
from runtime._web.app import create_app
from runtime._web.playground import WebConfig

__all__ = ["WebConfig", "create_app", "is_loopback_host"]
