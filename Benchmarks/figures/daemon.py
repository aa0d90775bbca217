"""Figures of the daemon binary: CPU and memory against gpxlogger, fix-to-tracker latency, start-up."""
import datetime, json, os, re, shutil, socket, statistics, subprocess, time
from figures.common import AWS_ENV, log
from figures.fixtures import daemon_argv, emulator_call, make_drive, sentence, start_emulator
from figures.processes import Proc, free_port, listening, stop_gpsfake, wait_for
from figures.table import mb

def bench_cpu(args, bins, work, table):
    """`--cpu-rounds` sessions of the same stream, each with every client: gpxlogger's own CPU
    moves by up to 40 % between sessions (how many messages each wake finds depends on the other
    processes on two cores), so a ratio is the median of the sessions' ratios, shown with its
    range."""
    drive, fixes = make_drive(args.make_drive, work, "long-drive", args.drives,
                              datetime.datetime(2026, 11, 2, 6, 0, 0, tzinfo=datetime.timezone.utc), 100,
                              preamble=300)
    log("cpu: %s, %d seconds with a fix, gpsfake cycle %s s per sentence, %d sessions" % (drive, fixes, args.cycle, args.cpu_rounds))
    emulator, url = start_emulator(work)
    offline_state = os.path.join(work, "offline-state")
    subprocess.run([bins["gpstrackd-bench"], "fill", offline_state, "--rows", "100000"], check=True,
                   stdout=subprocess.DEVNULL)
    rounds = [cpu_session(args, bins, work, drive, url, offline_state, n) for n in range(args.cpu_rounds)]
    emulator.stop()

    seen = sum(r["seen"] for r in rounds)
    elapsed = sum(r["elapsed"] for r in rounds)
    table.add("fixes streamed through gpsd (TPV mode >= 2), %d sessions" % len(rounds),
              "%d in %.0f s (%.0f/s)" % (seen, elapsed, seen / elapsed),
              target=">= 10,000, >= 10/s", met=seen >= 10_000 and seen / elapsed >= 10)
    refs = [r["per"]["gpxlogger"] for r in rounds]
    table.add("CPU s per 1,000 fixes, gpxlogger (median, range)", "", spread(refs, "%.4f"))
    ratios = lambda name: [r["per"][name] / r["per"]["gpxlogger"] for r in rounds]
    table.add("CPU s per 1,000 fixes, gpspipe -w", "", "", spread(ratios("gpspipe"), "%.2f"))
    for name, label, bound in (("gpstrackd-file", "file sink", 0.6), ("gpstrackd-aws", "aws-location sink, emulator", 1.5),
                               ("gpstrackd-offline", "offline, 100,000 queued", 1.5)):
        own = [r["per"][name] for r in rounds]
        median = statistics.median(ratios(name))
        table.add("CPU s per 1,000 fixes, gpstrackd %s (median, range)" % label, spread(own, "%.4f"), spread(refs, "%.4f"),
                  spread(ratios(name), "%.2f"), "<= %sx gpxlogger" % bound, median <= bound)
    last = rounds[-1]
    for name in ("gpstrackd-file", "gpstrackd-aws", "gpstrackd-offline"):
        peak = max(r["peak"][name] for r in rounds)
        bound = 13 if name == "gpstrackd-file" else 16
        table.add("peak RSS, %s" % name, mb(peak), mb(last["peak"]["gpxlogger"]) + " (gpxlogger)",
                  "%.2f" % (peak / last["peak"]["gpxlogger"]), "<= %d MB" % bound, peak <= bound * 1024)
        steady = max(r["steady"][name] for r in rounds)
        table.add("steady RSS %.0f s after the stream, %s" % (args.settle, name), mb(steady),
                  target="<= %d MB" % bound, met=steady <= bound * 1024)
    queued = sqlite_count(os.path.join(offline_state, "spool.db"))
    table.add("positions queued in the offline spool at the end", "%d" % queued, target=">= 100,000", met=queued >= 100_000)
    table.add("kept by the filter (file sink) / uploaded (emulator), per session",
              " ".join("%d/%d" % (r["kept"], r["uploaded"]) for r in rounds))


def spread(values, form):
    """The median and the range of `values`: "m (lo-hi)"."""
    if len(values) == 1:
        return form % values[0]
    return (form + " (" + form + "-" + form + ")") % (statistics.median(values), min(values), max(values))


