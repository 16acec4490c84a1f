# args: {"seed": 7, "questions": ["q1", "q2", "q3", "q4", "q5"], "count": 3}
import random


def random_seeded_quiz(seed: int, questions: list[str], count: int) -> dict:
    """A reproducible quiz."""
    rng = random.Random(seed)
    picked = rng.sample(questions, count)
    order = list(range(count))
    rng.shuffle(order)
    return {
        "picked": picked,
        "order": order,
        "bonus": rng.choice(questions),
        "roll": rng.randint(1, 6),
        "weights": rng.choices(["a", "b"], weights=[1, 3], k=4),
    }
