"""Figures gpstrackd-bench measures in process (the spool, a drain, a trickle), read from its JSON lines."""
import datetime, json, os, statistics, subprocess
from figures.common import DRIVE_SEED7
from figures.fixtures import emulator_call, start_emulator, test_certificate
from figures.table import meets

def bench_figures(bins, arguments):
    """Runs gpstrackd-bench; returns its figures by name from the JSON lines it prints on standard
    output (its table for the reader goes to standard error, which is passed through)."""
    out = subprocess.run([bins["gpstrackd-bench"]] + arguments, check=True, stdout=subprocess.PIPE, text=True).stdout
    return {f["figure"]: f for f in (json.loads(line) for line in out.splitlines() if line.startswith("{"))}


def bench_spool(args, bins, work, table):
    figures = bench_figures(bins, ["spool", "--dir", os.path.join(work, "spool")])
    for name, figure in figures.items():
        if name.startswith("spool file"):
            continue
        met = meets(figure["number"], figure["target"]) if "number" in figure else None
        table.add("spool: " + name, figure["value"], target=figure["target"], met=met)


def bench_drain(args, bins, work, table):
    # gpstrackd-bench drain signs with the documentation's example keys.
    emulator, url = start_emulator(work, "drain-emulator", ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
    emulator_call(url, "/_emu/config", {"latency_ms": 50, "rps": 50})
    figures = bench_figures(bins, ["drain", "--endpoint", url, "--positions", str(args.drain_positions), "--rate", "50", "--in-flight", "8"])
    stats = emulator_call(url, "/_emu/stats")
    emulator.stop()
    rate = figures["positions/s"]["number"]
    ratio = figures["ratio to the bound (rate x 10)"]["number"]
    cpu = figures["CPU seconds per 10,000 positions"]["value"]
    table.add("drain %d positions, max-request-rate 50, 8 in flight (positions/s)" % args.drain_positions,
              "%.0f" % rate, "500 (rate x 10)", "%.3f" % ratio, ">= 0.9 of the bound", ratio >= 0.9)
    table.add("drain: CPU s per 10,000 positions", cpu)
    most = stats.get("max_requests_per_second", 0)
    table.add("drain: most requests arriving in one second (emulator)", str(most), target="<= 50", met=most <= 50)


def bench_trickle(args, bins, work, table):
    emulator, url = start_emulator(work, "trickle-emulator", ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
    figures = bench_figures(bins, ["trickle", "--endpoint", url, "--positions", "300", "--every", "150"])
    emulator.stop()
    for label in ("append only", "append and upload", "uploading"):
        value = figures["CPU ms per position, %s" % label]["value"]
        table.add("trickle: CPU ms per position, %s (300, one every 150 ms, each its own request)" % label, value)


def bench_filter(args, bins, work, table):
    figures = bench_figures(bins, ["filter"])
    for name, figure in figures.items():
        met = meets(figure["number"], figure["target"]) if "number" in figure else None
        table.add(name, figure["value"], target=figure["target"], met=met)


def bench_wire(args, bins, work, table):
    tls = test_certificate(work)
    emulator, url = start_emulator(work, "wire-emulator", ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), tls=tls)
    figures = bench_figures(bins, ["wire", "--endpoint", url, "--ca", tls[0]])
    # Issue 18's figure: make_drive's seed 7 through the default filter and uploader, idle
    # connections closed after 60 s, ten times real time.
    figures.update(bench_figures(bins, ["wire", "--endpoint", url, "--ca", tls[0], "--drive", DRIVE_SEED7]))
    # The reference in the same run: the drive again, without keepalives on idle connections.
    figures.update(bench_figures(bins, ["wire", "--endpoint", url, "--ca", tls[0], "--drive", DRIVE_SEED7, "--keepalive", "0"]))
    # What a restart costs: ten starts, the TLS sessions kept in a file across them and, as the
    # reference in the same run, not.
    figures.update(bench_figures(bins, ["wire", "--endpoint", url, "--ca", tls[0], "--restarts", "10"]))
    emulator.stop()
    for name, figure in figures.items():
        met = meets(figure["number"], figure["target"]) if "number" in figure and figure["target"] else None
        table.add("wire: " + name, figure["value"], target=figure["target"], met=met)
    with_keepalives = figures.get("drive: bytes per position through the relay", {}).get("number")
    without = figures.get("drive without keepalives (reference): bytes per position through the relay", {}).get("number")
    if with_keepalives and without:
        table.add("wire: drive, bytes per position with keepalives / without", "%.2f" % (with_keepalives / without))


def bench_live(args, bins, work, table):
    """The live lane: 50,000 positions queued, then a fix a second for two minutes; each live fix's
    delay from fix time to the emulator's receive time, while the backlog drains behind them."""
    emulator, url = start_emulator(work, "live-emulator", ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
    begin = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    figures = bench_figures(bins, ["live", "--endpoint", url, "--queued", str(args.live_queued), "--seconds", str(args.live_seconds)])
    positions = emulator_call(url, "/_emu/positions")["positions"]
    emulator.stop()
    when = lambda text: datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    live = [(when(p["ReceivedTime"]) - when(p["SampleTime"])).total_seconds() for p in positions if when(p["SampleTime"]) > begin]
    live.sort()
    interval = 5.0  # upload-interval's default
    p95 = live[min(len(live) - 1, int(0.95 * len(live)))] if live else float("inf")
    prefix = "live lane, %d queued, a fix a second: " % args.live_queued
    table.add(prefix + "live fixes on the tracker", "%d of %d" % (len(live), args.live_seconds),
              target="all", met=len(live) == args.live_seconds)
    table.add(prefix + "fix to tracker p50 / p95 / most (s)",
              "%.1f / %.1f / %.1f" % (statistics.median(live), p95, live[-1]) if live else "none",
              target="p95 <= upload-interval + 2 s (%.0f)" % (interval + 2), met=p95 <= interval + 2)
    table.add(prefix + "backlog still queued at the end", figures["backlog still queued at the end"]["value"])
