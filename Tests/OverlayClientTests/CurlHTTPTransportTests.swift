import Foundation
import OverlayClient
import Testing

@testable import OverlayCommands

#if canImport(Glibc)
    import Glibc
#endif

/// What the libcurl transport of `overlayd post` and `watch` does beyond what the client's
/// tests through it show: timeouts, stops, and reading a head from curl's header lines.
@Suite("libcurl transport of the commands")
struct CurlHTTPTransportTests {
    /// A server that takes connections (the kernel completes them) and never answers.
    final class SilentListener: Sendable {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let listening = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0
                        && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard listening else {
                close(descriptor)
                throw TestFailure(description: "cannot listen")
            }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/overlay")! }
    }

    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// No byte within the request's timeout: `.timedOut` (what makes the update stream fall back
    /// to long-poll), not before the timeout, and the connection closed.
    @Test func silenceTimesOut() async throws {
        let listener = try SilentListener()
        let transport = CurlHTTPTransport()
        let started = Self.seconds()
        let error = await #expect(throws: OverlayClientError.self) {
            try await transport.perform(HTTPRequest(method: "GET", url: listener.url, timeout: 0.5))
        }
        #expect(error == .timedOut)
        #expect(Self.seconds() - started >= 0.5)
        #expect(await eventually { Raw.connections(toPort: listener.port) == 0 })
    }

    /// Cancelling the waiting task ends the request at once, however long its timeout, with a
    /// `CancellationError`, and closes its connection.
    @Test func cancellationStopsTheRequest() async throws {
        let listener = try SilentListener()
        let transport = CurlHTTPTransport()
        let task = Task {
            try await transport.perform(HTTPRequest(method: "GET", url: listener.url, timeout: 600))
        }
        #expect(await eventually { Raw.connections(toPort: listener.port) == 1 })
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, error is CancellationError else {
            Issue.record("ended with \(result)")
            return
        }
        #expect(await eventually { Raw.connections(toPort: listener.port) == 0 })
    }

    /// A child process started while a request is open (any test's server, a shell) does not
    /// inherit its connection: spawned with no file actions, as a plain `posix_spawn` does, it
    /// would otherwise hold the connection open after the request ends.
    @Test func childrenDoNotInheritTheConnection() async throws {
        let listener = try SilentListener()
        let transport = CurlHTTPTransport()
        let task = Task {
            try await transport.perform(HTTPRequest(method: "GET", url: listener.url, timeout: 600))
        }
        #expect(await eventually { Raw.connections(toPort: listener.port) == 1 })
        var child: pid_t = 0
        let words: [String] = ["/bin/sleep", "60"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        #expect(posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0)
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
        task.cancel()
        _ = await task.result
        #expect(await eventually { Raw.connections(toPort: listener.port) == 0 })
    }

    /// A task cancelled before its request starts sends nothing.
    @Test func cancelledBeforeTheStart() async throws {
        let listener = try SilentListener()
        let transport = CurlHTTPTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.perform(HTTPRequest(method: "GET", url: listener.url, timeout: 600))
        }
        let result = await task.result
        guard case .failure(let error) = result, error is CancellationError else {
            Issue.record("ended with \(result)")
            return
        }
        #expect(Raw.connections(toPort: listener.port) == 0)
    }

    /// `close()` ends a stream under way; its reader sees the stream end, and the server counts
    /// no stream left.
    @Test func closeEndsAStream() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let transport = CurlHTTPTransport()
        var request = HTTPRequest(method: "GET", url: server.url.appendingPathComponent("events"), timeout: 60)
        request.headers["Accept"] = "text/event-stream"
        var parts = transport.stream(request).makeAsyncIterator()
        guard case .head(let head)? = try await parts.next() else {
            Issue.record("no head first")
            return
        }
        #expect(head.status == 200)
        #expect(head.value("content-type")?.hasPrefix("text/event-stream") == true)
        guard case .body(let body)? = try await parts.next() else {
            Issue.record("no body")
            return
        }
        #expect(String(decoding: body, as: UTF8.self).contains("event: overlay"))
        #expect(try await Raw.openReaders(server) == 1)
        transport.close()
        await #expect(throws: CancellationError.self) {
            while try await parts.next() != nil {}
        }
        #expect(try await eventually { try await Raw.openReaders(server) == 0 })
    }

    /// A POST with a body, one with an empty body, a DELETE without one, and each answer's
    /// status, fields and body.
    @Test func methodsAndBodies() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let transport = CurlHTTPTransport()
        let posted = try await transport.perform(
            HTTPRequest(
                method: "POST", url: server.url.appendingPathComponent("messages"),
                headers: ["Content-Type": "application/json"], body: Data(#"{"text": "via curl"}"#.utf8), timeout: 10))
        #expect(posted.0.status == 202)
        #expect(String(decoding: posted.1, as: UTF8.self).contains(#""text":"via curl""#))
        #expect(posted.0.value("Content-Type")?.hasPrefix("application/json") == true)
        let empty = try await transport.perform(
            HTTPRequest(
                method: "POST", url: server.url.appendingPathComponent("messages"),
                headers: ["Content-Type": "application/json"], body: Data(), timeout: 10))
        // Sent whole (Content-Length: 0) and answered, not left waiting for a body.
        #expect(empty.0.status == 422)
        #expect(String(decoding: empty.1, as: UTF8.self).contains("text is required"))
        let deleted = try await transport.perform(
            HTTPRequest(method: "DELETE", url: server.url.appendingPathComponent("messages/1"), timeout: 10))
        #expect(deleted.0.status == 200)
        #expect(String(decoding: deleted.1, as: UTF8.self).contains(#""state":"cancelled""#))
    }

    /// The head from curl's lines: an interim 100 is skipped, repeated fields are joined, names
    /// are case-blind, and trailers after the body change nothing.
    @Test func headReader() {
        var reader = HeadReader()
        for line in ["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 429 Too Many Requests\r\n"] {
            #expect(reader.take(line) == nil)
        }
        for line in ["Retry-After:  3 \r\n", "Vary: Accept\r\n", "vary: Origin\r\n", "X-Empty:\r\n"] {
            #expect(reader.take(line) == nil)
        }
        let head = reader.take("\r\n")
        #expect(head?.status == 429)
        #expect(head?.value("retry-after") == "3")
        #expect(head?.value("VARY") == "Accept, Origin")
        #expect(head?.value("X-Empty") == "")
        #expect(reader.delivered)
        #expect(reader.take("Trailer: 1\r\n") == nil)
        #expect(reader.take("\r\n") == nil)

        var second = HeadReader()
        _ = second.take("HTTP/2 204\r\n")
        #expect(second.take("\r\n")?.status == 204)
    }
}
