import Platform
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A pub/sub endpoint stand-in on a free loopback port: it records every request it reads (on
/// kept-alive connections too) and answers as told. Not a client: the publisher's client is
/// libcurl; this is only the other end.
final class CaptureEndpoint: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// Which accepted connection it came on (0, 1, …).
        var connection: Int

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// How the next requests are answered.
    enum Answer: Sendable, Equatable {
        case status(Int)
        /// Read the request and answer nothing until `release()`.
        case hold
        /// Close the connection without answering.
        case close
    }

    let port: Int
    private let core: Core

    init(answer: Answer = .status(201)) throws {
        let (socket, port) = try Loopback.listen()
        self.port = port
        core = Core(listener: socket, answer: answer)
        onDetachedThread { [core] in core.acceptLoop() }
    }

    /// The endpoint's threads hold the core, not the endpoint: releasing the endpoint stops them.
    deinit {
        core.stop()
    }

    func stop() { core.stop() }
    var requests: [Request] { core.state.withLock { $0.requests } }
    var connections: Int { core.state.withLock { $0.connections } }
    /// Requests read and not answered because of `.hold`.
    var held: Int { core.state.withLock { $0.held } }
    func answer(_ answer: Answer) { core.state.withLock { $0.answer = answer } }
    /// Lets held requests be answered (with the answer in force then, or 201 if that is `.hold`).
    func release() { core.released.store(true, ordering: .releasing) }
}

private final class Core: Sendable {
    typealias Request = CaptureEndpoint.Request
    typealias Answer = CaptureEndpoint.Answer

    struct State {
        var requests: [Request] = []
        var answer = Answer.status(201)
        var connections = 0
        var held = 0
        var stopped = false
    }
    let listener: Int32
    let state: Lock<State>
    let released = Atomic<Bool>(false)

    init(listener: Int32, answer: Answer) {
        self.listener = listener
        state = Lock(State(answer: answer))
    }

    /// Once: the accept loop ends on the listener's shutdown, and each connection's loop sees
    /// `stopped` within 100 ms. Connections are not shut down from here: one that has just closed
    /// may have had its descriptor reused, by another test's socket.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        released.store(true, ordering: .releasing)
        if first { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    func acceptLoop() {
        while true {
            let socket = Loopback.accept(listener)
            guard socket >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let number = state.withLock { state -> Int? in
                guard !state.stopped else { return nil }
                state.connections += 1
                return state.connections - 1
            }
            guard let number else {
                close(socket)
                continue
            }
            onDetachedThread { [self] in self.serve(socket, connection: number) }
        }
    }

    private func serve(_ socket: Int32, connection: Int) {
        defer { close(socket) }
        var raw: [UInt8] = []
        while true {
            // One request: the head, then Content-Length bytes.
            var request: Request?
            while request == nil {
                if let end = Bytes.index(of: Bytes.headEnd, in: raw) {
                    let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
                    let parts = (lines.first ?? "").split(separator: " ").map(String.init)
                    let headers = lines.dropFirst().compactMap { line -> (String, String)? in
                        guard let colon = line.firstIndex(of: ":") else { return nil }
                        return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
                    }
                    let length = headers.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) } ?? 0
                    if raw.count >= end + 4 + length {
                        request = Request(
                            method: parts.first ?? "", path: parts.count > 1 ? parts[1] : "", headers: headers,
                            body: Array(raw[(end + 4)..<(end + 4 + length)]), connection: connection)
                        raw.removeFirst(end + 4 + length)
                        break
                    }
                }
                guard let bytes = Loopback.read(socket, milliseconds: 100) else {
                    if state.withLock({ $0.stopped }) { return }
                    continue
                }
                if bytes.isEmpty { return }
                raw += bytes
            }
            let answer = state.withLock { state -> Answer in
                state.requests.append(request!)
                if state.answer == .hold { state.held += 1 }
                return state.answer
            }
            var status = 201
            switch answer {
            case .close:
                return
            case .status(let code):
                status = code
            case .hold:
                while !released.load(ordering: .acquiring) { usleep(1000) }
                let now = state.withLock { state -> Answer in
                    state.held -= 1
                    return state.answer
                }
                if case .status(let code) = now { status = code }
                if state.withLock({ $0.stopped }) { return }
            }
            let body = "{}"
            let head = "HTTP/1.1 \(status) X\r\nContent-Type: text/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            guard (try? Loopback.write(socket, Array((head + body).utf8))) != nil else { return }
        }
    }
}
