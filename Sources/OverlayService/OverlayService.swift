import MicroHTTP
import OverlayEngine

/// The overlay service: routes HTTP requests to the channel's engine and answers in JSON (spec §5).
///
/// `respond(to:)` needs no socket, so route tests call it directly; `OverlayServer` puts it behind
/// libmicrohttpd.
public final class OverlayService: Sendable {
    public let configuration: ServiceConfiguration
    let clock: ServiceClock
    let scheduler: DeadlineScheduler?
    let channel: Channel
    let metrics = Metrics()

    public static let version = "0.1.0"

    public init(configuration: ServiceConfiguration) {
        self.configuration = configuration
        self.clock = ServiceClock(mode: configuration.clock)
        self.scheduler = configuration.clock == .real ? DeadlineScheduler() : nil
        self.channel = Channel(
            name: "default", number: 0, configuration: configuration.engineConfiguration, clock: clock,
            scheduler: scheduler)
    }

    /// Stops the timer thread. The service answers no deadline after this.
    public func shutdown() {
        scheduler?.stop()
    }

    /// Answers one request.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch {
            return error.response
        }
    }

    // MARK: - Routing

    private func route(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        var segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        let method = request.method == "HEAD" ? "GET" : request.method
        let path = Array(segments)
        switch path {
        case [""]:
            return try on(request, method, ["GET"]) { () throws(APIError) in index() }
        case ["messages"]:
            return try on(request, method, ["GET", "POST"]) { () throws(APIError) in
                method == "GET" ? try listMessages() : try postMessage(request)
            }
        case _ where path.count == 2 && path[0] == "messages":
            return try on(request, method, ["GET", "PATCH", "DELETE"]) { () throws(APIError) in
                let id = try messageID(path[1])
                switch method {
                case "GET": return try getMessage(id)
                case "PATCH": return try patchMessage(id, request)
                default: return try deleteMessage(id)
                }
            }
        case ["overlay"]:
            return try on(request, method, ["GET"]) { () throws(APIError) in try getOverlay(request) }
        case ["orientation"]:
            return try on(request, method, ["PUT"]) { () throws(APIError) in try putOrientation(request) }
        case ["healthz"]:
            return try on(request, method, ["GET"]) { () throws(APIError) in
                json(200) {
                    $0.beginObject()
                    $0.key("status")
                    $0.string("ok")
                    $0.endObject()
                }
            }
        case ["metrics"]:
            return try on(request, method, ["GET"]) { () throws(APIError) in try getMetrics() }
        case ["clock"]:
            return try on(request, method, ["GET", "POST"]) { () throws(APIError) in
                method == "GET" ? clockResponse(clock.now()) : try postClock(request)
            }
        default:
            throw .notFound("no such path: \(request.path)")
        }
    }

    /// Runs `handler` if the method is allowed here; answers OPTIONS with the allowed methods and
    /// anything else with 405 and `Allow`.
    private func on(
        _ request: HTTPRequest, _ method: String, _ allowed: [String], _ handler: () throws(APIError) -> HTTPResponse
    ) throws(APIError) -> HTTPResponse {
        let methods = allowed.contains("GET") ? allowed + ["HEAD"] : allowed
        if method == "OPTIONS" {
            return HTTPResponse(
                status: 204, headers: [Header(name: "Allow", value: (methods + ["OPTIONS"]).joined(separator: ", "))])
        }
        guard allowed.contains(method) else {
            throw .methodNotAllowed(request.method, allowed: methods + ["OPTIONS"])
        }
        return try handler()
    }

    private func messageID(_ segment: Substring) throws(APIError) -> Int64 {
        guard !segment.isEmpty, segment.utf8.count <= 18, segment.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let id = Int64(segment)
        else { throw .notFound("no such message: \(segment)") }
        return id
    }

    // MARK: - Handlers

    private func index() -> HTTPResponse {
        json(200) {
            $0.beginObject()
            $0.key("name")
            $0.string("overlayd")
            $0.key("version")
            $0.string(OverlayService.version)
            $0.key("clock")
            $0.string(configuration.clock.rawValue)
            $0.key("endpoints")
            $0.beginArray()
            for endpoint in [
                "POST /messages", "GET /messages", "GET /messages/{id}", "PATCH /messages/{id}",
                "DELETE /messages/{id}", "GET /overlay", "PUT /orientation", "GET /healthz", "GET /metrics",
                "GET /clock", "POST /clock",
            ] {
                $0.string(endpoint)
            }
            $0.endArray()
            $0.endObject()
        }
    }

    private static let postFields: Set<String> = ["kind", "text", "progress", "duration", "immediate", "key"]
    private static let patchFields: Set<String> = ["kind", "text", "progress", "duration"]

    private func postMessage(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let fields = try RequestFields(request, textField: "text")
        try fields.rejectUnknown(allowing: OverlayService.postFields)
        let input = try messageInput(fields)
        let outcome = try channel.withEngine { (engine, now) throws(APIError) in
            switch engine.post(input, at: now) {
            case .success(let outcome): return outcome
            case .failure(let error): throw APIError(error)
            }
        }
        switch outcome {
        case .created(let message):
            metrics.messagePosted()
            return json(202, headers: [Header(name: "Location", value: "/messages/\(message.id)")]) {
                $0.message(message)
            }
        case .updated(let message):
            return json(200, headers: [Header(name: "Location", value: "/messages/\(message.id)")]) {
                $0.message(message)
            }
        }
    }

    private func listMessages() throws(APIError) -> HTTPResponse {
        let messages = try channel.withEngine { engine, _ in engine.liveMessages }
        return json(200) {
            $0.beginObject()
            $0.key("messages")
            $0.beginArray()
            for message in messages { $0.message(message) }
            $0.endArray()
            $0.endObject()
        }
    }

    private func getMessage(_ id: Int64) throws(APIError) -> HTTPResponse {
        let message = try channel.withEngine { engine, _ in engine.message(id: id) }
        guard let message else { throw APIError(EngineError.messageNotFound(id: id)) }
        return json(200) { $0.message(message) }
    }

    private func patchMessage(_ id: Int64, _ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let fields = try RequestFields(request, textField: "text")
        for name in ["immediate", "key"] where fields.contains(name) {
            throw .badRequest("\(name) cannot be changed after posting", field: name)
        }
        try fields.rejectUnknown(allowing: OverlayService.patchFields)
        let input = try messageInput(fields)
        let message = try channel.withEngine { (engine, now) throws(APIError) in
            switch engine.update(id: id, with: input, at: now) {
            case .success(let message): return message
            case .failure(let error): throw APIError(error)
            }
        }
        return json(200) { $0.message(message) }
    }

    private func deleteMessage(_ id: Int64) throws(APIError) -> HTTPResponse {
        let message = try channel.withEngine { (engine, now) throws(APIError) in
            switch engine.delete(id: id, at: now) {
            case .success(let message): return message
            case .failure(let error): throw APIError(error)
            }
        }
        return json(200) { $0.message(message) }
    }

    private func getOverlay(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let overlay = try channel.withEngine { engine, now in engine.overlay(at: now) }
        let etag = "W/\"\(overlay.version)\""
        let headers = [Header(name: "ETag", value: etag), Header(name: "Cache-Control", value: "no-cache")]
        if let tags = request.header("If-None-Match"), OverlayService.matches(tags, etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        return json(200, headers: headers) { $0.overlay(overlay) }
    }

    /// Whether an If-None-Match list names `etag` (weak comparison, RFC 9110 §13.1.2).
    static func matches(_ header: String, _ etag: String) -> Bool {
        let opaque = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingSpaces()
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == opaque
        }
    }

    private func putOrientation(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let fields = try RequestFields(request, textField: "orientation")
        try fields.rejectUnknown(allowing: ["orientation"])
        guard let name = try fields.string("orientation") else {
            throw .invalidField("orientation", "is required")
        }
        guard let orientation = Orientation(rawValue: name.trimmingSpaces()) else {
            throw .invalidField(
                "orientation", "must be one of \(Orientation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let overlay = try channel.withEngine { engine, now in
            engine.changeOrientation(to: orientation, at: now)
            return engine.overlay(at: now)
        }
        return json(200, headers: [Header(name: "ETag", value: "W/\"\(overlay.version)\"")]) { $0.overlay(overlay) }
    }

    private func postClock(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard clock.mode == .manual else {
            throw APIError(
                status: 409, code: "clock_not_manual",
                message: "the clock is real; start overlayd with --clock manual to move it by hand")
        }
        let fields = try RequestFields(request, textField: "advance")
        try fields.rejectUnknown(allowing: ["advance", "to"])
        let advance = try fields.number("advance")
        let target = try fields.number("to")
        let limit = 1e9
        switch (advance, target) {
        case (nil, nil): throw .invalidField("advance", "is required (or give to)")
        case (.some, .some): throw .badRequest("give advance or to, not both", field: "to")
        case (let seconds?, nil) where !(0...limit).contains(seconds):
            throw .invalidField("advance", "must be between 0 and \(Int(limit)) seconds")
        case (nil, let seconds?) where !(0...limit).contains(seconds):
            throw .invalidField("to", "must be between 0 and \(Int(limit)) seconds")
        default: break
        }
        let moved = clock.moveManual { now in
            if let advance { return now + .seconds(advance) }
            let to = Instant.seconds(target ?? 0)
            return to >= now ? to : nil
        }
        guard let moved else { throw .invalidField("to", "cannot move the clock back") }
        channel.advanceToNow()
        return clockResponse(moved)
    }

    private func clockResponse(_ now: Instant) -> HTTPResponse {
        json(200) {
            $0.beginObject()
            $0.key("now")
            $0.number(now.seconds)
            $0.key("mode")
            $0.string(clock.mode.rawValue)
            $0.endObject()
        }
    }

    private func getMetrics() throws(APIError) -> HTTPResponse {
        let overlay = try channel.withEngine { engine, now in engine.overlay(at: now) }
        let text = metrics.render(channels: [(channel.name, overlay)])
        return HTTPResponse(
            status: 200, headers: [Header(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")],
            body: Array(text.utf8))
    }

    // MARK: - Helpers

    /// The typed fields of a message, as POST and PATCH share them; ranges are the engine's to check.
    private func messageInput(_ fields: RequestFields) throws(APIError) -> MessageInput {
        var input = MessageInput()
        if let kind = try fields.string("kind") {
            guard let known = MessageKind(rawValue: kind.trimmingSpaces()) else {
                throw .invalidField(
                    "kind", "must be one of \(MessageKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            input.kind = known
        }
        input.text = try fields.string("text")
        input.progress = try fields.nullableNumber("progress")
        input.duration = try fields.number("duration").map(Interval.seconds)
        input.immediate = try fields.bool("immediate")
        input.key = try fields.string("key")
        return input
    }

    private func json(_ status: Int, headers: [Header] = [], _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter()
        write(&writer)
        return HTTPResponse(status: status, headers: [Header.json] + headers, body: writer.bytes)
    }
}
