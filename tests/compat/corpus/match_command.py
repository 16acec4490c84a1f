# args: {"commands": ["go north", "take lamp", "drop", "look", "quit now", "go"]}
def match_command(commands: list[str]) -> list[str]:
    """Interpret adventure commands."""
    out = []
    for command in commands:
        match command.split():
            case ["go", direction]:
                out.append(f"you go {direction}")
            case ["take", item] | ["get", item]:
                out.append(f"taken: {item}")
            case ["look"]:
                out.append("you see a room")
            case ["quit", *rest]:
                out.append(f"bye ({len(rest)} extra)")
            case [verb]:
                out.append(f"{verb} what?")
            case _:
                out.append("?")
    return out
