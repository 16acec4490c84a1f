"""The warm-up tools of the standard library's modules, one per module, named after it (``urllib_parse`` for ``urllib.parse``)."""
