"""Raw attacks on the process wall alone: tool code under walls="process" holds open, os, ctypes, socket."""
