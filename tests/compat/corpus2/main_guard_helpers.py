# args: {"text": "Hello World"}
import json

VOWELS = frozenset("aeiouAEIOU")
ROT = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM")


def rot13(text: str) -> str:
    return text.translate(ROT)


def count_vowels(text: str) -> int:
    return sum(ch in VOWELS for ch in text)


OPERATIONS = {"rot13": rot13, "vowels": count_vowels, "reverse": lambda s: s[::-1]}


def main_guard_helpers(text: str) -> dict:
    """Module-level constants, a dispatch table and a __main__ guard."""
    return {name: op(text) for name, op in OPERATIONS.items()}


if __name__ == "__main__":
    print(json.dumps(main_guard_helpers("test")))
