#!/usr/bin/env python3
"""The project's own stand-in for the Amazon Location tracker API and Cognito guest access.

It speaks the wire protocol of BatchUpdateDevicePosition, GetDevicePositionHistory,
GetDevicePosition, GetId and GetCredentialsForIdentity, and checks every tracker request's SigV4
signature with botocore's SigV4Auth, an implementation independent of gpstrackd's signer.

    python3 tracker_emulator.py [--port 0] [--access-key K --secret-key S] [--tls-cert PEM --tls-key PEM [--tls-max-version 1.2]]

Like the service, a tracker applies its PositionFiltering before storing an update, silently:
TimeBased (one stored position per 30 s of SampleTime per device), DistanceBased (an update less
than 30 m from the device's last stored position is ignored), AccuracyBased (moved less than both
horizontal accuracies summed), or none (the default here: tests of other things need every
update). DescribeTracker answers GET /tracking/v0/trackers/NAME with the mode.

The first line on stdout is 'listening on http://127.0.0.1:PORT' (https://localhost:PORT with TLS). Test controls (loopback, unsigned):
    GET  /_emu/positions   every stored update, in arrival order (?all=1: every accepted one, with "Stored")
    GET  /_emu/stats       counters
    GET  /_emu/headers     the header names of the last tracker request, in the order sent
    POST /_emu/config      JSON, any of: credential_ttl_s, throttle_next, item_errors {DeviceId: Code},
                           history_page_size, and faults: latency_ms, error_rate (5xx), drop_rate
                           (the connection closes before the request is processed), lose_rate
                           (stored, then the connection closes without an answer), item_error_rate
                           (ThrottlingError/InternalServerError items), rps (429 once that many
                           were served in the last second, as the service's quota and
                           ../shared/tracker-sim count: throttled requests use none of it),
                           poison_items [SampleTime] (ValidationError items), poison_requests
                           [SampleTime] (the whole request is a 400), position_filtering
                           (TimeBased|DistanceBased|AccuracyBased|none), tracker_name (another
                           name is ResourceNotFound), describe_denied (DescribeTracker is a 403),
                           describe_failing (DescribeTracker is a 503)
"""
import argparse, datetime, hashlib, json, math, random, re, sys, threading, time, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

AUTH = re.compile(r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                  r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$")
BATCH = re.compile(r"^/tracking/v0/trackers/([^/]+)/positions$")
HISTORY = re.compile(r"^/tracking/v0/trackers/([^/]+)/devices/([^/]+)/list-positions$")
LATEST = re.compile(r"^/tracking/v0/trackers/([^/]+)/devices/([^/]+)/positions/latest$")
TRACKER = re.compile(r"^/tracking/v0/trackers/([^/]+)$")
FILTERING = ("TimeBased", "DistanceBased", "AccuracyBased", "none")


def metres(a, b):
    """Haversine distance between two [longitude, latitude] positions."""
    lon1, lat1, lon2, lat2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1.0, math.sqrt(h)))
