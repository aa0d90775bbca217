"""gdb script for Benchmarks/order-functions: runs the daemon with a one-shot breakpoint on the entry of
every function in FUNCS (lines "offset size name"), and writes the offsets of those that ran, in the
order they first ran, to OUT. PIDFILE receives the daemon's pid, and PIDFILE.ready appears once the
breakpoints are in."""
import os
import time

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set print thread-events off")
gdb.execute("set print inferior-events off")
for name in ("SIGTERM", "SIGINT", "SIGPIPE", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCHLD"):
    gdb.execute("handle %s nostop noprint pass" % name)
gdb.execute("starti", to_string=True)
binary = os.path.basename(gdb.current_progspace().filename)
base = next(int(line.split()[0], 16) for line in gdb.execute("info proc mappings", to_string=True).splitlines()
            if line.strip().endswith("/" + binary))
with open(os.environ["PIDFILE"], "w") as f:
    f.write(str(gdb.selected_inferior().pid))
gdb.execute("set breakpoint always-inserted on")
ran = []


class Entry(gdb.Breakpoint):
    def stop(self):
        ran.append(self.offset)
        self.enabled = False
        return False


began = time.monotonic()
offsets = [int(line.split()[0], 16) for line in open(os.environ["FUNCS"])]
for offset in offsets:
    Entry("*0x%x" % (base + offset), internal=True).offset = offset
gdb.write("%d breakpoints in %.0f s\n" % (len(offsets), time.monotonic() - began))
open(os.environ["PIDFILE"] + ".ready", "w").close()
try:
    gdb.execute("continue", to_string=True)
except gdb.error as error:
    gdb.write("gdb: %s\n" % error)
with open(os.environ["OUT"], "w") as out:
    for offset in ran:
        out.write("%x\n" % offset)
gdb.write("%d functions ran\n" % len(ran))
