import Foundation
import OverlayClient
import Platform
import TestSupport
import Testing

@testable import OverlayCommands

#if canImport(Glibc)
    import Glibc
#endif

/// What the libcurl transport of `overlayd post` and `watch` does beyond what the client's
/// tests through it show: timeouts, stops, and reading a head from curl's header lines.
@Suite("libcurl transport of the commands")
struct CurlHTTPTransportTests {
    /// A server that takes connections (the kernel completes them) and never answers. With
    /// `accepting`, a thread of its own accepts them and counts them and those their clients
    /// closed, on its own time: a count that stays, however late the test looks.
    final class SilentListener: Sendable {
        let descriptor: Int32
        let port: Int
        private let counts = Counts()

        final class Counts: Sendable {
            let seen = Lock((taken: 0, closed: 0))
        }

        init(accepting: Bool = false) throws {
            (descriptor, port) = try Loopback.listen(backlog: 8)
            guard accepting else { return }
            onDetachedThread { [descriptor, counts] in
                while true {
                    let socket = Loopback.accept(descriptor)
                    guard socket >= 0 else { return }
                    counts.seen.withLock { $0.taken += 1 }
                    // Everything the client sends is read and nothing answered, until it closes.
                    while Loopback.read(socket, milliseconds: 100)?.isEmpty != true {}
                    counts.seen.withLock { $0.closed += 1 }
                    close(socket)
                }
            }
        }

        deinit {
            // Wakes the accepting thread, if any, which then ends.
            shutdown(descriptor, Int32(SHUT_RDWR))
            close(descriptor)
        }

        /// Connections taken, and those of them the client has closed.
        var connections: (taken: Int, closed: Int) { counts.seen.withLock { $0 } }

        var url: URL { URL(string: "http://127.0.0.1:\(port)/overlay")! }
    }

    /// No byte within the request's timeout: `.timedOut` (what makes the update stream fall back
    /// to long-poll), after the request reached the server and waited there, unanswered, until
    /// curl gave up and closed the connection.
    @Test func silenceTimesOut() async throws {
        let listener = try SilentListener(accepting: true)
        let transport = CurlHTTPTransport()
        let error = await #expect(throws: OverlayClientError.self) {
            try await transport.perform(HTTPRequest(method: "GET", url: listener.url, timeout: 0.5))
        }
        #expect(error == .timedOut)
        #expect(await eventually { listener.connections == (taken: 1, closed: 1) })
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
