#if canImport(Glibc)
    import Glibc
#endif

/// The built `overlayd` executable that the process tests start.
public enum OverlaydExecutable {
    /// `OVERLAYD_BINARY`, else the one beside the test bundle, else `.build/debug/overlayd` of
    /// this checkout. A test target cannot depend on an executable's product, so the test command
    /// builds it first (`swift build && swift test`).
    public static func path() throws -> String {
        var candidates: [String] = []
        if let path = getenv("OVERLAYD_BINARY") { candidates.append(String(cString: path)) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var parts = executable.split(separator: "/", omittingEmptySubsequences: false)
            parts.removeLast()
            candidates.append((parts + ["overlayd"]).joined(separator: "/"))
        }
        candidates.append(Repository.path(".build/debug/overlayd"))
        guard let found = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw TestSupportError(
                "overlayd is not built (run `swift build` before `swift test`); looked at \(candidates)")
        }
        return found
    }

    /// The port of overlayd's start-up line (`… listening … port=N`) in `text`, once it is there.
    public static func listeningPort(in text: String) -> Int? {
        guard
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .first(where: { $0.contains("listening") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix("port=") })
        else { return nil }
        return Int(field.dropFirst("port=".count))
    }
}

extension ChildProcess {
    /// The port an overlayd child listens on, from its start-up line on stderr; nil if it exits
    /// (or says nothing) first.
    public func listeningPort(within seconds: Double = patience) -> Int? {
        let deadline = Deadline(after: seconds)
        while true {
            if let port = OverlaydExecutable.listeningPort(in: errorText) { return port }
            if !isRunning || deadline.hasPassed { return OverlaydExecutable.listeningPort(in: errorText) }
            usleep(2_000)
        }
    }
}
