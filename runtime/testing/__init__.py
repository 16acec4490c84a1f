"""Test an exported CES app in pytest, as cxas-scrapi's harness does, but with the real walls.

``CesApp`` (the ``ces_app`` / ``load_ces_app`` fixtures of the plugin, ``runtime.testing.plugin``,
which pytest loads from the package's ``pytest11`` entry point) runs an export's tools and
callbacks in real workers; ``runtime.testing.ces`` holds the CES classes a test builds inputs
from (``CallbackContext(state=...)``, ``Content``, ``Part``, ...).
"""

from runtime.testing._app import CesApp

__all__ = ["CesApp"]
