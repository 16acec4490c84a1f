"""The compatibility corpus: ordinary tools compared with plain CPython."""
