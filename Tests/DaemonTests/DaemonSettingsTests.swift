import Daemon
import Foundation
import Testing
import TrackingCore

@Suite struct DaemonSettingsTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gpstrackd-\(UUID().uuidString.prefix(8)).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func load(_ flags: [String] = [], environment: [String: String] = [:]) throws(ConfigurationError) -> DaemonSettings.Loaded {
        try DaemonSettings.load(flags: flags, environment: environment, hostname: "van-3")
    }

    @Test func defaultsWithoutAnything() throws {
        let loaded = try load(["--config", try Self.file("")])
        let c = loaded.configuration
        #expect(c.deviceID == "van-3", "the hostname")
        #expect(c.stateDirectory == "/var/lib/gpstrackd")
        #expect(c.sink == .file, "no tracker: positions go to a file")
        #expect(c.effectiveFilePath == "/var/lib/gpstrackd/positions.jsonl")
        #expect(c.gpsd.description == "127.0.0.1:2947")
        #expect(c.batchSize == 10 && c.maxInFlight == 4 && c.maxRequestRate == 10 && c.uploadInterval == 5)
        #expect(c.filter == FilterConfiguration())
        #expect(c.burstWindow == 0.1)
        #expect(c.connectionKeepalive == 45, "under the 60 s idle timeout of many NATs")
        #expect(try load(["--connection-keepalive", "0"]).configuration.connectionKeepalive == 0, "0: no keepalives")
        #expect(try load(["--burst-window", "0"]).configuration.burstWindow == 0, "0 reads each message as it comes")
        #expect(c.accuracySource == .gst, "the receiver's own GST where it sends one")
        #expect(try load(["--accuracy-source", "gpsd"]).configuration.accuracySource == .gpsd)
        #expect(try load([], environment: ["GPSTRACKD_ACCURACY_SOURCE": "gpsd"]).configuration.accuracySource == .gpsd)
    }

    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() throws {
        let path = try Self.file("# fleet box\nbatch-size = 3\nmax-in-flight = 2\nupload-interval = 7 # seconds\n")
        let env = ["GPSTRACKD_BATCH_SIZE": "4", "GPSTRACKD_MAX_IN_FLIGHT": "6"]
        let loaded = try load(["--config", path, "--batch-size", "5"], environment: env)
        #expect(loaded.configuration.batchSize == 5)
        #expect(loaded.sources["batch-size"] == .flag(name: "--batch-size"))
        #expect(loaded.configuration.maxInFlight == 6)
        #expect(loaded.sources["max-in-flight"] == .environment(variable: "GPSTRACKD_MAX_IN_FLIGHT"))
        #expect(loaded.configuration.uploadInterval == 7)
        #expect(loaded.sources["upload-interval"] == .file(path: path, line: 4))
        #expect(loaded.sources["max-request-rate"] == nil)
    }

    @Test func aTrackerMakesTheSinkAmazonLocation() throws {
        let loaded = try load(["--config", try Self.file("tracker = fleet\nregion = eu-west-1\n")])
        #expect(loaded.configuration.sink == .awsLocation)
        let fromPool = try load(["--config", try Self.file("tracker = fleet\nidentity-pool-id = eu-central-1:abc\n")])
        #expect(fromPool.configuration.region == "eu-central-1", "the region comes from the identity pool id")
    }

    @Test func filterKeysAreConfigurationKeys() throws {
        let loaded = try load(["--max-deviation", "6", "--min-angle", "off"], environment: ["GPSTRACKD_STATIONARY_INTERVAL": "600"])
        #expect(loaded.configuration.filter.maxDeviation == 6)
        #expect(loaded.configuration.filter.stationaryInterval == 600)
    }

    struct BadCase: Sendable, CustomStringConvertible {
        var file: String
        var flags: [String] = []
        var environment: [String: String] = [:]
        var message: String
        var description: String { message }
    }

    static let badCases: [BadCase] = [
        BadCase(file: "region = eu-west-1\n\ncolour = red\n", message: ":3: colour (value not shown): unknown setting; see gpstrackd --help"),
        BadCase(file: "# x\nbatch-size = 11\n", message: ":2: batch-size = '11': must be a whole number from 1 to 10"),
        BadCase(file: "burst-window = 2\n", message: ":1: burst-window = '2': must be a number from 0 to 1"),
        BadCase(file: "batch-size\n", message: ":1: batch-size: expected key = value"),
        BadCase(file: "accuracy-source = receiver\n", message: ":1: accuracy-source = 'receiver': must be gpsd or gst"),
        BadCase(file: "", environment: ["GPSTRACKD_MAX_REQUEST_RATE": "100"],
                message: "environment GPSTRACKD_MAX_REQUEST_RATE: max-request-rate = '100': must be a number from 0.1 to 50"),
        BadCase(file: "", environment: ["GPSTRACKD_COLOUR": "red"], message: "environment GPSTRACKD_COLOUR: GPSTRACKD_COLOUR (value not shown): unknown setting"),
        BadCase(file: "", flags: ["--gpsd", "nope:0"], message: "flag --gpsd: gpsd = 'nope:0': must be HOST:PORT, e.g. 127.0.0.1:2947"),
        BadCase(file: "", flags: ["--log-level", "loud"], message: "flag --log-level: log-level = 'loud': must be one of trace, debug, info, notice, warning, error, critical"),
        BadCase(file: "", flags: ["--endpoint", "http://10.1.2.3:80"],
                message: "flag --endpoint: endpoint = 'http://10.1.2.3:80': uses plain http, which is allowed only for loopback test endpoints; use https"),
        BadCase(file: "sink = aws-location\n", message: ":1: tracker: sink aws-location needs the tracker's name (tracker = NAME)"),
        BadCase(file: "tracker = fleet\n", message: ":1: region: the tracker's region is needed (region = eu-west-1, or AWS_REGION)"),
        BadCase(file: "secret-access-key = abc\n", message: ":1: access-key-id: secret-access-key is set without access-key-id"),
        BadCase(file: "secret-access-key =\n", message: ":1: secret-access-key = <redacted>: must not be empty"),
        BadCase(file: "stopped-speed = 3\n", message: ":1: stopped-speed: stopped-speed (3.0) must be below moving-speed (2.0)"),
        BadCase(file: "position-properties = speed,course,heading,altitude,mode\n", message: "position-properties = 'speed,course,heading,altitude,mode': at most 4 (the tracker's limit)"),
        BadCase(file: "", flags: ["--batch-size"], message: "flag --batch-size: batch-size: needs a value"),
    ]

    @Test(arguments: badCases)
    func badConfigurationNamesKeySourceAndWhatIsAllowed(_ bad: BadCase) throws {
        let path = try Self.file(bad.file)
        do {
            _ = try load(["--config", path] + bad.flags, environment: bad.environment)
            Issue.record("accepted: \(bad.file) \(bad.flags) \(bad.environment)")
        } catch {
            #expect(error.description.contains(bad.message), "\(error.description)")
            #expect(!error.description.contains("abc"))
        }
    }

    @Test func aMissingExplicitFileIsAnError() {
        #expect(throws: ConfigurationError.self) { try load(["--config", "/nonexistent/gpstrackd.conf"]) }
        #expect(throws: ConfigurationError.self) { try load(environment: ["GPSTRACKD_CONFIG": "/nonexistent/gpstrackd.conf"]) }
    }

    @Test func checkConfigPrintsSourcesAndRedactsSecrets() throws {
        let path = try Self.file("tracker = fleet\nregion = eu-west-1\naccess-key-id = AKIAFLEET\nsecret-access-key = very-secret\n")
        let loaded = try load(["--config", path, "--max-deviation", "8"])
        let text = DaemonSettings.render(loaded)
        #expect(text.contains("secret-access-key = <redacted>"))
        #expect(!text.contains("very-secret"))
        #expect(text.contains("sink = aws-location"))
        #expect(text.contains("# \(path):1"))
        #expect(text.contains("max-deviation = 8"))
        #expect(text.contains("# flag --max-deviation"))
        #expect(text.contains("batch-size = 10"))
    }
}

