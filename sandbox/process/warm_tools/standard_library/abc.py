import abc


class Base(abc.ABC):
    @abc.abstractmethod
    def run(self) -> int: ...


class Impl(Base):
    def run(self) -> int:
        return 1


def warm_up() -> str:
    return repr(Impl().run())
