#!/usr/bin/env python3
"""Prints one summary of a test run from the surefire and failsafe reports that scripts/test.sh collected.

    scripts/suite-summary.py                          # target/suite-reports, as scripts/test.sh leaves it
    scripts/suite-summary.py .                        # the reports of the modules' target folders, as they are now
    scripts/suite-summary.py DIR --status N --json F  # also say the build failed; write the figures to F as JSON

Per pass and module: tests passed, failed and skipped; the ten slowest test classes; every failed test; every
inconclusive timing repeat (the INCONCLUSIVE-TIMING lines of target/inconclusive-timing.txt); and last a line
"N passed, N failed, N skipped".
"""
import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET

REPORT_DIRS = ("surefire-reports", "failsafe-reports")
INCONCLUSIVE_FILE = "inconclusive-timing.txt"


def module_of(root, folder):
    """The pass and module a report folder belongs to: its path below root, without target/."""
    relative = os.path.relpath(folder, root)
    parts = [part for part in relative.split(os.sep) if part not in ("target", ".")]
    return "/".join(parts) or "."


def report_folders(root):
    for folder, dirs, files in os.walk(root):
        # Reports collected earlier (target/suite-reports) are read only when asked for by name.
        dirs[:] = sorted(d for d in dirs if d not in ("suite-reports", ".git", "node_modules"))
        for name in REPORT_DIRS:
            if name in dirs:
                yield module_of(root, folder), os.path.join(folder, name)
        if INCONCLUSIVE_FILE in files:
            yield module_of(root, folder), os.path.join(folder, INCONCLUSIVE_FILE)


def read_suite(path):
    """One TEST-*.xml: its class, time and its test cases as (name, outcome, message)."""
    suite = ET.parse(path).getroot()
    cases = []
    for case in suite.iter("testcase"):
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                message = (child.get("message") or child.get("type") or "").strip().splitlines()
                message = message[0] if message else ""
                break
            if child.tag == "skipped":
                outcome = "skipped"
        cases.append((case.get("name"), outcome, message))
    return suite.get("name"), float(suite.get("time") or 0), cases


def collect(root):
    modules, classes, failed, inconclusive = {}, [], [], []
    for module, path in report_folders(root):
        if path.endswith(INCONCLUSIVE_FILE):
            with open(path, encoding="utf-8", errors="replace") as lines:
                inconclusive += [f"{module}: {line.strip()}" for line in lines if "INCONCLUSIVE-TIMING" in line]
            continue
        counts = modules.setdefault(module, {"passed": 0, "failed": 0, "skipped": 0, "seconds": 0.0})
        for name in sorted(os.listdir(path)):
            if not (name.startswith("TEST-") and name.endswith(".xml")):
                continue
            try:
                suite, seconds, cases = read_suite(os.path.join(path, name))
            except ET.ParseError as e:  # a fork killed while writing its report
                failed.append(f"{module} {name}: unreadable report ({e})")
                counts["failed"] += 1
                continue
            counts["seconds"] += seconds
            classes.append((seconds, module, suite))
            for case, outcome, message in cases:
                counts[outcome] += 1
                if outcome == "failed":
                    failed.append(f"{module} {suite}.{case}: {message}"[:300])
    return modules, classes, failed, inconclusive


def print_summary(root, modules, classes, failed, inconclusive, status):
    print(f"==> Test summary ({root})")
    print(f"{'pass/module':<44} {'passed':>7} {'failed':>7} {'skipped':>8} {'seconds':>8}")
    for module in sorted(modules):
        c = modules[module]
        print(f"{module:<44} {c['passed']:>7} {c['failed']:>7} {c['skipped']:>8} {c['seconds']:>8.1f}")
    print("Ten slowest test classes:")
    for seconds, module, suite in sorted(classes, reverse=True)[:10]:
        print(f"  {seconds:8.1f} s  {suite}  ({module})")
    print(f"Inconclusive timing repeats: {len(inconclusive) or 'none'}")
    for line in inconclusive:
        print(f"  {line}")
    if failed:
        print("Failed tests:")
        for line in failed:
            print(f"  {line}")
    if status:
        print(f"The build failed (exit code {status}); a failure outside the tests' reports is in the log above.")
    totals = {key: sum(c[key] for c in modules.values()) for key in ("passed", "failed", "skipped")}
    print(f"{totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default="target/suite-reports")
    parser.add_argument("--status", type=int, default=0, help="the build's exit code, reported when not 0")
    parser.add_argument("--json", help="also write the totals, failed tests and inconclusive repeats to this file")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        print(f"No test reports under {args.root}.")
        print("0 passed, 0 failed")
        return 0
    modules, classes, failed, inconclusive = collect(args.root)
    totals = print_summary(args.root, modules, classes, failed, inconclusive, args.status)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            summary = {**totals, "status": args.status, "failedTests": failed, "inconclusive": inconclusive}
            json.dump(summary, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
