# args: {"values": [3, 1, 2]}
from typing import Callable, Generic, Iterable, Optional, TypeVar

T = TypeVar("T")
K = TypeVar("K")


class Stack(Generic[T]):
    def __init__(self, items: Iterable[T] = ()) -> None:
        self._items: list[T] = list(items)

    def push(self, item: T) -> None:
        self._items.append(item)

    def pop(self) -> Optional[T]:
        return self._items.pop() if self._items else None

    def map(self, fn: Callable[[T], K]) -> "Stack[K]":
        return Stack(fn(i) for i in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Stack({self._items!r})"


def first(items: list[T], default: T) -> T:
    return items[0] if items else default


def typing_generic_container(values: list[int]) -> dict:
    """A generic container class and generic functions."""
    stack: Stack[int] = Stack(values)
    stack.push(9)
    top = stack.pop()
    strings = stack.map(lambda v: f"#{v}")
    return {
        "top": top,
        "len": len(stack),
        "repr": repr(strings),
        "first": [first(values, 0), first([], "none")],
        "alias": repr(Stack[int])[-10:],
        "typevar": repr(T),
        "orig_bases": Stack.__name__,
        "empty_pop": Stack().pop(),
    }
