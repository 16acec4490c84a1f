# args: {"format": "csv", "rows": [[1, "a"], [2, "b"]]}
class Exporter:
    registry = {}

    def __init_subclass__(cls, name=None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.registry[name or cls.__name__.lower()] = cls

    def export(self, rows):
        raise NotImplementedError


class CsvExporter(Exporter, name="csv"):
    def export(self, rows):
        return "\n".join(",".join(map(str, r)) for r in rows)


class TsvExporter(Exporter, name="tsv"):
    def export(self, rows):
        return "\n".join("\t".join(map(str, r)) for r in rows)


def plugin_registry(format: str, rows: list) -> dict:
    """Export rows with a registered exporter."""
    exporter = Exporter.registry[format]()
    return {"formats": sorted(Exporter.registry), "output": exporter.export(rows)}
