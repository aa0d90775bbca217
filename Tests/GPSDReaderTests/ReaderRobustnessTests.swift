import Foundation
import GPSDReader
import Synchronization
import Testing
import TrackingCore

/// The reader against a scripted peer: bad input is counted and skipped, a closed connection is
/// reopened, silence and unreachability are reported once.
@Suite struct ReaderRobustnessTests {
    static func tpv(_ time: String, lat: String = "52.5", extra: String = "") -> String {
        #"{"class":"TPV","device":"/dev/ttyX","mode":3,"time":"2026-11-01T08:00:\#(time)Z","lat":\#(lat),"lon":13.4\#(extra)}"#
    }

    /// Collects events until `done` says so or `timeout` passes, then stops the reader.
    static func collect(
        _ reader: GPSDReader, timeout: Duration,
        polling condition: @escaping @Sendable () -> Bool = { false },
        until done: @escaping @Sendable ([ReaderEvent]) -> Bool = { _ in false }
    ) async -> [ReaderEvent] {
        reader.start()
        let collector = Task {
            var events: [ReaderEvent] = []
            for await event in reader.events {
                events.append(event)
                if done(events) { reader.stop() }
            }
            return events
        }
        let watchdog = Task {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline, !condition(), !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
            }
            reader.stop()
        }
        let events = await collector.value
        watchdog.cancel()
        return events
    }

    @Test func aLocationHandlerSeesEveryFixOnTheReaderThreadAndKeepsDroppedOnesOffTheStream() async throws {
        let peer = ScriptedGPSD(sessions: [
            .init(lines: (1...6).map { Self.tpv(String(format: "%02d.000", $0)) }, closeAfter: false),
        ])
        defer { peer.stop() }
        let seen = Mutex<[String]>([])
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(300))) { event in
            guard case let .location(location) = event else { return true }
            seen.withLock { $0.append(location.time.iso8601) }
            return location.time.iso8601.hasSuffix("03.000Z")  // only this one goes on to `events`
        }
        let events = await Self.collect(reader, timeout: .seconds(10), polling: { seen.withLock { $0.count } == 6 })
        #expect(seen.withLock { $0 } == (1...6).map { String(format: "2026-11-01T08:00:%02d.000Z", $0) })
        let locations = events.compactMap { if case let .location(l) = $0 { l.time.iso8601 } else { nil } }
        #expect(locations == ["2026-11-01T08:00:03.000Z"])
        #expect(events.contains { if case .fixAcquired = $0 { true } else { false } }, "other events still arrive")
        #expect(reader.statistics.locations == 6)
    }

    /// The daemon's filter decides what it held back when the fixes stop; it must see that
    /// between the fixes before and after, not wherever the stream's consumer happens to be.
    @Test func theHandlerSeesAFixLostInOrderWithTheFixes() async throws {
        let noFix = #"{"class":"TPV","device":"/dev/ttyX","mode":1,"time":"2026-11-01T08:00:04.000Z"}"#
        let peer = ScriptedGPSD(sessions: [
            .init(lines: ["01.000", "02.000", "03.000"].map { Self.tpv($0) } + [noFix] + ["05.000", "06.000"].map { Self.tpv($0) },
                  closeAfter: false),
        ])
        defer { peer.stop() }
        /// A fix by its second, a fix lost or acquired by name; nil for the rest.
        @Sendable func label(_ event: ReaderEvent) -> String? {
            switch event {
            case let .location(location): String(location.time.iso8601.dropFirst(17).prefix(2))
            case .fixLost: "lost"
            case .fixAcquired: "fix"
            default: nil
            }
        }
        let seen = Mutex<[String]>([])
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(300))) { event in
            if let label = label(event) { seen.withLock { $0.append(label) } }
            return true
        }
        let events = await Self.collect(reader, timeout: .seconds(10), polling: { seen.withLock { $0.count } == 8 })
        #expect(seen.withLock { $0 } == ["fix", "01", "02", "03", "lost", "fix", "05", "06"])
        let onStream = events.compactMap(label).filter { $0 != "fix" }
        #expect(onStream == ["01", "02", "03", "lost", "05", "06"], "what the handler lets through still reaches the stream")
        #expect(ReaderEvent.fixLost.stopsTheFixes && ReaderEvent.noData(after: .seconds(10)).stopsTheFixes)
        #expect(!ReaderEvent.fixAcquired(.threeD).stopsTheFixes && !ReaderEvent.dataResumed.stopsTheFixes)
    }

    @Test func stopEndsALongWaitForDataAtOnce() async throws {
        let peer = ScriptedGPSD(sessions: [.init(lines: [Self.tpv("01.000")], closeAfter: false)])
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port), noDataTimeout: .seconds(60),
            pollInterval: .seconds(5), epochQuietTime: .milliseconds(300)))
        reader.start()
        let clock = ContinuousClock()
        var stoppedAt: ContinuousClock.Instant?
        var events: [ReaderEvent] = []
        for await event in reader.events {
            events.append(event)
            if case .location = event, stoppedAt == nil {
                // The reader is now in a 5 s wait on a silent connection.
                try await Task.sleep(for: .milliseconds(200))
                stoppedAt = clock.now
                reader.stop()
            }
        }
        let took = clock.now - (stoppedAt ?? clock.now)
        #expect(stoppedAt != nil, "\(events)")
        #expect(took < .seconds(2), "stop() waited for the poll interval: \(took)")
        #expect(!events.contains { if case .disconnected = $0 { true } else { false } }, "a requested stop is not a lost connection")
    }

    @Test func countsAndSkipsBadInputAndReconnectsAfterAClose() async throws {
        let peer = ScriptedGPSD(sessions: [
            .init(lines: [
                "this is not json",
                #"{"class":"TPV","device":"/dev/ttyX","mode":3,"time":"2026-11-01T08:00:01.000Z","lat":"#,
                Self.tpv("01.000", extra: #","speed":-3.0,"eph":-1,"track":400.5"#),
                Self.tpv("02.000", lat: "999.0"),
                Self.tpv("03.000", extra: #","speed":1.5,"epx":3.0,"epy":4.0"#),
                Self.tpv("02.500"),
                #"{"class":"ERROR","message":"unrecognized request"}"#,
                #"{"class":"DEVICE","path":"/dev/ttyX","activated":0}"#,
                Self.tpv("04.000"),
            ], closeAfter: true),
            .init(lines: [Self.tpv("05.000"), Self.tpv("06.000")], closeAfter: false),
        ])
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(200),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(300)))
        let events = await Self.collect(reader, timeout: .seconds(10), until: { events in
            events.contains { if case let .location(l) = $0 { return l.time.iso8601.hasSuffix("06.000Z") } else { return false } }
        })
        let locations = events.compactMap { if case let .location(l) = $0 { l } else { nil } }
        #expect(locations.map { $0.time.iso8601 } == [
            "2026-11-01T08:00:01.000Z", "2026-11-01T08:00:03.000Z", "2026-11-01T08:00:04.000Z",
            "2026-11-01T08:00:05.000Z", "2026-11-01T08:00:06.000Z",
        ])
        #expect(locations.first?.speed == nil, "negative speed becomes nil")
        #expect(locations.first?.horizontalAccuracy == nil, "negative eph and no epx/epy: unknown")
        #expect(locations.first?.course == 40.5)
        #expect(locations[1].horizontalAccuracy == 5, "from epx/epy")
        #expect(locations[1].speed == 1.5)
        #expect(events.contains(ReaderEvent.deviceDeactivated(path: "/dev/ttyX")))
        #expect(events.contains(ReaderEvent.gpsdError("unrecognized request")))
        #expect(events.filter { if case .connected = $0 { true } else { false } }.count == 2, "\(events.filter { if case .location = $0 { false } else { true } })")
        #expect(events.filter { if case .disconnected = $0 { true } else { false } }.count == 1)
        let stats = reader.statistics
        #expect(stats.unparsable >= 1)
        #expect(stats.epochs.invalidPosition >= 1)
        #expect(stats.epochs.backwardsTime == 1)
        #expect(stats.reconnects == 1)
        #expect(peer.connections == 2)
    }

    @Test func reportsASilentGPSDOnceAndKeepsReconnecting() async {
        let peer = ScriptedGPSD(sessions: [.init(lines: [], closeAfter: false)])
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port), noDataTimeout: .milliseconds(400),
            initialBackoff: .milliseconds(100), pollInterval: .milliseconds(20)))
        let events = await Self.collect(reader, timeout: .seconds(10), polling: { peer.connections >= 4 })
        #expect(peer.connections >= 4)
        #expect(events.filter { if case .noData = $0 { true } else { false } }.count == 1)
        #expect(events.filter { if case .connected = $0 { true } else { false } }.count == 1)
    }

    @Test func reportsAnUnreachableGPSDOnceAndStopsPromptly() async {
        let refusing = ScriptedGPSD(refusingConnections: ())
        defer { refusing.stop() }
        let closedPort = refusing.port
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: closedPort),
            initialBackoff: .seconds(60), maxBackoff: .seconds(60)))
        let clock = ContinuousClock()
        let start = clock.now
        let events = await Self.collect(reader, timeout: .seconds(2))
        let elapsed = clock.now - start
        #expect(events.count == 1)
        guard case let .unreachable(error, _) = events.first else {
            Issue.record("expected one unreachable event, got \(events)")
            return
        }
        #expect(error.description.contains("cannot connect to gpsd at 127.0.0.1:\(closedPort)"))
        // 2 s of collecting, then stop() while the reader sleeps its first 60 s backoff: waited out,
        // it would take 60 s. The margin is wide because this test's tasks share two cooperative
        // threads with the whole suite, which starts dozens of processes in its first seconds
        // (12.1 s once, on a machine also compiling).
        #expect(elapsed < .seconds(30), "stop() must cut the backoff sleep short")
    }

    /// Twelve fixes written 20 ms apart, read with and without a burst window: the same locations
    /// either way; without it the reader wakes for each, with it once or twice for all of them
    /// (the banner's first line, then the rest after the window).
    @Test func readsTheRestOfABurstTogetherAfterTheWindow() async {
        let fixes = (1...12).map { Self.tpv(String(format: "%02d.000", $0)) }
        let lines = fixes.flatMap { [$0, "sleep:20"] }
        var bursts: [Duration: Int] = [:]
        for window in [Duration.zero, .seconds(1)] {
            let peer = ScriptedGPSD(sessions: [.init(lines: lines, closeAfter: false)])
            defer { peer.stop() }
            let seen = Mutex<[String]>([])
            let reader = GPSDReader(configuration: .init(
                endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
                burstWindow: window, epochQuietTime: .milliseconds(200))) { event in
                guard case let .location(location) = event else { return true }
                seen.withLock { $0.append(location.time.iso8601) }
                return true
            }
            _ = await Self.collect(reader, timeout: .seconds(10), polling: { seen.withLock { $0.count } == 12 })
            #expect(seen.withLock { $0 } == (1...12).map { String(format: "2026-11-01T08:00:%02d.000Z", $0) }, "window \(window)")
            bursts[window] = reader.statistics.bursts
            #expect(reader.statistics.messages == 15, "the banner's three and the twelve fixes")
        }
        // Without a window each line is its own wake-up (a loaded machine may merge a few).
        #expect(bursts[.zero, default: 0] >= 8, "\(bursts)")
        // With it, the banner and the 0.3 s of fixes come in one or two.
        #expect((1...2).contains(bursts[.seconds(1), default: 0]), "\(bursts)")
    }

    /// The first message of a burst is read at once, not after the window: the TPV that starts an
    /// epoch completes the one before it, so the window never delays a fix's delivery by itself.
    @Test func theStartOfABurstIsReadAtOnce() async {
        let second = Self.tpv("02.000")
        let peer = ScriptedGPSD(sessions: [
            .init(lines: ["sleep:300", Self.tpv("01.000"), "sleep:1500", second], closeAfter: false),
        ])
        defer { peer.stop() }
        let delivered = Mutex<[String: ContinuousClock.Instant]>([:])
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            burstWindow: .seconds(1), epochQuietTime: .seconds(5))) { event in
            guard case let .location(location) = event else { return true }
            delivered.withLock { $0[location.time.iso8601] = ContinuousClock.now }
            return true
        }
        _ = await Self.collect(reader, timeout: .seconds(10), polling: { delivered.withLock { $0.count } >= 1 })
        let first = delivered.withLock { $0["2026-11-01T08:00:01.000Z"] }
        guard let first, let sent = peer.sentAt(second) else {
            Issue.record("the first fix was not delivered")
            return
        }
        // Without reading at once it would come a second (the window) after the next TPV was sent.
        #expect(first - sent < .milliseconds(500), "delivered \(first - sent) after the TPV that completed it")
    }

    /// Fixes 160 ms apart with a 100 ms window: each read as it comes, and no rest after them once
    /// one has found nothing (a rest is a wake-up of its own, and the next fix would come 60 ms
    /// after it ended).
    @Test func messagesWiderApartThanTheWindowCostNoRests() async {
        let fixes = (1...6).map { Self.tpv(String(format: "%02d.000", $0)) }
        let peer = ScriptedGPSD(sessions: [.init(lines: fixes.flatMap { ["sleep:160", $0] }, closeAfter: false)])
        defer { peer.stop() }
        let seen = Mutex(0)
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            burstWindow: .milliseconds(100), epochQuietTime: .milliseconds(200))) { event in
            if case .location = event { seen.withLock { $0 += 1 } }
            return true
        }
        _ = await Self.collect(reader, timeout: .seconds(10), polling: { seen.withLock { $0 } == 6 })
        let stats = reader.statistics
        #expect(seen.withLock { $0 } == 6)
        #expect(stats.bursts >= 7, "the banner, then each fix: \(stats.summary)")
        // The banner's rest gathers its other two lines; the first fix's finds nothing; no more
        // (one spare for a fix read late on a loaded machine; resting after each would make 7).
        #expect(stats.rests <= 3, "\(stats.summary)")
    }
}

