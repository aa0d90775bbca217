#!/usr/bin/env python3
"""Drives of gpstrackd's own, unlike make_drive's fixed route, as NMEA for gpsfake with ground truth.

Each route is a list of legs; the vehicle follows them with bounded acceleration, and a receiver
reports it with a slowly wandering error plus noise (larger when parked), optionally with an
urban canyon where the error jumps 10-25 m for a few seconds. Epochs at --rate Hz (1, 5 or 10):
RMC, GGA, GSA, GST and VTG each. The ground truth (JSON lines, one per epoch) has the true
position, speed, course and phase.

    python3 make_routes.py --route suburb --out suburb.nmea --truth suburb.truth.jsonl [--rate 1] [--seed 1]

Routes:
  suburb   corners at 45, 60, 120 and 135 degrees, a roundabout taken three quarters round,
           S-curves, stop-and-go traffic, parked at both ends
  highway  a ramp, long curves both ways at 30 m/s, a lane of slow traffic, an exit and a stop
  canyon   a street grid at 70 and 110 degrees with error bursts of 10-25 m, a tight U-turn
  random   a road drawn from --seed: legs of every kind above at random angles, radii and speeds,
           error bursts on its streets (Tests/Routes/record.py records it through gpsd)
"""
import argparse, datetime, json, math, random

EARTH = 6371008.8


def straight(phase, metres, speed):
    return ("straight", phase, metres, speed, 0.0)


def turn(phase, degrees, radius, speed):
    return ("turn", phase, degrees, speed, radius)


def stop(phase, seconds):
    return ("stop", phase, seconds, 0.0, 0.0)


ROUTES = {
    "suburb": [
        stop("parked", 60), straight("street", 220, 11), turn("corner", 45, 15, 7), straight("street", 160, 12),
        turn("corner", -135, 10, 5), straight("street", 140, 11), turn("corner", 60, 20, 8), straight("street", 120, 12),
        turn("roundabout-in", -30, 15, 7), turn("roundabout", 270, 18, 7), turn("roundabout-out", -30, 15, 8),
        straight("street", 200, 13), turn("s-curve", 70, 40, 10), turn("s-curve", -140, 40, 10), turn("s-curve", 70, 40, 10),
        straight("street", 80, 10),
    ] + [leg for _ in range(6) for leg in (stop("stop-and-go", 6), straight("stop-and-go", 25, 4))] + [
        straight("street", 150, 11), turn("corner", 120, 12, 6), straight("street", 180, 12), stop("parked", 90),
    ],
    "highway": [
        stop("parked", 30), straight("street", 150, 12), turn("ramp", 90, 120, 18), straight("highway", 1500, 30),
        turn("curve", 35, 900, 30), straight("highway", 800, 30), turn("curve", -50, 1200, 30), straight("highway", 600, 28),
        straight("slow", 400, 14), straight("highway", 900, 30), turn("exit", -70, 150, 16), straight("street", 200, 12),
        turn("corner", 90, 12, 6), straight("street", 150, 11), stop("parked", 60),
    ],
    "canyon": [
        stop("parked", 40), straight("canyon", 180, 10), turn("corner", 70, 12, 6), straight("canyon", 150, 10),
        turn("corner", -110, 10, 5), straight("canyon", 200, 11), turn("corner", 110, 12, 6), straight("canyon", 160, 10),
        turn("uturn", 180, 9, 4), straight("canyon", 220, 11), turn("corner", -70, 12, 6), straight("canyon", 140, 10),
        stop("redlight", 30), straight("canyon", 200, 11), stop("parked", 60),
    ],
}