def cpu_session(args, bins, work, drive, url, offline_state, number):
    """One gpsd session of `drive` with every client reading it at once; CPU per 1,000 fixes and
    memory of each."""
    for state in ("file-state", "aws-state"):
        shutil.rmtree(os.path.join(work, state), ignore_errors=True)
    before = len(emulator_call(url, "/_emu/positions")["positions"])
    port = free_port()
    fake = Proc("gpsfake", ["gpsfake", "-1", "-q", "-P", str(port), "-c", str(args.cycle), drive], work)
    Proc.gpsfakes.append((fake, port))
    wait_for(lambda: listening(port), 20, "gpsfake's gpsd")
    dead_port = free_port()
    pipe = os.path.join(work, "gpspipe.out")  # gpspipe's stdout (Proc), emptied each session
    clients = [
        Proc("gpxlogger", ["gpxlogger", "-f", os.path.join(work, "gpxlogger-%d.gpx" % number), "127.0.0.1:%d" % port], work),
        Proc("gpspipe", ["gpspipe", "-w", "127.0.0.1:%d" % port], work),
        Proc("gpstrackd-file", daemon_argv(bins["gpstrackd"], port, os.path.join(work, "file-state")), work),
        Proc("gpstrackd-aws", daemon_argv(bins["gpstrackd"], port, os.path.join(work, "aws-state"), url), work, AWS_ENV),
        Proc("gpstrackd-offline", daemon_argv(bins["gpstrackd"], port, offline_state,
                                              "http://127.0.0.1:%d" % dead_port), work, AWS_ENV),
    ]
    # CPU is counted from the first fix to the last: gpsfake lingers for a minute after its log.
    first_fix = re.compile(r'"class":"TPV".*"mode":[23]')
    wait_for(lambda: os.path.exists(pipe) and any(first_fix.search(line) for line in open(pipe)), 60, "the first fix")
    cpu0 = {c.name: c.cpu_seconds() for c in clients}
    begin = last_change = time.monotonic()
    size = 0
    while time.monotonic() - last_change < 3 and fake.alive():
        for c in clients:
            c.sample()
        if os.path.getsize(pipe) != size:
            size, last_change = os.path.getsize(pipe), time.monotonic()
        time.sleep(0.1)
    cpu = {c.name: c.cpu_seconds() - cpu0[c.name] for c in clients}
    elapsed = last_change - begin
    time.sleep(args.settle)
    for c in clients:
        c.sample()
    steady = {c.name: c.status_kb("VmRSS") for c in clients if c.alive()}
    for c in clients:
        c.stop()
    stop_gpsfake(fake, port)
    Proc.gpsfakes.remove((fake, port))

    tpv = [json.loads(l) for l in open(pipe) if '"class":"TPV"' in l]
    seen = sum(1 for t in tpv if t.get("mode", 0) >= 2)
    kept = sum(1 for _ in open(os.path.join(work, "file-state", "positions.jsonl")))
    uploaded = len(emulator_call(url, "/_emu/positions")["positions"]) - before
    points = open(os.path.join(work, "gpxlogger-%d.gpx" % number)).read().count("<trkpt")
    per = {name: value / seen * 1000 for name, value in cpu.items()}
    log("cpu session %d: %d fixes from gpsd in %.0f s (%.1f/s); gpxlogger wrote %d points, the file sink %d, %d uploaded; "
        "CPU s per 1,000 fixes: %s" % (number + 1, seen, elapsed, seen / elapsed, points, kept, uploaded,
                                       ", ".join("%s %.4f" % kv for kv in per.items())))
    return {"seen": seen, "elapsed": elapsed, "per": per, "kept": kept, "uploaded": uploaded, "steady": steady,
            "peak": {c.name: c.peak_kb for c in clients}}


def sqlite_count(path):
    import sqlite3
    with sqlite3.connect(path) as db:
        return db.execute("select count(*) from positions").fetchone()[0]


def restamped(group, when):
    """One second of NMEA with its time (and date) replaced by `when`."""
    out = []
    for line in group:
        body = line.strip()[1:].split("*")[0].split(",")
        if body[0] in ("GPRMC", "GPGGA", "GPGST") and len(body) > 1 and body[1]:
            body[1] = when.strftime("%H%M%S.00")
            if body[0] == "GPRMC" and len(body) > 9:
                body[9] = when.strftime("%d%m%y")
        out.append(sentence(",".join(body)))
    return out


