"""The leaves both sides share, importing nothing else of toolpen: error kinds (``errors``), located
findings (``diagnostics``), per-call budgets (``limits``) and the walls mode (``walls``).

The host re-exports the public ones from ``runtime``; the worker, the zygote and the host's
process wall import them from here, so that neither side's internals are loaded for them.
"""
