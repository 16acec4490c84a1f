# args: {}
PRICES = {("tea", "small"): 2.0}


def err_keyerror_tuple_key() -> float:
    """A KeyError whose key is a tuple."""
    return PRICES[("tea", "large")]
