"""What every part of the benchmarks shares: where things are, the emulator's keys, /proc units."""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMULATOR = os.path.join(ROOT, "Tests", "Emulator", "tracker_emulator.py")
DRIVE_SEED7 = os.path.join(ROOT, "Tests", "TrackingCoreTests", "Fixtures", "drive-seed7.locations.jsonl")
ACCESS_KEY, SECRET_KEY = "AKIDBENCHMARK", "benchmark-secret-key"
AWS_ENV = {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
TICK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def log(text):
    print(text, file=sys.stderr, flush=True)
