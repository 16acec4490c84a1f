# args: {"commands": ["go north", "take lamp key", "drop", "look", "quit now", "inventory", "go", "jump 3"]}
def parse(command: str):
    match command.split():
        case ["go", ("north" | "south" | "east" | "west") as direction]:
            return f"moving {direction}"
        case ["go"]:
            return "go where?"
        case ["take", first, *others]:
            return f"taking {first} and {len(others)} more"
        case ["drop" | "look" as verb]:
            return f"{verb}ing"
        case ["quit", *_]:
            return "bye"
        case [verb, number] if number.isdigit():
            return f"{verb} x{int(number)}"
        case [single]:
            return f"unknown: {single}"
        case _:
            return "?"


def classify(value):
    match value:
        case None:
            return "none"
        case True | False:
            return "bool"
        case int(n) if n < 0:
            return "negative"
        case 0:
            return "zero"
        case int() | float():
            return "number"
        case (a, b):
            return f"pair {a},{b}"
        case {"id": int(ident)}:
            return f"record {ident}"
        case []:
            return "empty list"
        case _:
            return type(value).__name__


def match_sequence_literals(commands: list[str]) -> dict:
    """Sequence, OR, capture and guard patterns."""
    return {
        "parsed": [parse(c) for c in commands],
        "classified": [classify(v) for v in [None, True, -3, 0, 2.5, (1, 2), {"id": 4}, [], "s"]],
    }
