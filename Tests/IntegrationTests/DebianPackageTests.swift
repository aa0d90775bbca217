import Foundation
import TestSupport
import Testing

/// The Debian package as an operator installs it: built by `scripts/make-deb` from the release
/// binary that `make test` builds first, its metadata and files, the unpacked binary, unit and
/// manual pages, lintian, and `dpkg -i` / `dpkg -r` leaving the state directory alone.
@Suite(.serialized) struct DebianPackageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a program to its end; its status, standard output and error.
    static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 120) async throws -> (status: Int32, out: String, err: String) {
        // Its output goes to files in a directory of its own.
        let child = try ChildProcess(executable, arguments, directory: TestPaths.temporaryDirectory("package-run"),
                                     name: URL(fileURLWithPath: executable).lastPathComponent)
        guard await child.waitForExit(timeout: timeout) else {
            child.terminate()
            throw PackageTestError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        return (child.terminationStatus, child.stdout, child.stderr)
    }

    struct PackageTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The package, built once for the suite.
    static func package() async throws -> String {
        let release = root.appendingPathComponent(".build/release/gpstrackd").path
        guard FileManager.default.isExecutableFile(atPath: release) else {
            throw PackageTestError("\(release) is missing: `make test` builds it before the tests (or run `make release`)")
        }
        let built = try await run("/bin/bash", [root.appendingPathComponent("scripts/make-deb").path])
        guard built.status == 0, let path = built.out.split(separator: "\n").last.map(String.init) else {
            throw PackageTestError("make-deb failed: \(built.err)")
        }
        return root.appendingPathComponent(path).path
    }

    @Test func carriesTheBinaryUnitConffileManualsAndItsDependencies() async throws {
        let deb = try await Self.package()
        let version = try await Self.run(Self.root(".build/release/gpstrackd"), ["--version"]).out
        let info = try await Self.run("/usr/bin/dpkg-deb", ["--field", deb, "Package", "Version", "Architecture", "Depends"]).out
        let arch = try await Self.run("/usr/bin/dpkg", ["--print-architecture"]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        print("package: \(deb)\n\(info)")
        #expect(info.contains("Package: gpstrackd"))
        #expect(info.contains("Version: \(version.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?")"))
        #expect(info.contains("Architecture: \(arch)"))
        for library in ["libgps", "libsqlite3", "libssl3", "libc6"] { #expect(info.contains(library), "Depends names \(library)") }
        #expect(info.range(of: #"libgps\d+ \(>= [0-9.]+"#, options: .regularExpression) != nil, "with the version built against")
        let contents = try await Self.run("/usr/bin/dpkg-deb", ["--contents", deb]).out
        for path in ["./usr/bin/gpstrackd", "./lib/systemd/system/gpstrackd.service", "./etc/gpstrackd/gpstrackd.conf",
                     "./usr/share/man/man8/gpstrackd.8.gz", "./usr/share/man/man5/gpstrackd.conf.5.gz",
                     "./usr/share/bash-completion/completions/gpstrackd", "./usr/share/doc/gpstrackd/copyright",
                     "./usr/share/doc/gpstrackd/README.md.gz", "./usr/share/doc/gpstrackd/changelog.Debian.gz"] {
            #expect(contents.contains(" \(path)\n") || contents.hasSuffix(" \(path)"), "\(path) is in the package")
        }
        #expect(!contents.contains(" 1000/"), "files owned by root, not by whoever built it")
        let conffiles = try await Self.run("/bin/sh", ["-c", "dpkg-deb --ctrl-tarfile '\(deb)' | tar -xO ./conffiles"]).out
        #expect(conffiles == "/etc/gpstrackd/gpstrackd.conf\n")
    }

    static func root(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    @Test func unpackedItRunsVerifiesAndRendersItsManuals() async throws {
        let deb = try await Self.package()
        let tree = TestPaths.temporaryDirectory("unpacked")
        #expect(try await Self.run("/usr/bin/dpkg", ["-x", deb, tree.path]).status == 0)
        let binary = tree.appendingPathComponent("usr/bin/gpstrackd").path
        #expect(try await Self.run(binary, ["--version"]).out.hasPrefix("gpstrackd "))
        let state = TestPaths.temporaryDirectory("unpacked-state").path
        let check = try await Self.run(binary, ["check-config", "--config", tree.appendingPathComponent("etc/gpstrackd/gpstrackd.conf").path, "--state-dir", state])
        #expect(check.status == 0, "check-config on the packaged configuration: \(check.err)\(check.out)")

        // The packaged unit, its ExecStart at the unpacked binary (verify checks that it exists).
        let unitText = try String(contentsOfFile: tree.appendingPathComponent("lib/systemd/system/gpstrackd.service").path, encoding: .utf8)
        #expect(unitText.contains("ExecStart=/usr/bin/gpstrackd run --config /etc/gpstrackd/gpstrackd.conf"))
        let unit = tree.appendingPathComponent("gpstrackd.service").path
        try unitText.replacingOccurrences(of: "/usr/bin/gpstrackd", with: binary).write(toFile: unit, atomically: true, encoding: .utf8)
        // Its Documentation= names the manual pages: found in the unpacked tree.
        let verify = try await Self.run("/bin/sh", ["-c", "MANPATH='\(tree.appendingPathComponent("usr/share/man").path)' systemd-analyze verify '\(unit)'"])
        #expect(verify.status == 0 && verify.err.isEmpty, "\(verify.err)")
        let security = try await Self.run("/usr/bin/systemd-analyze", ["security", "--offline=true", unit]).out
        let exposure = security.split(separator: "\n").first { $0.contains("Overall exposure level") }?
            .split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect((exposure ?? 10) <= 2.0, "systemd-analyze security: \(exposure.map { "\($0)" } ?? security)")

        // Both manuals render without a warning, and name every command and every key.
        let keys = try await Self.run(binary, ["--help"]).out.split(separator: "\n")
            .compactMap { $0.firstMatch(of: #/^ +--([a-z0-9-]+)\s/#).map { String($0.1) } }
        #expect(keys.count > 30)
        for (page, mustName) in [("usr/share/man/man8/gpstrackd.8.gz", ["run", "watch", "history", "status", "check-config", "man-page", "SIGHUP", "SIGTERM"]),
                                 ("usr/share/man/man5/gpstrackd.conf.5.gz", keys)] {
            let path = tree.appendingPathComponent(page).path
            let rendered = try await Self.run("/bin/sh", ["-c", "zcat '\(path)' | groff -man -Tutf8 -ww -z 2>&1; zcat '\(path)' | groff -man -Tascii -P-c -P-b -P-u 2>/dev/null"])
            let text = rendered.out
            #expect(!text.contains("warning:"), "\(page) renders cleanly: \(text.split(separator: "\n").filter { $0.contains("warning:") }.prefix(3))")
            for name in mustName { #expect(text.contains(name), "\(page) names \(name)") }
        }
    }

    @Test func lintianReportsNoErrors() async throws {
        let deb = try await Self.package()
        let lintian = try await Self.run("/usr/bin/lintian", ["--tag-display-limit", "0", deb], timeout: 300)
        let lines = (lintian.out + lintian.err).split(separator: "\n")
        print("lintian:\n" + lines.joined(separator: "\n"))
        #expect(!lines.contains { $0.hasPrefix("E:") }, "no lintian errors")
    }

    @Test func installingAndRemovingLeavesTheStateDirectoryAlone() async throws {
        guard getuid() == 0 else {
            throw PackageTestError("dpkg -i needs root (CI runs as root)")
        }
        let deb = try await Self.package()
        let state = "/var/lib/gpstrackd"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let marker = state + "/queued-positions-of-the-operator"
        try "kept\n".write(toFile: marker, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let install = try await Self.run("/usr/bin/dpkg", ["-i", deb], timeout: 300)
        #expect(install.status == 0, "\(install.err)")
        #expect(try await Self.run("/usr/bin/gpstrackd", ["--version"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: "/etc/gpstrackd/gpstrackd.conf"))
        let remove = try await Self.run("/usr/bin/dpkg", ["-r", "gpstrackd"], timeout: 300)
        #expect(remove.status == 0, "\(remove.err)")
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/gpstrackd"))
        #expect(FileManager.default.fileExists(atPath: marker), "the state directory is the operator's")
        #expect(FileManager.default.fileExists(atPath: "/etc/gpstrackd/gpstrackd.conf"), "a conffile stays until purge")
        #expect(try await Self.run("/usr/bin/dpkg", ["--purge", "gpstrackd"], timeout: 300).status == 0)
        #expect(FileManager.default.fileExists(atPath: marker), "not even purge removes the queue")
    }
}

/// `make run`, the README's first command, starts the daemon on its embedded default. Its build
/// step is skipped here (`RELEASE=true`): `swift test` holds the build directory, and `make test`
/// built the same release binary before it.
@Suite struct MakeRunTests {
    @Test func makeRunStartsTheDaemonOnTheFileSink() async throws {
        let state = TestPaths.temporaryDirectory("make-run")
        let make = try ChildProcess("/usr/bin/make", ["-C", DebianPackageTests.root.path, "--no-print-directory", "run", "RELEASE=true", "STATE_DIR=\(state.path)"],
                                    directory: TestPaths.temporaryDirectory("make-run-output"), name: "make-run")
        defer { make.terminate() }
        let statusPath = state.appendingPathComponent("status.json").path
        #expect(await ChildProcess.waitUntil(timeout: 60) { FileManager.default.fileExists(atPath: statusPath) }, "\(make.stderr)")
        let status = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statusPath))) as? [String: Any]
        let pid = try #require(status?["pid"] as? Int, "status.json names the daemon")
        #expect(make.stderr.contains("sink=file"), "the embedded default: the file sink")
        #expect(make.stderr.contains("gpsd=127.0.0.1:2947"))
        kill(pid_t(pid), SIGTERM)
        #expect(await make.waitForExit(timeout: 30))
        #expect(make.terminationStatus == 0, "\(make.stderr)")
    }
}