/// Configuration mistakes an operator makes, each said clearly, none echoing a secret.
@Suite struct ConfigurationMistakeTests {
    func load(_ flags: [String] = [], environment: [String: String] = [:]) throws(ConfigurationError) -> DaemonSettings.Loaded {
        try DaemonSettings.load(flags: flags, environment: environment, hostname: "van-3")
    }

    @Test func aMistypedSecretKeyIsNeverEchoed() throws {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        let file = try DaemonSettingsTests.file("aws_secret_access_key = \(secret)\n")
        let noEquals = try DaemonSettingsTests.file("secret-access-key \(secret)\n")
        let attempts: [() throws -> Void] = [
            { _ = try self.load(["--config", file]) },
            { _ = try self.load(["--config", noEquals]) },
            { _ = try self.load(["--config", "/dev/null"], environment: ["GPSTRACKD_SECRET_KEY": secret]) },
            { _ = try self.load(["--config", "/dev/null", "--secret-key", secret]) },
            { _ = try self.load(["--config", "/dev/null", "--Secret-Access-Key=\(secret)"]) },
            { _ = try self.load(["--config", "/dev/null", secret]) },
        ]
        for attempt in attempts {
            do {
                try attempt()
                Issue.record("accepted")
            } catch {
                let text = "\(error)"
                #expect(!text.contains(secret) && !text.contains("EXAMPLEKEY"), "\(text)")
                #expect(text.contains("unknown setting") || text.contains("expected key = value") || text.contains("unexpected argument"), "\(text)")
            }
        }
    }

