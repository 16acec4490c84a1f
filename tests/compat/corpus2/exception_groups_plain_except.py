# args: {"emails": ["ana@x.io", "bad", "bo@y.org", "", "cy@"]}
def validate(email: str) -> str:
    if not email:
        raise ValueError("empty address")
    if "@" not in email:
        raise ValueError(f"{email!r} has no @")
    if email.endswith("@"):
        raise LookupError(f"{email!r} has no domain")
    return email


def exception_groups_plain_except(emails: list[str]) -> dict:
    """Collect several errors in an ExceptionGroup and inspect it without except*."""
    errors, valid = [], []
    for email in emails:
        try:
            valid.append(validate(email))
        except (ValueError, LookupError) as error:
            errors.append(error)
    try:
        if errors:
            raise ExceptionGroup("invalid addresses", errors)
    except ExceptionGroup as group:
        values, others = group.split(ValueError)
        summary = {
            "message": group.message,
            "str": str(group),
            "count": len(group.exceptions),
            "value_errors": [str(e) for e in values.exceptions],
            "others": [type(e).__name__ for e in others.exceptions],
            "subgroup": len(group.subgroup(lambda e: "domain" in str(e)).exceptions),
            "derive": type(group.derive([ValueError("x")])).__name__,
        }
    base = BaseExceptionGroup("mixed", [ValueError("a"), TypeError("b")])
    return {"valid": valid, "summary": summary, "base_type": type(base).__name__}
