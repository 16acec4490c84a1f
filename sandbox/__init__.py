"""The untrusted side of toolpen: language policy, restricted compilation, worker processes."""
