#!/usr/bin/env python3
"""Runs the test suite's jobs side by side, a few at a time, in the order given, and says how each ended.

    scripts/suite-jobs.py --slots 4 --logs target/suite-logs < jobs

Each line of the input is one job: a name, a tab, and a shell command (run from the current folder). Lines
that are empty or start with # are skipped. The first jobs start first, so list the longest first. A job's
output goes to <logs>/<name>.log; a line is printed when a job starts and when it ends, with its time and
the CPU time its processes used (user and system, children included). When
every job has ended, the last lines of each failed job's log are printed. The exit code is 0 when every job
passed, 1 otherwise: a failed job never stops the others (they are independent; see scripts/test.sh).
"""
import argparse
import os
import subprocess
import sys
import time

TAIL_LINES = 120


def read_jobs(stream):
    jobs = []
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, command = line.partition("\t")
        if not command.strip():
            sys.exit(f"suite-jobs: no command for job '{name}' (a name, a tab, then the command)")
        jobs.append((name.strip(), command.strip()))
    return jobs


def clock(started):
    elapsed = int(time.monotonic() - started)
    return f"{elapsed // 60:02d}:{elapsed % 60:02d}"


def tail(path, lines):
    with open(path, errors="replace") as log:
        return log.readlines()[-lines:]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=4, help="jobs that run at once")
    parser.add_argument("--logs", default="target/suite-logs", help="folder of the jobs' logs")
    args = parser.parse_args()

    waiting = read_jobs(sys.stdin)
    os.makedirs(args.logs, exist_ok=True)
    started = time.monotonic()
    running = {}  # process -> (name, log path, start)
    failed = []

    while waiting or running:
        while waiting and len(running) < args.slots:
            name, command = waiting.pop(0)
            path = os.path.join(args.logs, name.replace("/", "-") + ".log")
            log = open(path, "w")
            process = subprocess.Popen(["bash", "-c", command], stdout=log, stderr=subprocess.STDOUT)
            log.close()
            running[process] = (name, path, time.monotonic())
            print(f"==> [{clock(started)}] {name}: started ({command})", flush=True)
        time.sleep(0.5)
        for process in list(running):
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid == 0:
                continue
            process.returncode = os.waitstatus_to_exitcode(status)
            name, path, start = running.pop(process)
            seconds = time.monotonic() - start
            cpu = usage.ru_utime + usage.ru_stime
            if process.returncode == 0:
                print(f"==> [{clock(started)}] {name}: passed in {seconds:.0f} s ({cpu:.0f} s CPU)", flush=True)
            else:
                print(f"==> [{clock(started)}] {name}: FAILED (exit {process.returncode}) in {seconds:.0f} s"
                      f" ({cpu:.0f} s CPU); log: {path}", flush=True)
                failed.append((name, path))

    for name, path in failed:
        print(f"\n==> the last {TAIL_LINES} lines of {name} ({path})")
        sys.stdout.writelines(tail(path, TAIL_LINES))
    if failed:
        print(f"\n==> failed jobs: {', '.join(name for name, _ in failed)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
