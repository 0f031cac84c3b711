#!/usr/bin/env python3
"""Writes the compatibility matrix's results (from scripts/compat-matrix.sh) into docs/compatibility.md and
the README's table between its compat-matrix markers. Cells not run this time keep their last result.

  compat_table.py RESULTS.tsv COMMIT "3.5 4.0 4.1" "17 21 25"
"""
import datetime
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PAGE = os.path.join(ROOT, "docs", "compatibility.md")
README = os.path.join(ROOT, "README.md")
DETAIL = re.compile(r"^- Spring Boot (\S+) on JDK (\d+): (.*)$")


def last_results():
    """(boot, jdk) -> the detail line of the last run, from the page's list."""
    results = {}
    if os.path.exists(PAGE):
        for line in open(PAGE, encoding="utf-8"):
            match = DETAIL.match(line.rstrip("\n"))
            if match:
                results[(match.group(1), match.group(2))] = match.group(3)
    return results


def short(detail):
    """What a table cell says: passed, failed or not tested here."""
    if detail.startswith("tested: passed"):
        return "tested: passed"
    if detail.startswith("tested: failed"):
        return "tested: **failed**"
    if detail.startswith("not tested here"):
        return "not tested here"
    return detail


def table(results, boots, jdks):
    rows = ["| Spring Boot | " + " | ".join("JDK " + jdk for jdk in jdks) + " |",
            "|---|" + "---|" * len(jdks)]
    for boot in boots:
        cells = [short(results.get((boot, jdk), "not run yet")) for jdk in jdks]
        rows.append("| " + boot + " | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(tsv, commit, boots, jdks):
    results = last_results()
    ran = []
    for line in open(tsv, encoding="utf-8"):
        boot, jdk, detail = line.rstrip("\n").split("\t", 2)
        results[(boot, jdk)] = detail + " — run of %s, commit %s" % (datetime.date.today().isoformat(), commit)
        ran.append((boot, jdk))
    grid = table(results, boots, jdks)
    details = "\n".join("- Spring Boot %s on JDK %s: %s" % (boot, jdk, results[(boot, jdk)])
                        for boot in boots for jdk in jdks if (boot, jdk) in results)
    page = """# Compatibility

Which Spring Boot lines and JDKs distlock is tested on. `scripts/compat-matrix.sh` runs the tests of the
starter (`lock-spring-boot-starter`), the test support (`lock-test`) and the sample
(`samples/inventory-service`, with the README's snippets built into new projects) in each cell this machine
can run, and writes this page and the README's table; the README's test command runs Spring Boot 4.1 and 3.5
on JDK 17 only. Java 17 is the baseline: every module is compiled for it (`--release 17`).

%s

"Not tested here" means the machine that ran the matrix has no such JDK: it is neither known to work nor
known to fail. "Not run yet": no run of the script covered that cell yet (a run of some cells, e.g.
`--boot 4.0 --jdk 25`, keeps the other cells' last results). Each cell builds with the Spring Boot line's own dependency versions (profiles `boot35` and
`boot40` of the parent POM; 4.1 is the default), and installs into a local repository of its own.

## Last results

%s
""" % (grid, details)
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(page)

    readme = open(README, encoding="utf-8").read()
    block = re.compile(r"(<!-- compat-matrix:start -->\n).*?(<!-- compat-matrix:end -->)", re.S)
    if not block.search(readme):
        raise SystemExit("README has no <!-- compat-matrix:start --> ... <!-- compat-matrix:end --> block")
    readme = block.sub(lambda m: m.group(1) + grid + "\n" + m.group(2), readme)
    with open(README, "w", encoding="utf-8") as f:
        f.write(readme)
    print(grid)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split())
