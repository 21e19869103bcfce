#!/usr/bin/env python3
"""The layering of tcec's sources, checked on their #include "..." lines.

The compiler's stages run one way: frontend -> ir -> costmodel -> codegen, with grammar under
the frontend and tools/ on top. As libraries, ir (the program the stages pass on) is the base,
diag (the diagnostics engine) sits on it, frontend and costmodel use both, codegen uses the cost
model too, and the tools use them all. runtime/ (the library generated programs link) is
independent of the compiler. Each stage has one public header (two for the cost model), which
is all another folder may include of it; the compiler reaches the runtime only through its
MPI-free contract, runtime/spec/.

Rules (each violation is printed as FILE:LINE: RULE: explanation):
  downstream        a folder includes a header of a stage it may not depend on (a stage further
                    down the pipeline, or a tool);
  private           a folder includes a header of another stage other than its public header(s);
  runtime-compiler  the runtime includes a compiler header (ir, diag, frontend, grammar,
                    costmodel, codegen, tools);
  compiler-runtime  the compiler (its stages and tools/tcec) includes a runtime header outside
                    runtime/spec/.

An include is resolved from the repository root when its first component is a top-level folder
(e.g. "costmodel/costmodel.h"), else relative to the including file when that file exists
(e.g. "trace.h" beside tools/tcec/trace.cpp); any other include (a generated header such as
TceParser.h) is not a source of the tree and is skipped.

Usage: check_layering.py ROOT     check the tree at ROOT; exit 1 on any violation
       check_layering.py --self-test
                                  check the fixture trees beside this script: good/ must pass,
                                  bad/ must fail with exactly the violations it expects.
Plain Python 3 standard library.
"""

import os
import re
import sys

# The folders scanned and the folder each may depend on (include the public headers of).
LAYERS = {
    "ir": [],
    "diag": ["ir"],
    "frontend": ["ir", "diag", "grammar"],
    "costmodel": ["ir", "diag"],
    "codegen": ["ir", "diag", "costmodel"],
    "tools": ["ir", "diag", "frontend", "costmodel", "codegen"],
    "runtime": [],
}
COMPILER = {"ir", "diag", "grammar", "frontend", "costmodel", "codegen"}
TOP_FOLDERS = COMPILER | {"runtime", "tools"}

# Each stage's public header(s): all that another folder may include of it. grammar's headers
# are generated (TceParser.h, …) and included by their bare names.
PUBLIC = {
    "ir": {"ir/ir.h"},
    "diag": {"diag/diag.h"},
    "frontend": {"frontend/frontend.h"},
    "costmodel": {"costmodel/costmodel.h", "costmodel/schedules.h"},
    "codegen": {"codegen/codegen.h"},
    "runtime": {"runtime/tcert.h"},
}

# The runtime's contract with the compiler: an MPI-free library of specs and their checks.
RUNTIME_CONTRACT = "runtime/spec/"

# Tools that are runtime programs (they link libtcert and measure or drive its internals): any
# runtime header. tools/tcec is the compiler's driver and keeps to the contract.
RUNTIME_TOOLS = {"tools/calibrate", "tools/ccsd"}
# Headers shared by every tool.
TOOLS_SHARED = {"tools/diagnostics.h", "tools/diagnostics.def"}

SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def owner(path):
    """The folder a repository path belongs to: its stage, or tools/<tool> for a tool."""
    parts = path.split("/")
    if parts[0] == "tools" and len(parts) > 2:
        return "tools/" + parts[1]
    return parts[0]


def stage(folder):
    return "tools" if folder.startswith("tools") else folder


def resolve(root, including, name):
    """The repository path `name` names from `including`, or None when it is not in the tree."""
    first = name.split("/")[0]
    if first in TOP_FOLDERS:
        return os.path.normpath(name)
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if not beside.startswith("..") and os.path.isfile(os.path.join(root, beside)):
        return beside
    return None


def rule_for(source, target):
    """(rule, explanation) when `source` may not include `target`, else None (repository paths)."""
    src, dst = owner(source), owner(target)
    src_stage, dst_stage = stage(src), stage(dst)
    if src == dst or (src_stage == "tools" and target in TOOLS_SHARED):
        return None
    if src_stage == dst_stage and dst_stage != "tools":
        return None
    if src_stage == "runtime":
        return ("runtime-compiler", f"the runtime includes no compiler header, but this includes {target}")
    if dst_stage == "runtime":
        if src in RUNTIME_TOOLS:
            return None
        if target.startswith(RUNTIME_CONTRACT):
            return None
        return ("compiler-runtime",
                f"the compiler may include only {RUNTIME_CONTRACT} (the runtime's MPI-free contract), not {target}")
    if dst_stage == "tools":
        why = "one tool's files are its own" if src_stage == "tools" else "tools/ sits on top of the stages"
        return ("downstream", f"{src} may not include {target}: {why}")
    if dst_stage not in LAYERS.get(src_stage, []):
        return ("downstream",
                f"{src_stage} may not include {target}: {src_stage} does not depend on {dst_stage} "
                f"(stages run one way: frontend -> ir -> costmodel -> codegen, tools on top)")
    public = PUBLIC.get(dst_stage)
    if public is not None and target not in public:
        return ("private",
                f"{target} is private to {dst_stage}; include its public header "
                f"{' or '.join(sorted(public))}")
    return None


def check(root):
    """Every violation in the tree at `root`: (path, line, rule, explanation), sorted."""
    found = []
    for top in sorted(LAYERS):
        base = os.path.join(root, top)
        for directory, subdirs, files in os.walk(base):
            subdirs.sort()
            for file in sorted(files):
                if not file.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(directory, file), root).replace(os.sep, "/")
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
                    for number, line in enumerate(text, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = resolve(root, path, match.group(1))
                        if target is None:
                            continue
                        broken = rule_for(path, target.replace(os.sep, "/"))
                        if broken:
                            found.append((path, number) + broken)
    return found


def report(violations):
    for path, line, rule, why in violations:
        print(f"{path}:{line}: {rule}: {why}")


# What the fixture bad/ must produce: (path, line, rule), one per file of it.
EXPECTED_BAD = [
    ("codegen/emit_private.cpp", 2, "private"),
    ("costmodel/upward.cpp", 2, "downstream"),
    ("costmodel/uses_comm.cpp", 2, "compiler-runtime"),
    ("frontend/relative.cpp", 2, "private"),
    ("runtime/uses_ir.cpp", 2, "runtime-compiler"),
    ("tools/ccsd/uses_tcec.cpp", 2, "downstream"),
]


def self_test(here):
    good = check(os.path.join(here, "fixtures", "good"))
    bad = check(os.path.join(here, "fixtures", "bad"))
    ok = True
    if good:
        print("self-test: the good fixture has violations:")
        report(good)
        ok = False
    got = [(path, line, rule) for path, line, rule, _ in bad]
    if got != EXPECTED_BAD:
        print("self-test: the bad fixture gives")
        report(bad)
        print(f"self-test: expected {EXPECTED_BAD}")
        ok = False
    if ok:
        print(f"self-test: the good fixture passes; the bad fixture fails with its {len(bad)} violations")
    return 0 if ok else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) != 2:
        print("usage: check_layering.py ROOT | --self-test", file=sys.stderr)
        return 2
    violations = check(argv[1])
    report(violations)
    if violations:
        print(f"check_layering: {len(violations)} include(s) break the layering")
        return 1
    print("check_layering: every #include keeps the layering")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
