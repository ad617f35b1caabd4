#!/usr/bin/env python3
"""The three relay-bench shapes against Prosody, with slixmpp clients on loopback.

N senders and N recipients (sender i -> recipient i), bodies of ~1 KiB of random base64 text.
1. store: recipients offline; senders send K messages each, then an XEP-0199 ping; Prosody handles a session's
   stanzas in order, so the ping's answer means every message before it is stored. msg/s = N*K / time to the last answer.
2. drain: recipients connect and send initial presence; mod_offline pushes (and deletes) the stored messages.
3. online: recipients online; saturation (send flat out, count deliveries), then a fixed offered rate with
   send-to-delivery latency measured from each message's scheduled send time.
Prints RESULT key=value lines like relay-bench.
"""
import argparse
import asyncio
import base64
import logging
import os
import sys
import time

import slixmpp

now = time.perf_counter_ns


def say(text):
    print(text, flush=True)


def result(key, value):
    say(f"RESULT {key}={value}")


class Client(slixmpp.ClientXMPP):
    def __init__(self, jid, password, stats, presence):
        super().__init__(jid, password)
        self.enable_starttls = False
        self.enable_direct_tls = False
        self.enable_plaintext = True
        self.use_ipv6 = False
        self.plugin["feature_mechanisms"].unencrypted_plain = True
        self.register_plugin("xep_0199")
        self.stats = stats
        self.presence = presence
        self.ready = asyncio.get_event_loop().create_future()
        self.add_event_handler("session_start", self.on_start)
        self.add_event_handler("message", self.on_message)

    async def on_start(self, _event):
        if self.presence:
            self.send_presence()
        if not self.ready.done():
            self.ready.set_result(True)

    def on_message(self, msg):
        body = msg["body"]
        self.stats["delivered"] += 1
        if self.stats["track"] and body.startswith("t"):
            sent = int(body[1 : body.index(":")])
            self.stats["latency"].append(now() - sent)


def cpu_seconds(pid):
    if not pid:
        return None
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CPUWatch:
    def __init__(self, pid):
        self.pid, self.start, self.cpu = pid, now(), cpu_seconds(pid)

    def cores(self):
        if not self.pid:
            return None
        return (cpu_seconds(self.pid) - self.cpu) / ((now() - self.start) / 1e9)


