"""fmacro.crossval: seeded splitters and the cross-validation runner."""

__all__: list[str] = []
