"""rulepress: board game rules as data.

One import package. The repository keeps the design's folders at its top; the distribution
maps them into this package (pyproject.toml, `package-dir`):

- `rulepress.compiler` (`compiler/`): YAML and effects → checked model → game.json;
- `rulepress.runtime` (`runtime/`): plays game.json; never imports the compiler;
- `rulepress.schemas` (`schemas/`): the JSON Schemas, shipped as package data;
- this folder: what sits above both (the command line, the scenario runner).
"""
from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("rulepress")
except _metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
