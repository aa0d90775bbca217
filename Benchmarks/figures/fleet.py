"""A fleet on one quota: N daemons, each coming back with a backlog, against one emulator whose
request limit stands for the whole account's BatchUpdateDevicePosition quota (issue 18)."""
import collections, datetime, os, shutil, subprocess, time
from figures.common import AWS_ENV, log
from figures.fixtures import emulator_call, start_emulator
from figures.processes import Proc, free_port, wait_for


def bench_fleet(args, bins, work, table):
    """The fleet twice: each device's rate adapting to throttled answers (default settings), then
    each given its part of the quota (`quota-share`, the quota over the devices)."""
    share = args.fleet_rps / args.fleet_devices if args.fleet_share is None else args.fleet_share
    _fleet(args, bins, work, table, "adaptive", [])
    if share > 0:
        _fleet(args, bins, work, table, "quota-share %g" % share, ["--quota-share", "%g" % share])


def _fleet(args, bins, work, table, label, extra):
    devices, backlog, quota = args.fleet_devices, args.fleet_backlog, args.fleet_rps
    emulator, url = start_emulator(work, "fleet-emulator")
    emulator_call(url, "/_emu/config", {"rps": quota})
    root = os.path.join(work, "fleet")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root, exist_ok=True)
    for n in range(devices):
        subprocess.run([bins["gpstrackd-bench"], "fill", os.path.join(root, "d%d" % n), "--rows", str(backlog)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log("fleet, %s: %d daemons, %d positions queued each, the emulator at %d requests/s" % (label, devices, backlog, quota))
    silent_gpsd = free_port()  # nothing listens: the daemons only drain
    begin = time.time()
    daemons = [Proc("fleet-d%d" % n, [bins["gpstrackd"], "run", "--config", "/dev/null", "--gpsd", "127.0.0.1:%d" % silent_gpsd,
                                      "--state-dir", os.path.join(root, "d%d" % n), "--log-level", "notice", "--log-format", "text",
                                      "--device-id", "truck-%d" % n, "--tracker", "fleet", "--region", "us-east-1",
                                      "--endpoint", url, "--tracker-filtering", "none"] + extra, work, env=AWS_ENV)
               for n in range(devices)]
    total = devices * backlog
    wait_for(lambda: emulator_call(url, "/_emu/stats").get("requests", 0) > 0, 60, "the first upload")
    deadline = begin + 30 * 60
    while time.time() < deadline and len(emulator_call(url, "/_emu/positions")["positions"]) < total:
        time.sleep(5)
    positions = emulator_call(url, "/_emu/positions")["positions"]
    stats = emulator_call(url, "/_emu/stats")
    for daemon in daemons:
        daemon.stop()
    emulator.stop()
    received = [datetime.datetime.fromisoformat(p["ReceivedTime"].replace("Z", "+00:00")).timestamp() for p in positions]
    last = collections.defaultdict(float)
    for p, at in zip(positions, received):
        last[p["DeviceId"]] = max(last[p["DeviceId"]], at)
    unique = {(p["DeviceId"], p["SampleTime"]) for p in positions}
    drain = (max(received) - begin) if received else float("inf")
    bound = total / 10 / quota
    throttled = stats.get("throttled", 0) / max(1, stats.get("requests", 1))
    spread = (max(last.values()) - min(last.values())) if last else float("nan")
    prefix = "fleet %d x %d, quota %d/s, %s: " % (devices, backlog, quota, label)
    table.add(prefix + "drain time / bound", "%.0f s / %.0f s" % (drain, bound), ratio="%.2f" % (drain / bound),
              target="<= 1.15x", met=drain / bound <= 1.15)
    table.add(prefix + "requests throttled", "%d of %d" % (stats.get("throttled", 0), stats.get("requests", 0)),
              ratio="%.3f" % throttled, target="<= 0.05", met=throttled <= 0.05)
    table.add(prefix + "positions arrived / duplicates", "%d of %d / %d" % (len(unique), total, len(positions) - len(unique)),
              target="all, none", met=len(unique) == total and len(positions) == len(unique))
    table.add(prefix + "first to last device finished", "%.0f s" % spread)
