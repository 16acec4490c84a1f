# args: {"coins": [25, 25, 10, 5], "item": "chips"}
class VendingMachine:
    PRICES = {"chips": 50, "soda": 75}

    def __init__(self):
        self._credit = 0
        self._history = []

    def insert(self, coin):
        if coin not in (5, 10, 25):
            raise ValueError(f"rejected coin {coin}")
        self._credit += coin
        self._history.append(coin)

    def _make_change(self, amount):
        change = []
        for coin in (25, 10, 5):
            while amount >= coin:
                change.append(coin)
                amount -= coin
        return change

    def buy(self, item):
        price = self.PRICES[item]
        if self._credit < price:
            return None, []
        change = self._make_change(self._credit - price)
        self._credit = 0
        return item, change


def vending_machine(coins: list[int], item: str) -> dict:
    """Buy from a vending machine."""
    machine = VendingMachine()
    for coin in coins:
        machine.insert(coin)
    credit = machine._credit
    got, change = machine.buy(item)
    return {"credit": credit, "item": got, "change": change, "history": machine._history}
