# args: {"n": 5}
def _square(x):
    return x * x


def main_guard_module(n: int) -> list:
    """Squares up to n."""
    return [_square(i) for i in range(n)]


if __name__ == "__main__":
    print(main_guard_module(3))
