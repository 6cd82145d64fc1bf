"""Each section's schema check as Python code made ahead of time, by `make setup`.

fastjsonschema turns a schema into a Python function: importing the library, making the
code and compiling it cost a command tens of milliseconds a section, more than checking
a file that changed. `python -m compiler.schemacode` writes that code once, a module per
section, into compiler/_schemas/ (not kept in git; made again by `make setup`). Each module
names the digest of the schema it was made from: content.py uses it only while the
schema is still that one, and otherwise compiles the schema as before.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

PACKAGE = "_schemas"
HERE = os.path.dirname(os.path.abspath(__file__))

# The made code raises the library's exception; this stands in for it, so that a check
# never imports the library (only "did it raise" is read, see content._section_check).
_THEIRS = "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
_OURS = '''

class JsonSchemaValueException(ValueError):
    """The value does not match the schema."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException
'''


def digest(schema) -> str:
    return hashlib.sha1(json.dumps(schema, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def module_text(schema) -> str | None:
    """The module for one section's schema; None where the library's code is not of the
    shape this expects (the schema is then compiled when it is needed)."""
    import fastjsonschema
    code = fastjsonschema.compile_to_code(schema)
    if code.count(_THEIRS) != 1:
        return None
    return (f'"""Made by `python -m compiler.schemacode` from a section\'s schema; do not edit."""\n'
            f"SCHEMA = {digest(schema)!r}\n" + code.replace(_THEIRS, _OURS))


def write(sections: dict, folder: str) -> list[str]:
    """Write a module per section (name -> schema) into `folder`; the names written."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "__init__.py"), "w", encoding="utf-8") as fh:
        fh.write('"""Schema checks made by `python -m compiler.schemacode`."""\n')
    done = []
    for name, schema in sorted(sections.items()):
        text = module_text(schema)
        if text is None or not name.isidentifier():
            continue
        with open(os.path.join(folder, f"{name}.py"), "w", encoding="utf-8") as fh:
            fh.write(text)
        done.append(name)
    return done


def main() -> None:
    from .content import section_schemas
    done = write(section_schemas(), os.path.join(HERE, PACKAGE))
    print(f"schema checks made for {len(done)} sections in compiler/{PACKAGE}/", file=sys.stderr)


if __name__ == "__main__":
    main()
