#!/usr/bin/env python3
"""docs/cli.md's Options section is hone's own --help output: this writes it (--write) or checks
that it is current (the default; exit 1 with the first difference), so the reference cannot
drift from the binary.
    scripts/cli_options_doc.py HONE_BINARY docs/cli.md [--write]
"""
import difflib
import subprocess
import sys

HEADING = "## Options\n"
INTRO = ("The output of `hone --help` and of each `hone COMMAND --help` (this version's; "
         "`scripts/cli_options_doc.py` writes it, and a test checks it).\n")


def help_text(hone, *args):
    out = subprocess.run([hone, *args, "--help"], capture_output=True, text=True, check=True)
    return out.stdout.rstrip() + "\n"


def section(hone):
    top = help_text(hone)
    commands = []
    lines = top.splitlines()
    if "Subcommands:" in lines:
        for line in lines[lines.index("Subcommands:") + 1:]:
            if line.startswith("  ") and line.strip():
                commands.append(line.split()[0])
    parts = [HEADING, "\n", INTRO, "\n```\n", top, "```\n"]
    for c in commands:
        parts += ["\n### hone ", c, "\n\n```\n", help_text(hone, c), "```\n"]
    return "".join(parts)


def main():
    hone, doc = sys.argv[1], sys.argv[2]
    text = open(doc).read()
    at = text.find(HEADING)
    if at < 0:
        sys.exit(f"{doc}: no '{HEADING.strip()}' heading")
    # The section runs to the end of the file (it is the last one).
    want = text[:at] + section(hone)
    if "--write" in sys.argv[3:]:
        open(doc, "w").write(want)
        return
    if want != text:
        diff = difflib.unified_diff(text.splitlines(), want.splitlines(), "docs", "hone --help",
                                    lineterm="", n=1)
        print("\n".join(list(diff)[:40]))
        sys.exit(f"{doc}: the Options section is not hone's --help output; run "
                 f"scripts/cli_options_doc.py {hone} {doc} --write")


if __name__ == "__main__":
    main()
