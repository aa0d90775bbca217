#!/usr/bin/env python3
"""Records a drive of make_routes.py as gpsd reports it: the test fixtures
Tests/TrackingCoreTests/Fixtures/<name>.locations.jsonl (what `gpstrackd watch` printed) and
<name>.truth.jsonl (the ground truth).

    python3 Tests/Routes/record.py --route random --seed 101 --rate 1 --name route-random101-1hz \
        [--gpstrackd .build/debug/gpstrackd]

Needs gpsd and gpsfake (apt-get install gpsd gpsd-clients) and a built gpstrackd.
"""
import argparse, os, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(ROOT, "Tests", "TrackingCoreTests", "Fixtures")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--route", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=int, default=1)
    ap.add_argument("--name", required=True)
    ap.add_argument("--gpstrackd", default=os.path.join(ROOT, ".build", "debug", "gpstrackd"))
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gpstrackd-record-")
    nmea = os.path.join(work, "drive.nmea")
    truth = os.path.join(FIXTURES, a.name + ".truth.jsonl")
    subprocess.run([sys.executable, os.path.join(HERE, "make_routes.py"), "--route", a.route, "--seed", str(a.seed),
                    "--rate", str(a.rate), "--out", nmea, "--truth", truth], check=True)
    port = free_port()
    # Five sentences an epoch: 2 ms each keeps a 10 Hz epoch inside its 100 ms.
    fake = subprocess.Popen(["gpsfake", "-1", "-q", "-P", str(port), "-c", str(0.02 / a.rate), nmea],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    out = os.path.join(FIXTURES, a.name + ".locations.jsonl")
    with open(out, "w") as sink:
        watch = subprocess.Popen([a.gpstrackd, "watch", "--gpsd", "127.0.0.1:%d" % port], stdout=sink, stderr=subprocess.DEVNULL)
        fake.wait()
        time.sleep(2)
        watch.terminate()
        watch.wait(10)
    print("%s: %d fixes, %d truth points" % (a.name, sum(1 for _ in open(out)), sum(1 for _ in open(truth))))


if __name__ == "__main__":
    main()
