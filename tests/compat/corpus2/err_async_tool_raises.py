# args: {"user_id": 0}
async def load(user_id):
    if user_id <= 0:
        raise LookupError(f"no user {user_id}")
    return {"id": user_id}


async def err_async_tool_raises(user_id: int) -> dict:
    """An async tool whose helper raises."""
    return await load(user_id)
