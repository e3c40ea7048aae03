#!/usr/bin/env python3
"""Samples /proc beside a benchmark run, to see which process pays for a phase.

Every second it writes one CSV row: the machine's user, system, iowait and steal time (% of all
cores), dirty and writeback page cache (MiB), pages written out (KiB/s), page faults (/s), and the
CPU of each process group (% of one core): the dev stack's broker (KafkaServerMain), PostgreSQL
(every postgres process), a relay (RelayMain), Kafka Connect (ConnectStandalone), the bench's own
JVM (BenchMain on its command line), Maven, and any other JVM. With --threads it also writes, every
2 s, the busiest threads of one group's JVM (the broker's unless --thread-group names another),
the JIT's compiler threads summed as "JIT", to a second file. Linux only; stop it with Ctrl-C or
kill. Used for docs/benchmarks-history.md's sessions 30 (B2's first round, the broker's cost by
linger) and 31 (the relay's threads at 1,000 events/s):

    python3 bench/scripts/proc-sampler.py /tmp/b2-proc.csv --threads /tmp/b2-broker-threads.txt &
    python3 bench/scripts/proc-sampler.py /tmp/proc.csv --threads /tmp/relay.txt --thread-group relay &
    ./mvnw -B -o -pl bench -Pbenchmark verify -DskipTests ...
"""

import argparse
import os
import re
import time

HZ = os.sysconf("SC_CLK_TCK")
GROUPS = ["broker", "pg", "relay", "connect", "bench", "maven", "java-other"]
# First match wins: the bench's JVM is Maven's when the bench runs in it.
JAVA_GROUPS = [
    ("KafkaServerMain", "broker"),
    ("ConnectStandalone", "connect"),
    ("RelayMain", "relay"),
    ("BenchMain", "bench"),
    ("plexus-classworlds", "maven"),
]


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def group(pid):
    line = command_line(pid)
    if not line:
        return None
    program = line.split(" ")[0]
    if "postgres" in program:
        return "pg"
    if not program.endswith("java"):
        return None
    for key, name in JAVA_GROUPS:
        if key in line:
            return name
    return "java-other"


def read(path):
    """A /proc file's text, or None when its process or thread has gone."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def stat_ticks(text):
    """User plus system ticks of a /proc stat file's text."""
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])


def ticks(stat_path):
    """User plus system ticks of a /proc stat file, or None when it has gone."""
    text = read(stat_path)
    return None if text is None else stat_ticks(text)


def process_ticks():
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            t = ticks(f"/proc/{entry}/stat")
            if t is not None:
                out[int(entry)] = t
    return out


def vmstat():
    wanted = ("nr_dirty", "nr_writeback", "pgpgout", "pgfault")
    with open("/proc/vmstat") as f:
        return {k: int(v) for k, v in (line.split() for line in f) if k in wanted}


def machine():
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


def thread_ticks(pid):
    out = {}
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in threads:
        text = read(f"/proc/{pid}/task/{tid}/stat")
        if text is None:
            continue
        name = re.sub(r"\d+", "N", text[text.index("(") + 1 : text.rindex(")")])
        if "CompilerThre" in name:
            name = "JIT"
        out[name] = out.get(name, 0) + stat_ticks(text)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="file to write the per-second rows to")
    parser.add_argument("--threads", help="file to write the busiest threads of one JVM to")
    parser.add_argument(
        "--thread-group",
        default="broker",
        choices=[g for _, g in JAVA_GROUPS],
        help="whose threads --threads samples (default broker)",
    )
    args = parser.parse_args()

    groups = {}
    before, vm_before, cpu_before, at = process_ticks(), vmstat(), machine(), time.time()
    sampled_pid, sampled_threads, tick = None, {}, 0
    with open(args.csv, "w") as out, open(args.threads or os.devnull, "w") as threads_out:
        out.write(
            "time,usr,sys,iowait,steal,dirty_mb,writeback_mb,pgout_kb_s,pgfault_s,"
            + ",".join(GROUPS)
            + "\n"
        )
        while True:
            time.sleep(1)
            now, vm_now, cpu_now, t = process_ticks(), vmstat(), machine(), time.time()
            elapsed = t - at
            shares = dict.fromkeys(GROUPS, 0.0)
            # Only live pids are kept, so a long run stays small and a reused pid is grouped anew.
            groups = {pid: g for pid, g in groups.items() if pid in now}
            for pid, total in now.items():
                if pid not in groups:
                    groups[pid] = group(pid)
                if groups[pid] is not None and pid in before:
                    shares[groups[pid]] += 100.0 * (total - before[pid]) / HZ / elapsed
            all_ticks = sum(cpu_now) - sum(cpu_before) or 1

            def pct(*columns):
                return sum(100.0 * (cpu_now[c] - cpu_before[c]) / all_ticks for c in columns)

            row = [
                time.strftime("%H:%M:%S"),
                pct(0, 1),  # user, nice
                pct(2, 5, 6),  # system, irq, softirq
                pct(4),
                pct(7),
                vm_now["nr_dirty"] * 4 / 1024,
                vm_now["nr_writeback"] * 4 / 1024,
                (vm_now["pgpgout"] - vm_before["pgpgout"]) / elapsed,
                (vm_now["pgfault"] - vm_before["pgfault"]) / elapsed,
            ] + [shares[g] for g in GROUPS]
            out.write(",".join(r if isinstance(r, str) else f"{r:.1f}" for r in row) + "\n")
            out.flush()
            tick += 1
            if args.threads and tick % 2 == 0:
                sampled = next(
                    (p for p, g in groups.items() if g == args.thread_group and p in now), None
                )
                if sampled is None:
                    sampled_threads = {}
                else:
                    if sampled != sampled_pid:  # a new process: its threads start from here
                        sampled_pid, sampled_threads = sampled, {}
                    current = thread_ticks(sampled)
                    deltas = {
                        name: 100.0 * (v - sampled_threads.get(name, v)) / HZ / 2
                        for name, v in current.items()
                    }
                    busiest = sorted(deltas.items(), key=lambda kv: -kv[1])[:8]
                    threads_out.write(
                        time.strftime("%H:%M:%S")
                        + f" {args.thread_group} pid={sampled} total={sum(deltas.values()):.0f}% "
                        + " ".join(f"{n}={v:.0f}" for n, v in busiest if v > 0)
                        + "\n"
                    )
                    threads_out.flush()
                    sampled_threads = current
            before, vm_before, cpu_before, at = now, vm_now, cpu_now, t


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
