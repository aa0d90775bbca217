"""Child processes (gpsd, gpsfake, the emulator, the daemon), their /proc figures, and ports."""
import os, signal, socket, subprocess, time
from figures.common import TICK

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise SystemExit("benchmark: timed out waiting for %s" % what)


class Proc:
    """A child with its CPU and memory read from /proc while it runs, and from wait4 when it ends."""

    started = []  # every child, so that a failed run leaves none behind
    gpsfakes = []  # (gpsfake, port): its gpsd outlives it

    def __init__(self, name, argv, work, env=None):
        self.name = name
        self.out = open(os.path.join(work, name + ".out"), "wb")
        self.err = open(os.path.join(work, name + ".err"), "wb")
        self.popen = subprocess.Popen(argv, stdout=self.out, stderr=self.err, cwd=work,
                                      env=dict(os.environ, **(env or {})))
        self.pid = self.popen.pid
        Proc.started.append(self)
        self.rusage = None
        self.peak_kb = 0

    def alive(self):
        if self.rusage is None:
            self.try_reap()
        return self.rusage is None

    def try_reap(self):
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        if pid == self.pid:
            self.rusage = usage
            self.returncode = os.waitstatus_to_exitcode(status)

    def cpu_seconds(self):
        if not self.alive():
            return self.rusage.ru_utime + self.rusage.ru_stime
        fields = open("/proc/%d/stat" % self.pid).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def status_kb(self, key):
        for line in open("/proc/%d/status" % self.pid):
            if line.startswith(key + ":"):
                return int(line.split()[1])
        return 0

    def sample(self):
        """Records the high-water mark while the process lives (VmHWM is lost once it exits; wait4's
        ru_maxrss would count the forked Python before exec)."""
        try:
            self.peak_kb = max(self.peak_kb, self.status_kb("VmHWM"))
        except (OSError, ValueError):
            pass

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.alive():
            self.sample()
            os.kill(self.pid, sig)
            self.reap(timeout)

    def reap(self, timeout=15):
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                deadline = time.monotonic() + 5
            time.sleep(0.02)


def stop_gpsfake(fake, port):
    """gpsfake leaves its gpsd behind when interrupted: stop that gpsd (found by `-S PORT`) too."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"gpsd") and b"-S" in argv and argv[argv.index(b"-S") + 1:][:1] == [str(port).encode()]:
            os.kill(int(pid), signal.SIGTERM)
    fake.stop(signal.SIGINT)