def random_route(seed, minutes=6):
    """A road never drawn before: straight legs, turns at any angle and radius, roundabouts,
    S-curves, stops and stop-and-go, for about `minutes` of driving, parked at both ends."""
    rnd = random.Random(seed)
    legs, seconds = [stop("parked", rnd.uniform(30, 90))], 0.0
    while seconds < minutes * 60:
        kind = rnd.random()
        if kind < 0.35:
            speed = rnd.uniform(8, 28)
            metres = rnd.uniform(60, 700)
            legs.append(straight("street" if speed < 18 else "highway", metres, speed))
            seconds += metres / speed
        elif kind < 0.7:
            radius = rnd.choice([rnd.uniform(8, 25), rnd.uniform(25, 120), rnd.uniform(120, 600)])
            degrees = rnd.uniform(15, 175) * rnd.choice([-1, 1])
            speed = min(28, max(4, math.sqrt(2.5 * radius)))
            legs.append(turn("corner" if radius < 60 else "curve", degrees, radius, speed))
            seconds += abs(math.radians(degrees)) * radius / speed
        elif kind < 0.8:
            radius = rnd.uniform(12, 25)
            legs += [turn("roundabout-in", -30, 15, 7), turn("roundabout", rnd.choice([90, 180, 270, 330]), radius, 7),
                     turn("roundabout-out", -30, 15, 8)]
            seconds += 40
        elif kind < 0.9:
            swing = rnd.uniform(30, 80)
            radius = rnd.uniform(25, 70)
            legs += [turn("s-curve", swing, radius, 10), turn("s-curve", -2 * swing, radius, 10), turn("s-curve", swing, radius, 10)]
            seconds += 4 * math.radians(swing) * radius / 10
        else:
            for _ in range(rnd.randint(2, 6)):
                legs += [stop("stop-and-go", rnd.uniform(3, 10)), straight("stop-and-go", rnd.uniform(10, 40), rnd.uniform(3, 6))]
            legs.append(stop("redlight", rnd.uniform(10, 40)))
            seconds += 60
    legs += [straight("street", rnd.uniform(50, 200), 10), stop("parked", rnd.uniform(30, 90))]
    return legs


def move(lat, lon, course, metres):
    p1, l1, th, d = math.radians(lat), math.radians(lon), math.radians(course), metres / EARTH
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(th))
    l2 = l1 + math.atan2(math.sin(th) * math.sin(d) * math.cos(p1), math.cos(d) - math.sin(p1) * math.sin(p2))
    return math.degrees(p2), (math.degrees(l2) + 540) % 360 - 180


def offset(lat, lon, north, east):
    return lat + north / 111195.08, lon + east / (111195.08 * math.cos(math.radians(lat)))


def sentence(body):
    c = 0
    for ch in body:
        c ^= ord(ch)
    return "$%s*%02X" % (body, c)


def angle(value, degrees_digits, hemispheres):
    a = abs(value)
    whole = int(a)
    return ("%0*d%08.5f" % (degrees_digits, whole, (a - whole) * 60), hemispheres[0] if value >= 0 else hemispheres[1])