def body(size):
    return base64.b64encode(os.urandom(size * 3 // 4)).decode()


def stanza(to, ident, text):
    return f"<message to='{to}' type='chat' id='{ident}'><body>{text}</body></message>"


async def connect_all(clients, port, timeout):
    for c in clients:
        c.connect("127.0.0.1", port)
    await asyncio.wait_for(asyncio.gather(*(c.ready for c in clients)), timeout)


async def wait_until(condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.005)
    return condition()


async def main(args):
    host = "localhost"
    stats = {"delivered": 0, "track": False, "latency": []}
    label = args.label
    senders = [Client(f"s{i}@{host}/b", "pw", stats, False) for i in range(args.users)]
    recipients = [Client(f"r{i}@{host}/b", "pw", stats, True) for i in range(args.users)]
    await connect_all(senders, args.port, 60)
    say(f"{label}: {args.users} senders connected")
    pad = body(args.body)

    # 1. store
    total = args.users * args.store_per_sender
    cpu = CPUWatch(args.pid)
    start = now()
    for i, s in enumerate(senders):
        for k in range(args.store_per_sender):
            s.send_raw(stanza(f"r{i}@{host}", f"s{i}-{k}", "x:" + pad))
    try:
        await asyncio.wait_for(
            asyncio.gather(*(s.plugin["xep_0199"].ping(jid=host, timeout=args.timeout) for s in senders)), args.timeout
        )
        done = True
    except Exception as error:  # noqa: BLE001 - a timeout is a figure, not a crash
        say(f"{label}: store barrier failed: {error!r}")
        done = False
    elapsed = (now() - start) / 1e9
    rate = total / elapsed
    say(f"{label} store: {total} messages stored in {elapsed:.2f} s = {rate:.0f} msg/s"
        + ("" if done else " (TIMED OUT: figure is an upper bound)")
        + (f", prosody CPU {cpu.cores():.2f} cores" if args.pid else ""))
    result(f"{label}.store_msgs", total)
    result(f"{label}.store_rate", f"{rate:.0f}")
    if args.pid:
        result(f"{label}.store_server_cores", f"{cpu.cores():.2f}")

    # 2. drain
    cpu = CPUWatch(args.pid)
    start = now()
    await connect_all(recipients, args.port, 60)
    complete = await wait_until(lambda: stats["delivered"] >= total, args.timeout)
    elapsed = (now() - start) / 1e9
    delivered = stats["delivered"]
    say(f"{label} drain: {delivered} of {total} delivered in {elapsed:.2f} s = {delivered / elapsed:.0f} msg/s"
        + ("" if complete else " (TIMED OUT)")
        + (f", prosody CPU {cpu.cores():.2f} cores" if args.pid else ""))
    result(f"{label}.drain_msgs", delivered)
    result(f"{label}.drain_rate", f"{delivered / elapsed:.0f}")
    if args.pid:
        result(f"{label}.drain_server_cores", f"{cpu.cores():.2f}")
    await asyncio.sleep(0.5)

    # 3a. online saturation
    base = stats["delivered"]
    expected = args.users * args.online_per_sender
    cpu = CPUWatch(args.pid)
    start = now()
    for k in range(args.online_per_sender):
        for i, s in enumerate(senders):
            s.send_raw(stanza(f"r{i}@{host}", f"o{i}-{k}", "x:" + pad))
        if k % 10 == 9:
            await asyncio.sleep(0)
    complete = await wait_until(lambda: stats["delivered"] - base >= expected, args.timeout)
    elapsed = (now() - start) / 1e9
    delivered = stats["delivered"] - base
    say(f"{label} online saturation: {delivered} of {expected} delivered in {elapsed:.2f} s = "
        f"{delivered / elapsed:.0f} msg/s" + ("" if complete else " (TIMED OUT)")
        + (f", prosody CPU {cpu.cores():.2f} cores" if args.pid else ""))
    result(f"{label}.online_msgs", delivered)
    result(f"{label}.online_rate", f"{delivered / elapsed:.0f}")
    if args.pid:
        result(f"{label}.online_server_cores", f"{cpu.cores():.2f}")
    await asyncio.sleep(0.5)

    # 3b. fixed offered rates, latency from the scheduled send time
    saturation = delivered / elapsed
    for word in args.rates.split(","):
        is_saturation = word.strip() == "saturation"
        rate = int(round(saturation)) if is_saturation else int(word)
        await offered_rate(args, label, rate, is_saturation, senders, stats, host, pad)
        await asyncio.sleep(0.5)
    for c in senders + recipients:
        c.disconnect()
    await asyncio.sleep(0.5)


async def offered_rate(args, label, rate, is_saturation, senders, stats, host, pad):
    base = stats["delivered"]
    stats["track"] = True
    stats["latency"] = []
    expected = int(rate * args.rate_seconds)
    cpu = CPUWatch(args.pid)
    start = now()
    interval = 1e9 / rate
    sent = 0
    late = 0
    while sent < expected:
        due = min(expected, int((now() - start) / interval) + 1)
        if due - sent > max(5, rate // 1000):
            late += 1
        while sent < due:
            scheduled = start + int(sent * interval)
            i = sent % args.users
            senders[i].send_raw(stanza(f"r{i}@{host}", f"f{rate}-{sent}", f"t{scheduled}:" + pad))
            sent += 1
        await asyncio.sleep(0.0005)
    send_elapsed = (now() - start) / 1e9
    complete = await wait_until(lambda: stats["delivered"] - base >= expected, 10)
    delivered = stats["delivered"] - base
    lat = sorted(stats["latency"])

    def pct(p):
        return lat[min(len(lat) - 1, int(len(lat) * p / 100))] / 1e6 if lat else float("nan")

    p50, p99, p999, worst = pct(50), pct(99), pct(99.9), (lat[-1] / 1e6 if lat else float("nan"))
    say(f"{label} online at {rate} msg/s offered{' (the saturation rate)' if is_saturation else ''}: sent {expected} "
        f"in {send_elapsed:.2f} s ({expected / send_elapsed:.0f} msg/s achieved, {late} ticks behind), "
        f"{delivered} delivered" + ("" if complete else " (INCOMPLETE)")
        + f"; send-to-delivery latency p50 {p50:.2f} ms, p99 {p99:.2f} ms, p99.9 {p999:.2f} ms, max {worst:.2f} ms"
        + (f", prosody CPU {cpu.cores():.2f} cores" if args.pid else ""))
    key = f"{label}.rate_{'saturation' if is_saturation else rate}"
    if is_saturation:
        result(f"{key}_offered", rate)
    result(f"{key}_achieved", f"{expected / send_elapsed:.0f}")
    result(f"{key}_delivered", delivered)
    result(f"{key}_expected", expected)
    result(f"{key}_p50_ms", f"{p50:.2f}")
    result(f"{key}_p99_ms", f"{p99:.2f}")
    result(f"{key}_p999_ms", f"{p999:.2f}")
    result(f"{key}_max_ms", f"{worst:.2f}")
    if args.pid:
        result(f"{key}_server_cores", f"{cpu.cores():.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--label", default="prosody")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--store-per-sender", type=int, default=100)
    parser.add_argument("--online-per-sender", type=int, default=100)
    parser.add_argument("--rates", default="1000,2500,5000,saturation",
                        help="offered rates, comma-separated msg/s; saturation = the rate the saturation shape reached")
    parser.add_argument("--rate-seconds", type=float, default=5.0)
    parser.add_argument("--body", type=int, default=1100)
    parser.add_argument("--timeout", type=float, default=60.0)
    logging.basicConfig(level=logging.CRITICAL)
    asyncio.run(main(parser.parse_args()))
