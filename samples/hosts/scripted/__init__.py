"""Scripted in-process models for the framework adapters: each answers a fixed list of turns (tool
calls, then text) through the framework's own model interface, so a host or a test runs the
framework's real runner offline. One module per framework, each needing only that framework."""