def simulate(legs, rate):
    """Yields (phase, lat, lon, speed, course) per epoch."""
    dt = 1.0 / rate
    lat, lon, course, speed = 52.47, 13.42, 20.0, 0.0
    for index, (kind, phase, amount, target, radius) in enumerate(legs):
        # A driver brakes before a turn (at 2.5 m/s^2) to the turn's own speed, rather than
        # entering it fast and turning faster than any vehicle can.
        following = legs[index + 1] if index + 1 < len(legs) else None
        turn_speed = following[3] if following and following[0] == "turn" else None
        if kind == "stop":
            for _ in range(int(amount * rate)):
                speed = max(0.0, speed - 3.0 * dt)
                if speed > 0:
                    lat, lon = move(lat, lon, course, speed * dt)
                yield phase, lat, lon, speed, course
            speed = 0.0
            continue
        done = 0.0
        total = amount if kind == "straight" else abs(math.radians(amount)) * radius
        while done < total:
            goal = target
            if turn_speed is not None:
                goal = min(goal, math.sqrt(turn_speed ** 2 + 2 * 2.5 * max(0.0, total - done)))
            speed += max(-3.0 * dt, min(2.0 * dt, goal - speed))
            step = max(0.3, speed) * dt
            if kind == "turn":
                course = (course + math.copysign(math.degrees(step / radius), amount)) % 360
            lat, lon = move(lat, lon, course, step)
            done += step
            speed = max(speed, 0.3)
            yield phase, lat, lon, speed, course


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--route", choices=sorted(ROUTES) + ["random"], required=True,
                    help="random: a road drawn from --seed (see random_route)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--rate", type=int, default=1, choices=(1, 5, 10))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", default="2026-11-02T09:00:00Z")
    a = ap.parse_args()
    rnd = random.Random(a.seed * 1000 + a.rate)
    start = datetime.datetime.fromisoformat(a.start.replace("Z", "+00:00"))
    dt = 1.0 / a.rate
    drift_n = drift_e = 0.0
    burst = 0
    burst_n = burst_e = 0.0
    with open(a.out, "w") as out, open(a.truth, "w") as truth:
        out.write("# gpstrackd's own synthetic drive (%s, %d Hz, seed %d); see Tests/Routes/make_routes.py\n" % (a.route, a.rate, a.seed))
        legs = random_route(a.seed) if a.route == "random" else ROUTES[a.route]
        for index, (phase, lat, lon, speed, course) in enumerate(simulate(legs, a.rate)):
            t = start + datetime.timedelta(seconds=index * dt)
            # The receiver's error: a wandering offset (its time constant ~10 s whatever the rate)
            # plus noise; more when parked; in the canyon, bursts of reflected signal.
            k = math.exp(-dt / 10)
            sigma = (2.5 if speed < 0.5 else 1.2) * math.sqrt(1 - k * k) * 2.3
            drift_n = k * drift_n + rnd.gauss(0, sigma)
            drift_e = k * drift_e + rnd.gauss(0, sigma)
            if a.route in ("canyon", "random") and burst == 0 and phase in ("canyon", "street") and rnd.random() < 0.02 * dt:
                burst = int(rnd.uniform(3, 6) * a.rate)
                size, direction = rnd.uniform(10, 25), rnd.uniform(0, 2 * math.pi)
                burst_n, burst_e = size * math.cos(direction), size * math.sin(direction)
            extra_n, extra_e = (burst_n, burst_e) if burst > 0 else (0.0, 0.0)
            burst = max(0, burst - 1)
            noise = 1.0 if speed >= 0.5 else 1.8
            mlat, mlon = offset(lat, lon, drift_n + extra_n + rnd.gauss(0, noise), drift_e + extra_e + rnd.gauss(0, noise))
            # The receiver reports each epoch of a burst, its last too, with part of the burst in
            # its error (HDOP, GST).
            error = math.hypot(drift_n, drift_e) + math.hypot(extra_n, extra_e) * 0.6 + 2.0
            hms = t.strftime("%H%M%S") + ".%02d" % (t.microsecond // 10000)
            date = t.strftime("%d%m%y")
            la, ns = angle(mlat, 2, "NS")
            lo, ew = angle(mlon, 3, "EW")
            knots = speed * 1.943844
            shown_course = course if speed > 0.5 else (course + rnd.gauss(0, 40)) % 360
            hdop = max(0.7, error / 5)
            out.write(sentence("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A" % (hms, la, ns, lo, ew, knots, shown_course, date)) + "\n")
            out.write(sentence("GPGGA,%s,%s,%s,%s,%s,1,09,%.1f,%.1f,M,44.5,M,," % (hms, la, ns, lo, ew, hdop, 35 + rnd.gauss(0, 2))) + "\n")
            out.write(sentence("GPGSA,A,3,02,05,07,09,13,16,20,23,26,,,,%.1f,%.1f,%.1f" % (hdop * 1.4, hdop, hdop * 1.2)) + "\n")
            out.write(sentence("GPGST,%s,%.1f,%.1f,%.1f,0.0,%.1f,%.1f,%.1f" % (hms, error, error, error, error, error, error * 1.6)) + "\n")
            out.write(sentence("GPVTG,%.1f,T,%.1f,M,%.2f,N,%.2f,K,A" % (shown_course, (shown_course - 4.6) % 360, knots, speed * 3.6)) + "\n")
            truth.write(json.dumps({"time": t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000), "phase": phase,
                                    "lat": round(lat, 8), "lon": round(lon, 8), "speed": round(speed, 2),
                                    "course": round(course, 1), "fix": True}) + "\n")


if __name__ == "__main__":
    main()
