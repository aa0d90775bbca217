#!/usr/bin/env python3
"""Records a drive as gpsd reports it: the test fixtures
Tests/TrackingCoreTests/Fixtures/<name>.locations.jsonl (what `gpstrackd watch` printed) and
<name>.truth.jsonl (the ground truth), or the same two files in --out-dir.

    python3 Tests/Routes/record.py --route random --seed 101 --rate 1 --name route-random101-1hz \
        [--gpstrackd .build/debug/gpstrackd]
    python3 Tests/Routes/record.py --nmea drive.nmea --truth drive.truth.jsonl --name drive-seed7

Each fix is recorded as watch prints it by default: its accuracy the receiver's own GST, with
gpsd's figure beside it as filterAccuracy (--accuracy-source gpsd: gpsd's figure alone).

The first form draws the drive with make_routes.py; the second records a log drawn elsewhere
(make_drive.py's). gpsfake feeds as soon as gpsd listens, so the log is preceded by sentences
without a fix (a minute a hertz of the rate, 2.4 s of the replay): watch connects during them and
the drive is recorded from its first fix.

Needs gpsd and gpsfake (apt-get install gpsd gpsd-clients) and a built gpstrackd.
"""
import argparse, os, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "Tests", "TrackingCoreTests", "Fixtures")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nmea_sentence(body):
    checksum = 0
    for c in body:
        checksum ^= ord(c)
    return "$%s*%02X" % (body, checksum)


def with_lead_in(log, out, seconds=60):
    """`log` after `seconds` of sentences without a fix, dated before its first RMC."""
    lines = [l for l in open(log).read().splitlines() if not l.startswith("#")]
    fields = next(l for l in lines if l.startswith("$GPRMC,")).split(",")
    start = int(fields[1][:2]) * 3600 + int(fields[1][2:4]) * 60 + int(fields[1][4:6])
    lead = []
    for t in range(start - seconds, start):
        time_ = "%02d%02d%02d.00" % (t // 3600, t // 60 % 60, t % 60)
        lead += [nmea_sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (time_, fields[9])),
                 nmea_sentence("GPGGA,%s,,,,,0,00,99.9,,M,,M,," % time_)]
    with open(out, "w") as f:
        f.write("\n".join(lead + lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--route")
    ap.add_argument("--nmea", help="record this log instead of drawing one (with --truth)")
    ap.add_argument("--truth", help="the log's ground truth, copied beside the recording")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=int, default=1)
    ap.add_argument("--name", required=True)
    ap.add_argument("--gpstrackd", default=os.path.join(ROOT, ".build", "debug", "gpstrackd"))
    ap.add_argument("--accuracy-source", choices=("gpsd", "gst"), default="gst", help="watch's --accuracy-source")
    ap.add_argument("--out-dir", default=FIXTURES,
                    help="where the two files go (default: the test fixtures); check-unseen records elsewhere")
    a = ap.parse_args()
    if bool(a.route) == bool(a.nmea) or bool(a.nmea) != bool(a.truth):
        ap.error("give --route, or --nmea with --truth")
    work = tempfile.mkdtemp(prefix="gpstrackd-record-")
    nmea = os.path.join(work, "drive.nmea")
    truth = os.path.join(a.out_dir, a.name + ".truth.jsonl")
    if a.nmea:
        shutil.copyfile(a.truth, truth)
        drawn = a.nmea
    else:
        drawn = os.path.join(work, "drawn.nmea")
        subprocess.run([sys.executable, os.path.join(HERE, "make_routes.py"), "--route", a.route, "--seed", str(a.seed),
                        "--rate", str(a.rate), "--out", drawn, "--truth", truth], check=True)
    # 2.4 s of the replay's own time at any rate: watch connects well within it.
    with_lead_in(drawn, nmea, seconds=60 * a.rate)
    port = free_port()
    # Five sentences an epoch: 2 ms each keeps a 10 Hz epoch inside its 100 ms.
    fake = subprocess.Popen(["gpsfake", "-1", "-q", "-P", str(port), "-c", str(0.02 / a.rate), nmea],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    out = os.path.join(a.out_dir, a.name + ".locations.jsonl")
    with open(out, "w") as sink:
        watch = subprocess.Popen([a.gpstrackd, "watch", "--gpsd", "127.0.0.1:%d" % port, "--accuracy-source", a.accuracy_source],
                                 stdout=sink, stderr=subprocess.DEVNULL)
        fake.wait()
        time.sleep(2)
        watch.terminate()
        watch.wait(10)
    print("%s: %d fixes, %d truth points" % (a.name, sum(1 for _ in open(out)), sum(1 for _ in open(truth))))


if __name__ == "__main__":
    main()
