# args: {"name": "  Widget ", "price": 19.999, "stock": 3}
class Typed:
    def __init__(self, kind, default=None):
        self.kind = kind
        self.default = default

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.name, self.default)

    def __set__(self, obj, value):
        if not isinstance(value, self.kind):
            raise TypeError(f"{self.name[1:]} must be {self.kind.__name__}, got {type(value).__name__}")
        setattr(obj, self.name, value)


class Product:
    name = Typed(str, "")
    price = Typed(float, 0.0)
    stock = Typed(int, 0)

    def __init__(self, name, price, stock):
        self.name = name.strip()
        self.price = round(price, 2)
        self.stock = stock


def class_descriptor_fields(name: str, price: float, stock: int) -> dict:
    """Validated attributes with a descriptor class."""
    p = Product(name, price, stock)
    errors = []
    try:
        p.stock = "many"
    except TypeError as error:
        errors.append(str(error))
    return {
        "name": p.name,
        "price": p.price,
        "stock": p.stock,
        "errors": errors,
        "descriptor": type(Product.price).__name__,
    }