/// A receiver's time glitch through a real socket: the reader skips it and goes on.
@Suite struct ReaderTimeGlitchTests {
    static func tpv(_ time: String) -> String {
        #"{"class":"TPV","device":"/dev/ttyX","mode":3,"time":"\#(time)","lat":52.5,"lon":13.4}"#
    }

    @Test func aRunOfFixesDatedTomorrowDoesNotSilenceTheReader() async throws {
        let today = (0..<20).map { Self.tpv(String(format: "2026-11-01T08:00:%02d.000Z", $0)) }
        let tomorrow = (20..<30).map { Self.tpv(String(format: "2026-11-02T08:00:%02d.000Z", $0)) }
        let later = (30..<50).map { Self.tpv(String(format: "2026-11-01T08:00:%02d.000Z", $0)) }
        let peer = ScriptedGPSD(sessions: [
            .init(lines: today + tomorrow, closeAfter: true),
            .init(lines: later, closeAfter: false),
        ])
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            initialBackoff: .milliseconds(100), maxBackoff: .milliseconds(200),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(300)))
        let events = await ReaderRobustnessTests.collect(reader, timeout: .seconds(10), until: { events in
            events.contains { if case let .location(l) = $0 { return l.time.iso8601.hasSuffix("08:00:49.000Z") } else { return false } }
        })
        let times = events.compactMap { if case let .location(l) = $0 { l.time.iso8601 } else { nil } }
        #expect(times == (Array(0..<20) + Array(30..<50)).map { String(format: "2026-11-01T08:00:%02d.000Z", $0) })
        #expect(reader.statistics.epochs.timeGlitches == 10)
        let notices = events.compactMap { if case let .timeline(notice) = $0 { notice } else { nil } }
        #expect(notices.count == 2, "one episode: started and ended, \(notices)")
        #expect(notices.last == .glitchEnded(skipped: 10))
    }
}

