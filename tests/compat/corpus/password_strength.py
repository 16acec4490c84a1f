# args: {"password": "Tr0ub4dor&3"}
import string


def password_strength(password: str) -> dict:
    """Rate a password."""
    classes = {
        "lower": any(c in string.ascii_lowercase for c in password),
        "upper": any(c in string.ascii_uppercase for c in password),
        "digit": any(c in string.digits for c in password),
        "symbol": any(c in string.punctuation for c in password),
    }
    score = sum(classes.values()) + (len(password) >= 12) + (len(password) >= 8)
    label = ["very weak", "weak", "fair", "good", "strong", "very strong", "excellent"][score]
    return {"score": score, "label": label, "missing": [k for k, v in classes.items() if not v]}
