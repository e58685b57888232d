#!/usr/bin/env python3
"""Validates a T4 results file against the T4 JSON Schema with a real validator (Debian's
python3-jsonschema, draft 2020-12). Usage: validate_t4.py SCHEMA.json RESULTS.json
Prints every error with its path in the document and the count; exits 1 on any error."""
import json
import sys

import jsonschema


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    with open(sys.argv[2]) as f:
        doc = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:50]:
        print("/".join(map(str, e.absolute_path)) or "(document)", ":", e.message)
    print(f"{len(errors)} errors in {len(doc.get('results', []))} results of {sys.argv[2]}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