    @Test func windowsLineEndingsAndAByteOrderMarkReadAsLines() throws {
        let file = try DaemonSettingsTests.file("\u{FEFF}device-id = truck7\r\nmax-interval = 30\r\n# note\r\nbatch-size = 4\r\n")
        let c = try load(["--config", file]).configuration
        #expect(c.deviceID == "truck7")
        #expect(c.filter.maxInterval == 30)
        #expect(c.batchSize == 4)
    }

    @Test func anInvisibleCharacterInAKeyIsShown() throws {
        let file = try DaemonSettingsTests.file("device\u{200B}-id = truck7\n")
        do {
            _ = try load(["--config", file])
            Issue.record("accepted")
        } catch {
            #expect(error.description.contains("device\\u{200B}-id"), "\(error)")
        }
    }

    @Test func aKeySetTwiceSaysWhichLineWins() throws {
        let file = try DaemonSettingsTests.file("device-id = truck7\nbatch-size = 3\ndevice-id = truck8\n")
        let loaded = try load(["--config", file])
        #expect(loaded.configuration.deviceID == "truck8")
        #expect(loaded.warnings == ["\(file):3: device-id is set again (first at \(file):1); the later one wins"])
        #expect(try load(["--config", "/dev/null", "--device-id", "a"]).warnings.isEmpty)
    }

    @Test func wholeNumberKeysRefuseFractions() {
        #expect(throws: ConfigurationError.self) { try self.load(["--config", "/dev/null", "--outlier-confirmations", "2.5"]) }
        #expect((try? load(["--config", "/dev/null", "--outlier-confirmations", "4"]))?.configuration.filter.outlierConfirmations == 4)
    }

    @Test func aDirectoryOrAnEndlessFileIsNotAConfiguration() {
        for (path, words) in [("/tmp", "is a directory"), ("/dev/zero", "is larger than 1024 KiB")] {
            do {
                _ = try load(["--config", path])
                Issue.record("accepted \(path)")
            } catch {
                #expect(error.key == "config" && error.description.contains(words), "\(error)")
            }
        }
    }

    @Test func aMetricsFileInAMissingDirectoryIsAnError() {
        do {
            _ = try load(["--config", "/dev/null", "--metrics-file", "/nonexistent-gpstrackd/metrics.prom"])
            Issue.record("accepted")
        } catch {
            #expect(error.key == "metrics-file" && error.description.contains("/nonexistent-gpstrackd does not exist"), "\(error)")
        }
    }

    @Test func anUnusableHTTPSProxyIsAnErrorWhenUploading() {
        let flags = ["--config", "/dev/null", "--tracker", "fleet", "--region", "eu-west-1"]
        do {
            _ = try load(flags, environment: ["HTTPS_PROXY": "socks5://ops:s3cret@10.0.0.1:1080"])
            Issue.record("accepted")
        } catch {
            #expect(error.key == "HTTPS_PROXY" && !error.description.contains("s3cret"), "\(error)")
        }
        #expect((try? load(["--config", "/dev/null"], environment: ["HTTPS_PROXY": "socks5://x"])) != nil, "the file sink needs no proxy")
    }
}