def serve_nmea_in_real_time(listener, groups, done):
    """Feeds gpsd one second of the drive at each whole second, stamped with that second."""
    import threading
    def run():
        connection, _ = listener.accept()
        now = time.time()
        for group in groups:
            second = int(now) + 1
            time.sleep(max(0.0, second - time.time()))
            now = time.time()
            when = datetime.datetime.fromtimestamp(second, datetime.timezone.utc)
            try:
                connection.sendall("".join(restamped(group, when)).encode())
            except OSError:
                break
        connection.close()
        done.set()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def bench_latency(args, bins, work, table):
    """A real gpsd reads the drive from a TCP source that sends each second's sentences at that
    second, stamped with it: fix time is wall time, so receive time - fix time is the latency."""
    import threading
    raw, _ = make_drive(args.make_drive, work, "realtime-drive", 1,
                        datetime.datetime(2026, 11, 3, 6, 0, 0, tzinfo=datetime.timezone.utc), 7)
    groups, current = [], []
    for line in open(raw):
        if line.startswith("#"):
            continue
        if line.startswith("$GPRMC") and current:
            groups.append(current)
            current = []
        current.append(line)
    groups.append(current)
    groups = groups[80:80 + args.latency_seconds]  # 10 s of the parked start, then driving
    emulator, url = start_emulator(work, "latency-emulator")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    done = threading.Event()
    serve_nmea_in_real_time(listener, groups, done)
    port = free_port()
    gpsd = Proc("latency-gpsd", ["gpsd", "-N", "-n", "-b", "-S", str(port),
                                 "tcp://127.0.0.1:%d" % listener.getsockname()[1]], work)
    wait_for(lambda: listening(port), 20, "gpsd")
    daemons = [
        Proc("latency-gpstrackd", daemon_argv(bins["gpstrackd"], port, os.path.join(work, "latency-state"), url),
             work, AWS_ENV),
        Proc("latency-gpstrackd-every-fix", daemon_argv(bins["gpstrackd"], port, os.path.join(work, "latency-every-state"), url)
             + ["--device-id", "every-fix", "--max-interval", "1", "--stationary-interval", "1"], work, AWS_ENV),
    ]
    # The same real-time stream, 1 fix a second as on a vehicle: CPU beside gpxlogger's.
    reference = Proc("latency-gpxlogger", ["gpxlogger", "-f", os.path.join(work, "latency.gpx"), "127.0.0.1:%d" % port], work)
    log("latency: %d s of the drive in real time" % len(groups))
    cpu0 = {p.name: p.cpu_seconds() for p in daemons + [reference]}
    done.wait(len(groups) + 30)
    cpu = {p.name: p.cpu_seconds() - cpu0[p.name] for p in daemons + [reference]}
    time.sleep(8)  # the last kept positions wait up to upload-interval
    reference.stop()
    for d in daemons:
        d.stop()
    gpsd.stop()
    listener.close()
    positions = emulator_call(url, "/_emu/positions")["positions"]
    emulator.stop()
    parse = lambda text: datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    for device, label in (("bench", "default filter"), ("every-fix", "every fix kept (max-interval 1)")):
        latencies = sorted((parse(p["ReceivedTime"]) - parse(p["SampleTime"])).total_seconds()
                           for p in positions if p["DeviceId"] == device)
        if not latencies:
            raise SystemExit("benchmark: no position of %s reached the emulator; see %s/latency-*.err" % (device, work))
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(round(0.99 * (len(latencies) - 1))))]
        log("latency, %s: %d positions, seconds: %s" % (label, len(latencies), " ".join("%.3f" % x for x in latencies)))
        table.add("fix-to-tracker latency p50, %s (%d positions)" % (label, len(latencies)), "%.3f s" % p50,
                  target="<= upload-interval + 0.1 = 5.1 s", met=p50 <= 5.1)
        table.add("fix-to-tracker latency p99, %s" % label, "%.3f s" % p99)
    seconds = len(groups)
    table.add("CPU s per 1,000 s at 1 fix/s in real time (10 ms ticks), gpxlogger", "",
              "%.3f" % (cpu["latency-gpxlogger"] / seconds * 1000))
    for name, label in (("latency-gpstrackd", "uploading, default filter"), ("latency-gpstrackd-every-fix", "uploading every fix")):
        ratio = cpu[name] / cpu["latency-gpxlogger"] if cpu["latency-gpxlogger"] > 0 else float("inf")
        table.add("CPU s per 1,000 s at 1 fix/s in real time, gpstrackd %s" % label, "%.3f" % (cpu[name] / seconds * 1000),
                  "%.3f" % (cpu["latency-gpxlogger"] / seconds * 1000), "%.2f" % ratio)


def bench_startup(args, bins, work, table):
    state = os.path.join(work, "startup-state")
    subprocess.run([bins["gpstrackd-bench"], "fill", state, "--rows", "1000000"], check=True, stdout=subprocess.DEVNULL)
    notify_path = os.path.join(work, "notify.sock")
    times = []
    for attempt in range(args.startup_runs):
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify_path)
        sock.settimeout(10)
        begin = time.monotonic()
        daemon = Proc("startup-gpstrackd", daemon_argv(bins["gpstrackd"], free_port(), state, "http://127.0.0.1:%d" % free_port()),
                      work, dict(AWS_ENV, NOTIFY_SOCKET=notify_path))
        try:
            while True:
                message = sock.recv(4096).decode()
                if "READY=1" in message.split("\n"):
                    times.append((time.monotonic() - begin) * 1000)
                    break
        except socket.timeout:
            raise SystemExit("benchmark: no READY=1 within 10 s; see %s/startup-gpstrackd.err" % work)
        finally:
            daemon.stop()
            sock.close()
    log("startup: ms to READY=1: %s" % " ".join("%.1f" % t for t in times))
    queued = sqlite_count(os.path.join(state, "spool.db"))
    table.add("start to READY=1, %d-row spool (median of %d)" % (queued, len(times)), "%.1f ms" % statistics.median(times),
              target="< 300 ms", met=statistics.median(times) < 300)
    table.add("start to READY=1, slowest", "%.1f ms" % max(times), target="< 300 ms", met=max(times) < 300)
