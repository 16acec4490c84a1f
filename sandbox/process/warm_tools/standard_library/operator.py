import operator


def warm_up() -> str:
    return repr(
        [
            sorted([("b", 2), ("a", 1)], key=operator.itemgetter(1)),
            operator.attrgetter("real")(1),
            operator.methodcaller("upper")("a"),
        ]
    )
