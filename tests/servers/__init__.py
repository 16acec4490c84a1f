"""Local fake servers the protocol tests talk to over loopback, with the real SDK clients."""
