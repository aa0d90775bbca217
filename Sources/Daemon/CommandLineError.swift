/// A mistake on the command line, said so that the operator can fix it.
public struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { "\(message) (see gpstrackd --help)" }
}
