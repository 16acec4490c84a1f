# args: {"language": "pt-BR"}
# context: {"state": {"customer_name": "Ana", "visits": "2"}}
DEFAULT_LANGUAGE = "en-US"


def ces_get_set_variable(language: str) -> dict:
    """Store the customer's preferred language and count the visit.

    Args:
        language: BCP-47 language tag chosen by the customer.

    Returns:
        A greeting and the stored values.
    """
    previous = context.get_variable("language", DEFAULT_LANGUAGE)
    visits = int(context.get_variable("visits", "0")) + 1
    context.set_variable("language", language)
    context.set_variable("visits", str(visits))
    name = context.get_variable("customer_name")
    missing = context.get_variable("loyalty_tier")
    return {
        "greeting": f"Olá {name}!" if language.startswith("pt") else f"Hello {name}!",
        "previous_language": previous,
        "visits": visits,
        "tier_known": missing is not None,
    }
