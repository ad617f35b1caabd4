#!/usr/bin/env python3
"""Turns the RESULT lines of scripts/bench-relay.sh into docs/BENCHMARKS.md (relay section)."""
import argparse
import os
import platform
import re


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
            mem = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores (nproc), {model}{mem}, Linux {platform.release()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("out")
    ap.add_argument("--date", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--nofile", default="?")
    ap.add_argument("--load", default="")
    ap.add_argument("--notes", default="")
    ap.add_argument("--users", default="50")
    ap.add_argument("--rate", default="5000")
    ap.add_argument("--rate-seconds", default="5")
    a = ap.parse_args()

    r = {}
    lines = []
    with open(a.log) as f:
        for line in f:
            m = re.match(r"RESULT (\S+?)=(\S*)", line)
            if m:
                r[m.group(1)] = m.group(2)
            elif line.strip() and not line.startswith("RESULT"):
                lines.append(line.rstrip())

    def num(key):
        try:
            return float(r[key])
        except (KeyError, ValueError):
            return None

    def fmt(v, digits=0):
        return "—" if v is None else (f"{v:,.{digits}f}")

    def ratio(a_, b_):
        return None if a_ is None or b_ in (None, 0) else a_ / b_

    systems = [("wots_sqlite", "wots-relay SQLite"), ("wots_pg", "wots-relay PostgreSQL"),
               ("prosody_file", "Prosody file store"), ("prosody_sql", "Prosody SQLite")]
    out = []
    # Keep the other benchmarks' sections that precede this one; only the relay section is rewritten.
    heading = "## Relay side by side with Prosody (issue 6)"
    previous = open(a.out).read() if os.path.exists(a.out) else ""
    kept = previous.split(heading)[0].rstrip() if heading in previous else "# Benchmarks"
    out.append(kept + "\n")
    out.append(heading + "\n")
    out.append(f"- Date: {a.date}")
    out.append(f"- Machine: {machine()}; `ulimit -n` {a.nofile}")
    out.append(f"- Command: `{a.command}`")
    if a.load:
        out.append(f"- Load average (1/5/15 min) at start / end of the run: {a.load} — other work on the box competes "
                   "for the same 2 cores when this is above ~1")
    out.append(f"- Load: {a.users} senders and {a.users} recipients (sender i → recipient i) on loopback; Wots envelopes "
               f"genuinely sealed (RSA-OAEP + AES-256-GCM + RSA-PSS) before timing, "
               f"{r.get('wots_sqlite.envelope_json_bytes', r.get('wots_pg.envelope_json_bytes', '?'))} bytes of JSON each; "
               "Prosody bodies ~1.1 KiB of base64 text. Wots client: relay-bench (Swift, AsyncHTTPClient for POST, "
               "HummingbirdWSClient for the stream, HdrHistogram). Prosody client: slixmpp, one Python process.")
    out.append("- Server CPU (cores busy over the shape, from /proc/PID/stat) is beside each figure; the load generator "
               "shares the same 2 cores.\n")

    head = "| shape | " + " | ".join(n for _, n in systems) + " |"
    out.append(head)
    out.append("|" + " --- |" * (len(systems) + 1))

    def cores(label, shape):
        v = r.get(f"{label}.{shape}_relay_cores") or r.get(f"{label}.{shape}_server_cores")
        return f" ({v} cores)" if v else ""

    def row(title, key, shape, digits=0):
        cells = []
        for label, _ in systems:
            v = num(f"{label}.{key}")
            n = r.get(f"{label}.{shape}_msgs") or r.get(f"{label}.rate_delivered")
            extra = f", n={n}" if n and shape else ""
            cells.append(fmt(v, digits) + (cores(label, shape) if shape else "") + (extra if v is not None else ""))
        out.append(f"| {title} | " + " | ".join(cells) + " |")

    row("1. durable store, msg/s (202s only / stored)", "store_rate", "store")
    row("2. drain, msg/s", "drain_rate", "drain")
    row("3. online at saturation, msg/s delivered", "online_rate", "online")
    row(f"3. offered {a.rate} msg/s: achieved send rate", "rate_achieved", "rate")
    for p, k in [("p50", "latency_p50_ms"), ("p99", "latency_p99_ms"), ("p99.9", "latency_p999_ms"),
                 ("max", "latency_max_ms")]:
        cells = [fmt(num(f"{label}.{k}"), 2) for label, _ in systems]
        out.append(f"| 3. send-to-delivery latency {p}, ms | " + " | ".join(cells) + " |")
    cells = []
    for label, _ in systems:
        d, e = r.get(f"{label}.rate_delivered"), r.get(f"{label}.rate_expected")
        cells.append(f"{d} of {e}" if d else "—")
    out.append("| 3. delivered at the offered rate | " + " | ".join(cells) + " |")

    out.append("\n### Ratios and goals\n")
    out.append("| goal | wots SQLite | wots PostgreSQL | met? |")
    out.append("| --- | --- | --- | --- |")

    def goal(title, key, ref, target):
        vals = []
        met = []
        for label in ("wots_sqlite", "wots_pg"):
            x = ratio(num(f"{label}.{key}"), num(f"{ref}.{key}"))
            vals.append("—" if x is None else f"{x:.1f}×")
            met.append(None if x is None else x >= target)
        verdict = ", ".join(("SQLite " if i == 0 else "PostgreSQL ") + ("—" if m is None else ("met" if m else "MISSED"))
                            for i, m in enumerate(met))
        out.append(f"| {title} | {vals[0]} | {vals[1]} | {verdict} |")

    goal("durable store ≥ 10× Prosody file store", "store_rate", "prosody_file", 10)
    goal("durable store ≥ 50× Prosody SQLite", "store_rate", "prosody_sql", 50)
    goal("drain ≥ 5× Prosody file store", "drain_rate", "prosody_file", 5)
    goal("drain ≥ 5× Prosody SQLite", "drain_rate", "prosody_sql", 5)
    goal("online saturation ≥ 3× Prosody file store", "online_rate", "prosody_file", 3)
    goal("online saturation ≥ 3× Prosody SQLite", "online_rate", "prosody_sql", 3)
    cells, met = [], []
    for label in ("wots_sqlite", "wots_pg"):
        p99 = num(f"{label}.latency_p99_ms")
        cells.append(fmt(p99, 2) + " ms")
        met.append(None if p99 is None else p99 <= 5)
    out.append(f"| p99 ≤ 5 ms at {a.rate} msg/s offered | {cells[0]} | {cells[1]} | "
               + ", ".join(("SQLite " if i == 0 else "PostgreSQL ") + ("—" if m is None else ("met" if m else "MISSED"))
                           for i, m in enumerate(met)) + " |")

    out.append("\n### Idle connection ceiling (wots-relay on SQLite)\n")
    steps = sorted({int(m.group(1)) for k in r for m in [re.match(r"wots_conn\.conn_(\d+)_rss_kib", k)] if m})
    if steps:
        out.append("| open authenticated WebSockets | relay RSS (VmRSS) | KiB per connection above the 1-connection baseline |")
        out.append("| --- | --- | --- |")
        for s in steps:
            rss = num(f"wots_conn.conn_{s}_rss_kib")
            per = num(f"wots_conn.conn_{s}_kib_per_conn")
            out.append(f"| {s:,} | {fmt(rss / 1024 if rss else None, 1)} MiB | {fmt(per, 1)} |")
        top = r.get("wots_conn.conn_reached", "?")
        out.append(f"\nReached {top} connections; a message sent at the top was delivered over a WebSocket: "
                   f"{r.get('wots_conn.conn_probe_delivered', '?')} ({r.get('wots_conn.conn_probe_ms', '?')} ms "
                   "from POST to arrival). Goal: 20,000 idle connections at ≤ 30 KiB each.")
        if "wots_conn.conn_failed_at" in r:
            out.append(f"Step {r['wots_conn.conn_failed_at']} failed: `{r.get('wots_conn.conn_error', '')}`.")
    else:
        out.append("Not measured in this run.")

    if a.notes and os.path.exists(a.notes):
        with open(a.notes) as f:
            out.append("")
            out.append(f.read().rstrip())
    out.append("\n### Raw output\n")
    out.append("```")
    out.extend(lines)
    out.append("```\n")
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
