# args: {"seed": 2026, "players": ["ana", "bo", "cy", "di", "ed"]}
import random


def random_seeded_simulation(seed: int, players: list[str]) -> dict:
    """Reproducible draws from a seeded generator."""
    rng = random.Random(seed)
    deck = [f"{rank}{suit}" for suit in "SHDC" for rank in "A23456789TJQK"]
    rng.shuffle(deck)
    teams = rng.sample(players, k=4)
    random.seed(seed)
    module_level = [random.randint(1, 6) for _ in range(5)]
    state = rng.getstate()
    a = rng.random()
    rng.setstate(state)
    b = rng.random()
    return {
        "hand": deck[:5],
        "teams": [teams[:2], teams[2:]],
        "dice": module_level,
        "choice": rng.choice(players),
        "choices": rng.choices(players, weights=[5, 1, 1, 1, 10], k=6),
        "uniform": round(rng.uniform(10, 20), 6),
        "gauss": round(rng.gauss(0, 1), 6),
        "randrange": [rng.randrange(0, 100, 7) for _ in range(3)],
        "bits": rng.getrandbits(16),
        "replay": a == b,
        "triangular": round(rng.triangular(0, 10, 3), 6),
        "bytes": rng.randbytes(4).hex(),
    }
