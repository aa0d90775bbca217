"""The table the benchmarks print, the targets' arithmetic, and the machine they ran on."""
import os, subprocess

class Table:
    def __init__(self):
        self.rows = []

    def add(self, figure, measured, reference="", ratio="", target="", met=None):
        self.rows.append((figure, measured, reference, ratio, target, "" if met is None else ("yes" if met else "NO")))

    def print(self):
        head = ("figure", "gpstrackd", "reference", "ratio", "target", "met")
        widths = [max(len(str(r[i])) for r in self.rows + [head]) for i in range(6)]
        for row in [head, tuple("-" * w for w in widths)] + self.rows:
            print("| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |")


def mb(kb):
    return "%.1f MB" % (kb / 1024)


def meets(number, target):
    """Whether `number` meets a target written ">= 2000", "<= 8.5" or "< 200"; None when it states none."""
    for op, test in ((">=", lambda a, b: a >= b), ("<=", lambda a, b: a <= b), ("<", lambda a, b: a < b)):
        if target.startswith(op):
            try:
                return test(number, float(target[len(op):].split()[0]))
            except ValueError:
                return None
    return None


def machine():
    cpus = os.cpu_count()
    mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")) / 1024 / 1024
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    gpsd = subprocess.run(["gpsd", "-V"], capture_output=True, text=True).stdout.strip()
    return "%d cores (%s), %.0f GiB; %s; %s" % (cpus, model, mem, swift, gpsd)
