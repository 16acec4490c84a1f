import string


def warm_up() -> str:
    return repr([string.Template("$a").substitute(a=1), string.capwords("a b"), string.ascii_letters[:2]])
