"""rulepress: board game rules as data.

One import package. The repository keeps the design's folders at its top; the distribution
maps them into this package (pyproject.toml, `package-dir`):

- `rulepress.compiler` (`compiler/`): YAML and effects → checked model → game.json;
- `rulepress.runtime` (`runtime/`): plays game.json; never imports the compiler;
- `rulepress.schemas` (`schemas/`): the JSON Schemas, shipped as package data;
- this folder: what sits above both (the command line, the scenario runner).
"""


def __getattr__(name: str):
    """`rulepress.__version__`, read from the installed metadata when asked for: importing
    importlib.metadata costs every command tens of milliseconds."""
    if name != "__version__":
        raise AttributeError(f"module 'rulepress' has no attribute {name!r}")
    from importlib import metadata
    try:
        return metadata.version("rulepress")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"