MAX_SKEW = datetime.timedelta(minutes=5)


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def parse_iso(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Emulator:
    def __init__(self, key, secret):
        self.lock = threading.Lock()
        self.keys = {key: (secret, None, None)}   # access key -> (secret, token, expiry)
        self.positions = []                        # accepted updates, arrival order
        self.config = dict(credential_ttl_s=3600, throttle_next=0, item_errors={}, history_page_size=100,
                           latency_ms=0, error_rate=0.0, drop_rate=0.0, lose_rate=0.0, item_error_rate=0.0, rps=0,
                           poison_items=[], poison_requests=[], position_filtering="none", tracker_name=None,
                           describe_denied=False, describe_failing=False)
        self.stats = dict(requests=0, signature_failures=0, expired=0, skewed=0, throttled=0,
                          identities=0, credentials_issued=0, batches=0, errors=0, dropped=0, lost=0,
                          item_errors=0, max_requests_per_second=0, describes=0)
        self.last_headers = []  # header names of the last tracker request, as sent
        self.last_signed = None  # the SignedHeaders of the last request checked for a signature
        self.arrivals = []  # monotonic arrival times of tracker requests
        self.served = []  # those not throttled, in the last second: what the rps limit counts
        self.random = random.Random(7)

    def arrive(self):
        """Records a tracker request; returns how many arrived in the last second, this one included."""
        with self.lock:
            t = time.monotonic()
            self.arrivals.append(t)
            while self.arrivals and self.arrivals[0] <= t - 1.0:
                self.arrivals.pop(0)
            self.stats["max_requests_per_second"] = max(self.stats["max_requests_per_second"], len(self.arrivals))
            return len(self.arrivals)

    def count(self, name):
        with self.lock:
            self.stats[name] += 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tracker-emulator"

    def log_message(self, *args):
        pass

    def reply(self, status, body, error_type=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if error_type:
            self.send_header("x-amzn-ErrorType", error_type + ":http://internal.amazon.com/coral/com.amazonaws.geo/")
        self.end_headers()
        self.wfile.write(data)

    def fail(self, status, error_type, message):
        self.reply(status, {"message": message}, error_type)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def handle_any(self, method):
        # When the request arrived: its updates' ReceivedTime. Stamped before the signature check
        # (tens of ms of Python, under a lock other devices' requests share), as the service
        # stamps receipt, not the end of its own work.
        self.arrived = now()
        emu = self.server.emulator
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        if path.startswith("/_emu/"):
            return self.admin(method, path, body)
        emu.count("requests")
        with emu.lock:
            emu.last_headers = list(self.headers.keys())
        target = self.headers.get("X-Amz-Target", "")
        if target.startswith("AWSCognitoIdentityService."):
            return self.cognito(target.split(".", 1)[1], body)
        in_last_second = emu.arrive()
        if not self.authorized(method, body):
            return
        with emu.lock:
            latency = emu.config["latency_ms"] / 1000.0
            limit = emu.config["rps"]
            fail = emu.random.random() < emu.config["error_rate"]
            drop = emu.random.random() < emu.config["drop_rate"]
        if latency:
            time.sleep(latency)
        if drop:
            emu.count("dropped")
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fail:
            emu.count("errors")
            return self.fail(503, "InternalServerException", "injected service error")
        with emu.lock:
            moment = time.monotonic()
            while emu.served and emu.served[0] <= moment - 1.0:
                emu.served.pop(0)
            forced = emu.config["throttle_next"] > 0
            if forced or (limit and len(emu.served) >= limit):
                emu.config["throttle_next"] = max(0, emu.config["throttle_next"] - 1)
                emu.stats["throttled"] += 1
                self.send_response(429)
                data = json.dumps({"message": "Rate exceeded"}).encode()
                self.send_header("x-amzn-ErrorType", "ThrottlingException:")
                if forced:  # the quota's answer carries none, as the service's and tracker-sim's
                    self.send_header("Retry-After", "2")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            emu.served.append(moment)
        m = BATCH.match(path)
        if m and method == "POST":
            return self.batch(unquote(m.group(1)), body)
        m = HISTORY.match(path)
        if m and method == "POST":
            return self.history(unquote(m.group(1)), unquote(m.group(2)), body)
        m = LATEST.match(path)
        if m and method == "GET":
            return self.latest(unquote(m.group(1)), unquote(m.group(2)))
        m = TRACKER.match(path)
        if m and method == "GET":
            return self.describe(unquote(m.group(1)))
        self.fail(404, "ResourceNotFoundException", "no such operation: %s %s" % (method, path))

    # --- SigV4, checked by botocore ---------------------------------------------------------

    def authorized(self, method, body):
        emu = self.server.emulator
        m = AUTH.match(self.headers.get("Authorization", ""))
        with emu.lock:
            emu.last_signed = m.group(5) if m else None
        if not m:
            emu.count("signature_failures")
            self.fail(403, "MissingAuthenticationTokenException", "Missing Authentication Token")
            return False
        key, date, region, service, signed, signature = m.groups()
        with emu.lock:
            entry = emu.keys.get(key)
        if entry is None:
            self.fail(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
            return False
        secret, token, expiry = entry
        if token is not None and self.headers.get("X-Amz-Security-Token") != token:
            self.fail(403, "UnrecognizedClientException", "The security token included in the request is invalid.")
            return False
        if expiry is not None and now() >= expiry:
            emu.count("expired")
            self.fail(403, "ExpiredTokenException", "The security token included in the request is expired")
            return False
        amz_date = self.headers.get("X-Amz-Date", "")
        try:
            signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            self.fail(400, "ValidationException", "X-Amz-Date is missing or malformed")
            return False
        current = now()
        if abs(current - signed_at) > MAX_SKEW:
            emu.count("skewed")
            earlier = signed_at < current
            text = ("Signature expired: %s is now earlier than %s (%s - 5 min.)" if earlier
                    else "Signature not yet current: %s is still later than %s (%s + 5 min.)")
            bound = (current - MAX_SKEW) if earlier else (current + MAX_SKEW)
            f = "%Y%m%dT%H%M%SZ"
            self.fail(403, "InvalidSignatureException", text % (amz_date, bound.strftime(f), current.strftime(f)))
            return False
        headers = {}
        for name in signed.split(";"):
            values = self.headers.get_all(name) or []
            headers[name] = ",".join(values)
        request = AWSRequest(method=method, url="http://%s%s" % (self.headers.get("Host"), self.path),
                             headers=headers, data=body)
        request.context["timestamp"] = amz_date
        auth = SigV4Auth(Credentials(key, secret, token), service, region)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if expected != signature or service != "geo":
            emu.count("signature_failures")
            self.fail(403, "InvalidSignatureException",
                      "The request signature we calculated does not match the signature you provided. "
                      "Check your AWS Secret Access Key and signing method.")
            return False
        return True

    # --- Tracker operations -------------------------------------------------------------------

    def describe(self, tracker):
        emu = self.server.emulator
        emu.count("describes")
        if emu.config["describe_failing"]:
            return self.fail(503, "InternalServerException", "injected: DescribeTracker failed")
        if emu.config["describe_denied"]:
            return self.fail(403, "AccessDeniedException",
                             "User is not authorized to perform: geo:DescribeTracker on resource: tracker/%s" % tracker)
        if emu.config["tracker_name"] and tracker != emu.config["tracker_name"]:
            return self.fail(404, "ResourceNotFoundException", "Tracker %s not found" % tracker)
        answer = {"TrackerName": tracker, "TrackerArn": "arn:aws:geo:eu-west-1:123456789012:tracker/%s" % tracker,
                  "Description": "", "PricingPlan": "RequestBasedUsage", "CreateTime": iso(now()), "UpdateTime": iso(now())}
        if emu.config["position_filtering"] != "none":
            answer["PositionFiltering"] = emu.config["position_filtering"]
        self.reply(200, answer)

    def passes_filtering(self, tracker, update):
        """The tracker's PositionFiltering against the device's stored positions (under the lock)."""
        emu = self.server.emulator
        mode = emu.config["position_filtering"]
        if mode == "none":
            return True
        device = update["DeviceId"]
        stored = [p for p in emu.positions if p["Tracker"] == tracker and p["DeviceId"] == device and p["Stored"]]
        t = parse_iso(update["SampleTime"])
        if mode == "TimeBased":
            return all(abs((parse_iso(p["SampleTime"]) - t).total_seconds()) >= 30 for p in stored)
        if not stored:
            return True
        last = max(stored, key=lambda p: parse_iso(p["SampleTime"]))
        moved = metres(last["Position"], update["Position"])
        if mode == "DistanceBased":
            return moved >= 30
        accuracy = lambda p: (p.get("Accuracy") or {}).get("Horizontal", 0)
        return moved >= accuracy(last) + accuracy(update)

    def batch(self, tracker, body):
        emu = self.server.emulator
        if emu.config["tracker_name"] and tracker != emu.config["tracker_name"]:
            return self.fail(404, "ResourceNotFoundException", "Tracker %s not found" % tracker)
        try:
            updates = json.loads(body)["Updates"]
        except (ValueError, KeyError, TypeError):
            return self.fail(400, "ValidationException", "body must be {\"Updates\": [...]}")
        if not 1 <= len(updates) <= 10:
            return self.fail(400, "ValidationException", "Updates must have 1 to 10 items")
        errors = []
        received = iso(self.arrived)
        if any(u.get("SampleTime") in emu.config["poison_requests"] for u in updates):
            return self.fail(400, "ValidationException", "injected: the request holds a poisoned update")
        with emu.lock:
            emu.stats["batches"] += 1
            lose = emu.random.random() < emu.config["lose_rate"]
            for update in updates:
                device, sample = update.get("DeviceId"), update.get("SampleTime")
                position = update.get("Position")
                properties = update.get("PositionProperties") or {}
                code = emu.config["item_errors"].get(device)
                problem = None
                if not isinstance(position, list) or len(position) != 2:
                    problem = ("ValidationError", "Position must be [longitude, latitude]")
                elif not -180 <= position[0] <= 180 or not -90 <= position[1] <= 90:
                    problem = ("ValidationError", "Position out of range")
                elif len(properties) > 4 or any(len(v) > 150 for v in properties.values()):
                    problem = ("ValidationError", "PositionProperties: at most 4 entries of 150 characters")
                elif code:
                    problem = (code, "injected %s" % code)
                elif sample in emu.config["poison_items"]:
                    problem = ("ValidationError", "injected: poisoned SampleTime")
                elif emu.random.random() < emu.config["item_error_rate"]:
                    problem = (emu.random.choice(["ThrottlingError", "InternalServerError"]), "injected item error")
                    emu.stats["item_errors"] += 1
                if problem:
                    errors.append({"DeviceId": device, "SampleTime": sample,
                                   "Error": {"Code": problem[0], "Message": problem[1]}})
                    continue
                entry = {"Tracker": tracker, "DeviceId": device, "SampleTime": sample,
                         "ReceivedTime": received, "Position": position,
                         "Accuracy": update.get("Accuracy"), "PositionProperties": properties}
                entry["Stored"] = self.passes_filtering(tracker, entry)
                emu.positions.append(entry)
            if lose:
                emu.stats["lost"] += 1
        if lose:
            # Stored, but the answer is lost: the client must retry, and a duplicate arrives.
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self.reply(200, {"Errors": errors})

    def stored(self, tracker, device):
        emu = self.server.emulator
        with emu.lock:
            return [p for p in emu.positions if p["Tracker"] == tracker and p["DeviceId"] == device and p["Stored"]]

    def history(self, tracker, device, body):
        request = json.loads(body or b"{}")
        items = self.stored(tracker, device)
        if "StartTimeInclusive" in request:
            items = [p for p in items if parse_iso(p["SampleTime"]) >= parse_iso(request["StartTimeInclusive"])]
        if "EndTimeExclusive" in request:
            items = [p for p in items if parse_iso(p["SampleTime"]) < parse_iso(request["EndTimeExclusive"])]
        items.sort(key=lambda p: parse_iso(p["SampleTime"]))
        size = min(int(request.get("MaxResults", 100)), self.server.emulator.config["history_page_size"])
        start = int(request.get("NextToken") or 0)
        page = items[start:start + size]
        answer = {"DevicePositions": [self.public(p) for p in page]}
        if start + size < len(items):
            answer["NextToken"] = str(start + size)
        self.reply(200, answer)

    def latest(self, tracker, device):
        items = self.stored(tracker, device)
        if not items:
            return self.fail(404, "ResourceNotFoundException", "no position for device %s" % device)
        self.reply(200, self.public(max(items, key=lambda p: parse_iso(p["SampleTime"]))))

    @staticmethod
    def public(p):
        out = {k: p[k] for k in ("DeviceId", "SampleTime", "ReceivedTime", "Position", "PositionProperties")}
        if p.get("Accuracy"):
            out["Accuracy"] = p["Accuracy"]
        return out

    # --- Cognito guest access -------------------------------------------------------------------

    def cognito(self, action, body):
        emu = self.server.emulator
        request = json.loads(body or b"{}")
        if action == "GetId":
            pool = request.get("IdentityPoolId", "")
            if ":" not in pool:
                return self.reply(400, {"__type": "ValidationException", "message": "IdentityPoolId"})
            emu.count("identities")
            return self.reply(200, {"IdentityId": pool.split(":")[0] + ":" + str(uuid.uuid4())})
        if action == "GetCredentialsForIdentity":
            identity = request.get("IdentityId", "")
            if ":" not in identity:
                return self.reply(400, {"__type": "ResourceNotFoundException", "message": "Identity not found"})
            key = "ASIA" + uuid.uuid4().hex[:16].upper()
            secret = uuid.uuid4().hex + uuid.uuid4().hex
            token = "token-" + uuid.uuid4().hex
            with emu.lock:
                expiry = now() + datetime.timedelta(seconds=emu.config["credential_ttl_s"])
                emu.keys[key] = (secret, token, expiry)
                emu.stats["credentials_issued"] += 1
            return self.reply(200, {"IdentityId": identity, "Credentials": {
                "AccessKeyId": key, "SecretKey": secret, "SessionToken": token,
                "Expiration": expiry.timestamp()}})
        self.reply(400, {"__type": "UnknownOperationException", "message": action})

    # --- Test controls ----------------------------------------------------------------------------

    def admin(self, method, path, body):
        emu = self.server.emulator
        if path == "/_emu/positions":
            everything = "all=1" in (self.path.split("?", 1) + [""])[1]
            with emu.lock:
                return self.reply(200, {"positions": [p for p in emu.positions if everything or p["Stored"]]})
        if path == "/_emu/stats":
            with emu.lock:
                return self.reply(200, dict(emu.stats))
        if path == "/_emu/headers":
            with emu.lock:
                return self.reply(200, {"headers": list(emu.last_headers), "signed": emu.last_signed})
        if path == "/_emu/config" and method == "POST":
            update = json.loads(body or b"{}")
            if update.get("position_filtering", "none") not in FILTERING:
                return self.reply(400, {"message": "position_filtering must be one of %s" % (FILTERING,)})
            with emu.lock:
                emu.config.update(update)
                return self.reply(200, dict(emu.config))
        self.reply(404, {"message": "unknown control"})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--access-key", default="AKIDEMULATOR")
    ap.add_argument("--secret-key", default="emulator-secret-key")
    ap.add_argument("--tls-cert", help="serve https with this certificate (PEM)")
    ap.add_argument("--tls-key", help="the certificate's private key (PEM)")
    ap.add_argument("--tls-max-version", choices=["1.2", "1.3"], default="1.3",
                    help="the newest TLS version served (1.2: a server that has not moved to TLS 1.3)")
    ap.add_argument("--latency-ms", type=int, default=0,
                    help="delay each tracker answer (as /_emu/config's latency_ms; its controls speak plain http only)")
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.emulator = Emulator(args.access_key, args.secret_key)
    server.emulator.config["latency_ms"] = args.latency_ms
    url = "http://127.0.0.1:%d"
    if args.tls_cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        context.maximum_version = ssl.TLSVersion.TLSv1_2 if args.tls_max_version == "1.2" else ssl.TLSVersion.TLSv1_3
        server.socket = context.wrap_socket(server.socket, server_side=True)
        url = "https://localhost:%d"
    print("listening on " + url % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
