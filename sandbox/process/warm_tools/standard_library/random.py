import random


def warm_up() -> str:
    seeded = random.Random(1)
    cards = [1, 2]
    seeded.shuffle(cards)
    return repr(
        [
            seeded.random(),
            seeded.choice("ab"),
            seeded.sample(range(10), 3),
            random.Random("seed").randint(1, 6),
            seeded.uniform(0, 1),
            cards,
            random.random() < 1,
            random.choice([1]),
        ]
    )
