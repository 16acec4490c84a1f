# args: {"ids": [3, 1, 2]}
async def fetch_profile(user_id: int) -> dict:
    return {"id": user_id, "name": f"user{user_id}"}


async def fetch_orders(user_id: int) -> list:
    return [user_id * 10 + i for i in range(user_id)]


class AsyncRange:
    def __init__(self, n):
        self.n = n
        self.i = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        self.i += 1
        return self.i


async def ticker(n):
    for i in range(n):
        yield i * i


class Session:
    async def __aenter__(self):
        self.open = True
        return self

    async def __aexit__(self, *exc):
        self.open = False
        return False


async def async_tool_gather_like(ids: list[int]) -> dict:
    """An async tool awaiting helpers, async iterators, generators and context managers."""
    profiles = [await fetch_profile(i) for i in sorted(ids)]
    orders = {p["name"]: await fetch_orders(p["id"]) for p in profiles}
    counted = [i async for i in AsyncRange(3)]
    squares = [s async for s in ticker(4) if s % 2 == 0]
    async with Session() as session:
        inside = session.open
    return {"profiles": profiles, "orders": orders, "counted": counted, "squares": squares, "session": [inside, session.open]}
