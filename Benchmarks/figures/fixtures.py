"""Drives from the generator, the tracker emulator, and the daemon's command line."""
import datetime, json, os, re, subprocess, sys
from figures.common import ACCESS_KEY, SECRET_KEY, EMULATOR
from figures.processes import Proc, wait_for

def make_drive(generator, work, name, parts, start, seed, preamble=0):
    """`parts` chained runs of make_drive.py (each starts where the previous one parked), as one
    NMEA log; returns (path, number of seconds with a fix)."""
    lat, lon = 52.5163, 13.3777
    path = os.path.join(work, name + ".nmea")
    fixes = 0
    with open(path, "w") as out:
        # gpsd opens the device when its first client watches: sentences without a fix first, so that
        # every client is connected before the first fix.
        for n in range(preamble):
            t = start - datetime.timedelta(seconds=preamble - n)
            out.write(sentence("GPRMC,%s.00,V,,,,,,,%s,,,N" % (t.strftime("%H%M%S"), t.strftime("%d%m%y"))))
        for part in range(parts):
            nmea, truth = os.path.join(work, "part.nmea"), os.path.join(work, "part.truth")
            subprocess.run([sys.executable, generator, "--out", nmea, "--truth", truth, "--seed", str(seed + part),
                            "--start", start.strftime("%Y-%m-%dT%H:%M:%SZ"), "--lat", repr(lat), "--lon", repr(lon)],
                           check=True)
            for line in open(nmea):
                if line.startswith("#") and part > 0:
                    continue
                out.write(line)
            rows = [json.loads(line) for line in open(truth)]
            fixes += sum(1 for row in rows if row["fix"])
            lat, lon = rows[-1]["lat"], rows[-1]["lon"]
            start = datetime.datetime.fromisoformat(rows[-1]["time"].replace("Z", "+00:00")) + datetime.timedelta(seconds=1)
    return path, fixes


def sentence(body):
    checksum = 0
    for ch in body:
        checksum ^= ord(ch)
    return "$%s*%02X\n" % (body, checksum)


def start_emulator(work, name="emulator", keys=(ACCESS_KEY, SECRET_KEY), tls=None):
    """The emulator, on http, or on https with `tls` = (certificate, key) PEM paths."""
    extra = ["--tls-cert", tls[0], "--tls-key", tls[1]] if tls else []
    proc = Proc(name, [sys.executable, "-u", EMULATOR, "--port", "0", "--access-key", keys[0],
                       "--secret-key", keys[1]] + extra, work)
    path = os.path.join(work, name + ".out")
    wait_for(lambda: "listening on" in open(path).read(), 15, "the tracker emulator")
    url = re.search(r"https?://\S+", open(path).read()).group(0)
    return proc, url


def test_certificate(work, name="localhost"):
    """A self-signed certificate for localhost: (certificate, key) PEM paths."""
    certificate, key = os.path.join(work, name + ".pem"), os.path.join(work, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"], check=True, capture_output=True)
    return certificate, key


def emulator_call(url, path, body=None):
    import urllib.request
    request = urllib.request.Request(url + path, data=None if body is None else json.dumps(body).encode(),
                                     method="GET" if body is None else "POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def daemon_argv(binary, gpsd_port, state, tracker_url=None):
    argv = [binary, "run", "--gpsd", "127.0.0.1:%d" % gpsd_port, "--state-dir", state, "--log-level", "notice",
            "--log-format", "text", "--device-id", "bench"]
    if tracker_url:
        argv += ["--tracker", "bench", "--region", "us-east-1", "--endpoint", tracker_url]
    return argv
