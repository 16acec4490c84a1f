import copy


def warm_up() -> str:
    return repr([copy.copy([1]), copy.deepcopy({"a": [1, (2, 3)]})])
