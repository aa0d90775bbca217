import Daemon
import Glibc

var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let pair = String(cString: pointer)
    if let equals = pair.firstIndex(of: "=") {
        environment[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    entry += 1
}
let status = await GPSTrackd.main(arguments: CommandLine.arguments, environment: environment)
exit(status.rawValue)
