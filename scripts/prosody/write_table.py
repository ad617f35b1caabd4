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
    ap.add_argument("--rates", default="1000,2500,5000")
    ap.add_argument("--rate-seconds", default="5")
    a = ap.parse_args()

    # A label measured in several rounds (the before build and this build alternate) repeats its keys: each figure
    # is the mean of its rounds, and every round's value is kept for the round-by-round table.
    rounds = {}
    lines = []
    with open(a.log) as f:
        for line in f:
            m = re.match(r"RESULT (\S+?)=(\S*)", line)
            if m:
                rounds.setdefault(m.group(1), []).append(m.group(2))
            elif line.strip() and not line.startswith("RESULT"):
                lines.append(line.rstrip())
    r = {key: values[-1] for key, values in rounds.items()}

    def values(key):
        try:
            return [float(v) for v in rounds[key]]
        except (KeyError, ValueError):
            return []

    def num(key):
        found = values(key)
        return sum(found) / len(found) if found else None

    def fmt(v, digits=0):
        return "—" if v is None else (f"{v:,.{digits}f}")

    def ratio(a_, b_):
        return None if a_ is None or b_ in (None, 0) else a_ / b_

    systems = [("wots_before", "wots-relay SQLite, before"), ("wots_sqlite", "wots-relay SQLite"),
               ("wots_pg", "wots-relay PostgreSQL"), ("prosody_file", "Prosody file store"),
               ("prosody_file_again", "Prosody file store, again after the Wots runs"),
               ("prosody_sql", "Prosody SQLite")]
    systems = [(k, n) for k, n in systems if any(key.startswith(k + ".") for key in r)]
    out = []
    # Keep the other benchmarks' sections that precede this one; only the relay section is rewritten.
    heading = "## Relay side by side with Prosody (issues 6 and 16)"
    previous = open(a.out).read() if os.path.exists(a.out) else ""
    for old_heading in (heading, "## Relay side by side with Prosody (issue 6)"):
        if old_heading in previous:
            previous = previous.split(old_heading)[0]
    kept = previous.rstrip() or "# Benchmarks"
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
               "Prosody bodies ~1.1 KiB of base64 text. Wots client: relay-bench (Swift, its sockets served by "
               "SwiftNIO channel handlers on their event loops: HTTP/1.1 keep-alive POSTs and RFC 6455 frames read and "
               "written as bytes; HdrHistogram). Prosody client: slixmpp, one Python process.")
    ab_rounds = len(values("wots_before.online_rate"))
    if ab_rounds > 1:
        out.append(f"- The before build and this build ran {ab_rounds} times each, alternating on fresh SQLite files; "
                   "their columns are the mean of the rounds (each round is in the round-by-round table below).")
    out.append("- Server CPU (cores busy over the shape, from /proc/PID/stat) is beside each figure; the load generator "
               f"shares the same 2 cores. Offered rates run {a.rate_seconds} s each.\n")

    head = "| shape | " + " | ".join(n for _, n in systems) + " |"
    out.append(head)
    out.append("|" + " --- |" * (len(systems) + 1))

    def cores_value(label, shape):
        return num(f"{label}.{shape}_relay_cores") or num(f"{label}.{shape}_server_cores")

    def row(title, key, shape):
        cells = []
        for label, _ in systems:
            v = num(f"{label}.{key}")
            c = cores_value(label, shape)
            n = r.get(f"{label}.{shape}_msgs")
            cells.append(fmt(v) + (f" ({c:.2f} cores)" if c else "") + (f", n={n}" if n and v is not None else ""))
        out.append(f"| {title} | " + " | ".join(cells) + " |")

    row("1. durable store, msg/s (202s only / stored)", "store_rate", "store")
    row("2. drain, msg/s (Wots: until every `ack` is answered, i.e. its deletions written)", "drain_rate", "drain")
    row("3. online at saturation, msg/s delivered", "online_rate", "online")
    per_core, micros = [], []
    for label, _ in systems:
        v, c = num(f"{label}.online_rate"), cores_value(label, "online")
        per_core.append(fmt(v / c) if v and c else "—")
        micros.append(fmt(c * 1e6 / v) if v and c else "—")
    out.append("| 3. online msg/s per server core used | " + " | ".join(per_core) + " |")
    out.append("| 3. server CPU-µs per delivered message | " + " | ".join(micros) + " |")
    row("4. durable store over the stream, msg/s (`accepted` only; Wots, last)", "stream_store_rate", "stream_store")

    half = num("prosody_file.online_rate")
    half = int(half / 2) if half else None
    rates = [int(x) for x in a.rates.split(",") if x.strip()]
    if half and half not in rates:
        rates.append(half)
    out.append("\n### Send-to-delivery latency at offered rates (p50 / p99 / p99.9 ms, delivered of sent)\n")
    out.append("| offered msg/s | " + " | ".join(n for _, n in systems) + " |")
    out.append("|" + " --- |" * (len(systems) + 1))

    def latency_cell(key):
        p50, p99, p999 = num(f"{key}_p50_ms"), num(f"{key}_p99_ms"), num(f"{key}_p999_ms")
        if p99 is None:
            return "—"
        d, e = r.get(f"{key}_delivered"), r.get(f"{key}_expected")
        return f"{fmt(p50, 1)} / **{fmt(p99, 1)}** / {fmt(p999, 1)} ({d} of {e})"

    for rate in sorted(rates):
        title = f"{rate:,}" + (" (half Prosody file store's saturation)" if rate == half else "")
        out.append(f"| {title} | " + " | ".join(latency_cell(f"{label}.rate_{rate}") for label, _ in systems) + " |")
    cells = []
    for label, _ in systems:
        offered = r.get(f"{label}.rate_saturation_offered")
        cells.append((f"at {int(offered):,}: " if offered else "") + latency_cell(f"{label}.rate_saturation"))
    out.append("| its own saturation rate | " + " | ".join(cells) + " |")

    out.append("\n### Ratios and goals (issue 16)\n")
    out.append("| goal | wots SQLite | wots PostgreSQL | met? |")
    out.append("| --- | --- | --- | --- |")

    def verdict(met):
        return ", ".join(("SQLite " if i == 0 else "PostgreSQL ") + ("—" if m is None else ("met" if m else "MISSED"))
                         for i, m in enumerate(met))

    def reference(ref, key):
        # Prosody's file store runs before and after the Wots runs: the ratio is against the mean of what it did.
        runs = [v for v in (num(f"{ref}.{key}"), num(f"{ref}_again.{key}")) if v is not None]
        return sum(runs) / len(runs) if runs else None

    def faster(ref, key):
        runs = [v for v in (num(f"{ref}.{key}"), num(f"{ref}_again.{key}")) if v is not None]
        return max(runs) if len(runs) > 1 else None

    def goal(title, key, ref, targets, ref_key=None):
        vals, met = [], []
        for label, target in zip(("wots_sqlite", "wots_pg"), targets):
            x = ratio(num(f"{label}.{key}"), reference(ref, ref_key or key))
            y = ratio(num(f"{label}.{key}"), faster(ref, ref_key or key))
            vals.append("—" if x is None else f"{x:.2f}×" + ("" if y is None else f" ({y:.2f}× the faster run)"))
            met.append(None if x is None or target is None else x >= target)
        out.append(f"| {title} | {vals[0]} | {vals[1]} | {verdict(met)} |")

    if num("prosody_file_again.online_rate") is not None:
        out.append("| (Prosody's file store is the mean of its runs before and after the Wots runs; in brackets, "
                   "against the faster of the two) | | | |")
    goal("online saturation ≥ 2× Prosody file store (SQLite; aim 3×), ≥ 1.5× (PostgreSQL)", "online_rate",
         "prosody_file", (2, 1.5))
    goal("online saturation vs Prosody SQLite", "online_rate", "prosody_sql", (None, None))
    goal("durable store ≥ 3× Prosody file store: over HTTP, one request in flight per sender", "store_rate",
         "prosody_file", (3, 3))
    goal("durable store ≥ 3× Prosody file store: over the stream, 8 sends unanswered per sender (Prosody's "
         "stanzas go flat out)", "stream_store_rate", "prosody_file", (3, 3), ref_key="store_rate")
    goal("drain vs Prosody file store", "drain_rate", "prosody_file", (None, None))
    if half:
        cells, met = [], []
        for label in ("wots_sqlite", "wots_pg"):
            p99 = num(f"{label}.rate_{half}_p99_ms")
            cells.append(fmt(p99, 1) + " ms")
            met.append(None if p99 is None else p99 <= 20)
        out.append(f"| p99 ≤ 20 ms at half Prosody's saturation ({half:,} msg/s) | {cells[0]} | {cells[1]} | "
                   f"{verdict(met)} |")
    if "wots_before" in dict(systems):
        out.append("\n| this build against the before build (SQLite, same run) | after ÷ before |")
        out.append("| --- | --- |")
        for title, key in [("durable store", "store_rate"), ("durable store over the stream", "stream_store_rate"),
                           ("drain", "drain_rate"), ("online saturation", "online_rate")]:
            x = ratio(num(f"wots_sqlite.{key}"), num(f"wots_before.{key}"))
            out.append(f"| {title} | {'—' if x is None else f'{x:.2f}×'} |")
        b, c = cores_value("wots_before", "online"), cores_value("wots_sqlite", "online")
        bv, cv = num("wots_before.online_rate"), num("wots_sqlite.online_rate")
        if b and c and bv and cv:
            out.append(f"| CPU-µs per delivered message | {c * 1e6 / cv:,.0f} vs {b * 1e6 / bv:,.0f} |")
        if ab_rounds > 1:
            out.append("\n| round by round (before / this build; odd rounds ran the before build first, even rounds this build) | "
                       + " | ".join(f"round {i + 1}" for i in range(ab_rounds)) + " |")
            out.append("|" + " --- |" * (ab_rounds + 1))

            def by_round(title, key, digits=0):
                before, after = values(f"wots_before.{key}"), values(f"wots_sqlite.{key}")
                cells = [f"{fmt(x, digits)} / {fmt(y, digits)}" for x, y in zip(before, after)]
                out.append(f"| {title} | " + " | ".join(cells) + " |")

            by_round("durable store, msg/s", "store_rate")
            by_round("durable store over the stream, msg/s", "stream_store_rate")
            by_round("drain, msg/s", "drain_rate")
            by_round("online at saturation, msg/s", "online_rate")
            by_round("relay cores online at saturation", "online_relay_cores", 2)
            for rate in sorted(rates):
                by_round(f"p99 at {rate:,} msg/s, ms", f"rate_{rate}_p99_ms", 1)
                by_round(f"relay cores at {rate:,} msg/s", f"rate_{rate}_relay_cores", 2)

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
                   "from POST to arrival). Goal (issue 16): ≤ 16 KiB per idle connection at 20,000 connections.")
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
