# args: {"rows": [[4, 1], [2, 3]], "rhs": [1, 2]}
import numpy as np


def numpy_matrix_math(rows: list[list[float]], rhs: list[float]) -> dict:
    """Solves a small linear system and describes the matrix."""
    a = np.asarray(rows, dtype=float)
    b = np.array(rhs, dtype=float)
    x = np.linalg.solve(a, b)
    eigen = np.linalg.eigvals(a)
    print(repr(a))
    print(np.round(a @ x, 6))
    return {
        "solution": np.round(x, 6).tolist(),
        "det": round(float(np.linalg.det(a)), 6),
        "inverse": np.round(np.linalg.inv(a), 6).tolist(),
        "eigenvalues": sorted(np.round(eigen.real, 6).tolist()),
        "norm": round(float(np.linalg.norm(a)), 6),
        "rank": int(np.linalg.matrix_rank(a)),
        "transpose": a.T.tolist(),
        "dot": float(np.dot(b, b)),
        "shape": list(a.shape),
        "identity": np.eye(2, dtype=int).tolist(),
        "stacked": np.vstack([a, b]).tolist(),
    }