/// Reconnecting after good sessions and past lines libgps cannot read.
@Suite struct ReaderReconnectTests {
    @Test func aSessionThatDeliveredDataResetsTheBackoff() async throws {
        // Six short sessions with data, each closed by gpsd (a restart), then one that stays.
        let sessions = (0..<6).map { n in
            ScriptedGPSD.Session(lines: [ReaderRobustnessTests.tpv(String(format: "%02d.000", n * 2))], closeAfter: true)
        } + [ScriptedGPSD.Session(lines: [ReaderRobustnessTests.tpv("20.000")], closeAfter: false)]
        let peer = ScriptedGPSD(sessions: sessions)
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            initialBackoff: .milliseconds(200), maxBackoff: .seconds(5),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(100)))
        _ = await ReaderRobustnessTests.collect(reader, timeout: .seconds(15), polling: { peer.connections >= 7 })
        let accepted = peer.acceptedAt
        #expect(accepted.count >= 7)
        let gaps = zip(accepted, accepted.dropFirst()).map { $1 - $0 }
        // Without the reset: 0.2, 0.4, 0.8, 1.6, 3.2, 5 s. With it: the first delay every time.
        #expect(gaps.allSatisfy { $0 < .milliseconds(900) }, "reconnect delays \(gaps)")
    }

    @Test func aLineTooLongForLibgpsIsSaidAndSkippedAndTheFixesFlowOn() async throws {
        let long = #"{"class":"SKY","device":"/dev/ttyX","satellites":""# + String(repeating: "a", count: 25_000) + #""}"#
        let peer = ScriptedGPSD(sessions: [
            .init(lines: [ReaderRobustnessTests.tpv("01.000"), long, ReaderRobustnessTests.tpv("02.000")], closeAfter: false),
            .init(lines: [ReaderRobustnessTests.tpv("05.000"), ReaderRobustnessTests.tpv("06.000")], closeAfter: false),
        ])
        defer { peer.stop() }
        let reader = GPSDReader(configuration: .init(
            endpoint: GPSDEndpoint(host: "127.0.0.1", port: peer.port),
            initialBackoff: .seconds(1), maxBackoff: .seconds(2),
            pollInterval: .milliseconds(20), epochQuietTime: .milliseconds(300)))
        let clock = ContinuousClock()
        let started = clock.now
        let events = await ReaderRobustnessTests.collect(reader, timeout: .seconds(10), until: { events in
            events.contains { if case let .location(l) = $0 { return l.time.iso8601.hasSuffix("06.000Z") } else { return false } }
        })
        // Reconnecting at once, not after the 1 s backoff; the bound is loose for a busy machine.
        #expect(clock.now - started < .seconds(15))
        #expect(events.contains(.oversizedLine))
        #expect(!events.contains { if case .disconnected = $0 { true } else { false } }, "not reported as gpsd closing the connection")
        #expect(reader.statistics.oversizedLines == 1)
        let times = events.compactMap { if case let .location(l) = $0 { l.time.iso8601 } else { nil } }
        #expect(times.contains("2026-11-01T08:00:06.000Z"))
    }
}
