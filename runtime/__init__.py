"""toolpen's trusted host side. The public API is what this module exports."""
