#!/usr/bin/env python3
"""Whose code a JVM's CPU samples are in: an async-profiler profile split by library.

Reads async-profiler's collapsed output recorded with its `threads` option (each line a stack,
its first frame the thread's name, then the sample count) and charges every sample to the owner
of the innermost frame that belongs to a known library: Herald, Debezium, Kafka's clients and
Connect API, the PostgreSQL driver, lz4, Jackson. JDK and native frames are charged to the library
that called them (a HashMap lookup inside Debezium's decoder is Debezium's); samples with no
library frame at all are "JVM or kernel". The JIT's compiler threads and the VM thread (the
serial collector's work) are their own owners, since they work for every library at once.

Used for docs/benchmarks-history.md's session 38 (how much of a relay drain's CPU is Herald's own
code), on a profile taken as in its sessions 26 and 32:

    ./mvnw -B -o -pl bench -Pbenchmark verify -DskipTests \\
      -Dbench.main=io.herald.bench.relay.RelayDrainBenchmark "-Dbench.options=... \\
      -Dherald.benchmark.jvm=-agentpath:<dir>/libasyncProfiler.so=start,event=cpu,interval=1ms,threads,collapsed,file=<dir>/p-%p.txt"
    python3 bench/scripts/profile-owners.py <dir>/p-<pid>.txt --threads 'debezium-postgres|pool-1-thread|kafka-producer|VM Thread'

The profile spans the process's whole life; pick the threads that work per event (as above) to
leave start-up (the main thread) out.
"""

import argparse
import collections
import re
import sys

# The innermost frame with one of these prefixes names the owner; order does not matter, the
# prefixes are disjoint.
OWNERS = [
    ("io/herald/", "Herald"),
    ("io/debezium/", "Debezium"),
    ("org/apache/kafka/", "Kafka clients and Connect API"),
    ("org/postgresql/", "PostgreSQL driver"),
    ("net/jpountz/", "lz4 (Kafka's compression)"),
    ("com/fasterxml/", "Jackson"),
    ("io/opentelemetry/", "OpenTelemetry"),
]
COMPILER_THREAD = re.compile(r"^\[C[12] CompilerThre")
VM_THREAD = re.compile(r"^\[VM Thread")


def owner_of(frames):
    for frame in reversed(frames):
        for prefix, owner in OWNERS:
            if frame.startswith(prefix):
                return owner
    return "JVM or kernel"


def thread_name(frame):
    """The thread's name without its id and pool numbers, so a pool's threads add up."""
    return re.sub(r"-\d+", "-N", re.sub(r" tid=\d+", "", frame)).strip("[]")


def main():
    parser = argparse.ArgumentParser(
        description="Splits an async-profiler collapsed profile (recorded with `threads`) by the "
        "library whose code each sample is in.")
    parser.add_argument("profile", help="collapsed output of async-profiler, recorded with threads")
    parser.add_argument("--threads", default=None,
                        help="a regular expression: count only threads whose name it finds "
                             "(default: every thread)")
    args = parser.parse_args()
    selected = re.compile(args.threads) if args.threads else None

    by_owner = collections.Counter()
    by_thread = collections.Counter()
    total = 0
    with open(args.profile, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                sys.exit(f"{args.profile}:{number}: not a collapsed stack with a count")
            frames = stack.split(";")
            if not frames[0].startswith("["):
                sys.exit(f"{args.profile}:{number}: no thread frame; record with the `threads` option")
            if selected and not selected.search(frames[0]):
                continue
            samples = int(count)
            total += samples
            by_thread[thread_name(frames[0])] += samples
            if COMPILER_THREAD.match(frames[0]):
                by_owner["the JIT's compiler threads"] += samples
            elif VM_THREAD.match(frames[0]):
                by_owner["VM thread (the collector)"] += samples
            else:
                by_owner[owner_of(frames[1:])] += samples
    if total == 0:
        sys.exit("no samples in the threads selected")

    print(f"{total} samples")
    print("by thread:")
    for name, samples in by_thread.most_common(12):
        print(f"  {samples:8d} {100 * samples / total:5.1f} %  {name}")
    print("by owner:")
    for owner, samples in by_owner.most_common():
        print(f"  {samples:8d} {100 * samples / total:5.1f} %  {owner}")


if __name__ == "__main__":
    main()
