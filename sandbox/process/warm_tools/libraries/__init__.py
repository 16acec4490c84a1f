"""The warm-up tools of the libraries (pydantic with the CES classes, numpy, protobuf), one per library."""
