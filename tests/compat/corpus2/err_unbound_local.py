# args: {"flag": false}
def err_unbound_local(flag: bool) -> str:
    """A variable assigned only on one branch."""
    if flag:
        message = "yes"
    return message
