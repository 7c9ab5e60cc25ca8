import MicroHTTP
import OverlayEngine
import OverlayStore
import Platform
import Synchronization

/// The overlay service: routes HTTP requests to the channels' engines and answers in JSON (spec §5).
///
/// `respond(to:)` needs no socket, so route tests call it directly; `handle(_:_:)` is what
/// `OverlayServer` puts behind libmicrohttpd, where a long-poll or an event stream answers later.
public final class OverlayService: Sendable {
    public let configuration: ServiceConfiguration
    let clock: ServiceClock
    let scheduler: DeadlineScheduler
    let channels: ChannelRegistry
    let encoder: OverlayEncoder
    let store: OverlayStore?
    let guardian: AccessGuard
    let metrics = Metrics()

    public static let version = "0.1.0"
    /// The longest a long-poll may wait (spec §5).
    static let maximumWait = 60.0

    /// The service, with its state restored from the data directory unless `ephemeral`. A data
    /// directory that cannot be used (unreadable, damaged, or in use) is an error.
    public init(configuration: ServiceConfiguration) throws(StoreError) {
        let clock = ServiceClock(mode: configuration.clock)
        let encoder = OverlayEncoder(streamBufferBytes: configuration.eventBufferBytes)
        let engine = configuration.engineConfiguration
        let store = configuration.ephemeral ? nil : try OverlayStore(directory: configuration.dataDirectory)
        let loaded = try store?.load() ?? []
        let scheduler = DeadlineScheduler()
        self.configuration = configuration
        self.clock = clock
        self.scheduler = scheduler
        self.encoder = encoder
        self.store = store
        self.guardian = AccessGuard(configuration: configuration)
        let restored = loaded.enumerated().map { number, channel in
            let restart = OverlayEngine.restored(
                configuration: engine, state: channel.state, live: channel.live, history: channel.history,
                devices: configuration.devices, now: clock.now())
            return Channel(
                name: channel.name, number: number, engine: restart.value, restarted: restart.changes, clock: clock,
                scheduler: scheduler, encoder: encoder, store: store, devices: configuration.devices)
        }
        self.channels = ChannelRegistry(limit: max(configuration.maxChannels, restored.count), restored: restored) {
            name, number in
            Channel(
                name: name, number: number,
                engine: OverlayEngine(configuration: engine, now: clock.now(), version: clock.firstVersion()),
                clock: clock, scheduler: scheduler, encoder: encoder, store: store, devices: configuration.devices)
        }
        let channels = self.channels
        store?.start { name, stored in channels.existing(name)?.rollBack(stored: stored) }
        // The restored channels are stored as this run holds them before anything else happens:
        // a failed commit goes back to what the database holds, which must be this run's state.
        if let store, !loaded.isEmpty, !store.flush() {
            scheduler.stop()
            store.close()
            throw StoreError("\(store.path) cannot be written: storing the restored state failed")
        }
        // Restored channels schedule their deadlines at once.
        for channel in restored { channel.advanceToNow() }
        scheduleHeartbeat()
    }

    /// Waits until every change so far is on disk.
    public func flush() {
        store?.flush()
    }

    /// Answers every waiting long-poll 503 and ends every event stream: readers do not hold up a
    /// stop. Writes waiting for their commit are left to finish.
    public func releaseReaders() {
        for channel in channels.all { channel.releaseReaders() }
    }

    /// Stops the timer thread and closes the store. The service answers no deadline after this.
    public func shutdown() {
        scheduler.stop()
        store?.close()
    }

    /// What a request asks for: an answer now, or a reader to hold.
    enum Routed {
        case response(HTTPResponse)
        /// A write's answer, to send once the store holds `sequence` (at once without a store).
        case durable(HTTPResponse, sequence: UInt64?)
        /// Long-poll: answer once the version differs from `since`, or 304 after `seconds`.
        case wait(Channel, since: UInt64, seconds: Double)
        /// Server-Sent Events from the channel.
        case events(Channel, lastEventID: UInt64?)
    }

    /// Answers one request through libmicrohttpd, now or (long-poll, events) later.
    public func handle(_ request: HTTPRequest, _ responder: HTTPResponder) {
        switch routed(request) {
        case .response(let response):
            responder.respond(response)
        case .durable(let response, let sequence):
            guard let store, let sequence else {
                responder.respond(response)
                return
            }
            store.whenDurable(sequence) { stored in
                responder.respond(stored ? response : OverlayService.notStored.response)
            }
        case .wait(let channel, let since, let seconds):
            responder.endIfClientLeaves()
            channel.wait(since: since, seconds: seconds, responder: responder)
        case .events(let channel, let lastEventID):
            guard let stream = responder.stream(status: 200, headers: OverlayService.eventHeaders) else { return }
            // Tell EventSource clients to reconnect after a second, not the default three.
            stream.send(Array("retry: 1000\n\n".utf8))
            channel.subscribe(stream, lastEventID: lastEventID)
        }
    }

    /// Answers one request at once. A long-poll answers as if its time were up (304); an event
    /// stream answers with its first event only. For tests without sockets.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        switch routed(request) {
        case .response(let response):
            return response
        case .durable(let response, let sequence):
            guard let store, let sequence else { return response }
            return store.waitUntilDurable(sequence) ? response : OverlayService.notStored.response
        case .wait(let channel, _, _):
            let version = (try? channel.withEngine { engine, _ in engine.version }) ?? 0
            return encoder.notModified(version: version)
        case .events(let channel, _):
            let overlay = try? channel.withEngine { engine, now in engine.overlay(at: now) }
            return HTTPResponse(
                status: 200, headers: OverlayService.eventHeaders, body: overlay.map(encoder.event) ?? [])
        }
    }

    /// The answer to a write whose commit failed: the change was undone, in memory and on disk.
    static let notStored = APIError(
        status: 503, code: "storage_failed",
        message: "the change could not be written to disk and was undone; see the server's log",
        headers: [Header(name: "Retry-After", value: "1")])

    static let eventHeaders = [
        Header(name: "Content-Type", value: "text/event-stream; charset=utf-8"),
        Header(name: "Cache-Control", value: "no-cache"),
        // nginx buffers responses unless told not to; an event stream must flow.
        Header(name: "X-Accel-Buffering", value: "no"),
    ]

    private func routed(_ request: HTTPRequest) -> Routed {
        do throws(APIError) {
            try guardian.check(request)
            return try route(request)
        } catch {
            return .response(error.response)
        }
    }

    // MARK: - Routing

    private static let get = ["GET"]
    private static let getPost = ["GET", "POST"]
    private static let getPatchDelete = ["GET", "PATCH", "DELETE"]
    private static let put = ["PUT"]

    /// The paths readers hit all the time, already split.
    private static let commonPaths: [String: [Substring]] = [
        "/overlay": ["overlay"], "/messages": ["messages"], "/events": ["events"], "/healthz": ["healthz"],
    ]

    private func route(_ request: HTTPRequest) throws(APIError) -> Routed {
        // The request readers make most, straight to its handler.
        if request.path == "/overlay" && (request.method == "GET" || request.method == "HEAD") {
            return try getOverlay(ChannelRegistry.defaultName, request)
        }
        let path = OverlayService.commonPaths[request.path] ?? OverlayService.segments(of: request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        switch (path.count, path.first ?? "") {
        case (1, ""):
            return try on(request, method, OverlayService.get) { _ throws(APIError) in .response(index()) }
        case (1, "healthz"):
            return try on(request, method, OverlayService.get) { _ throws(APIError) in
                .response(
                    json(200) {
                        $0.beginObject()
                        $0.key("status")
                        $0.string("ok")
                        $0.endObject()
                    })
            }
        case (1, "metrics"):
            return try on(request, method, OverlayService.get) { _ throws(APIError) in .response(getMetrics()) }
        case (1, "clock"):
            return try on(request, method, OverlayService.getPost) { request throws(APIError) in
                .response(method == "GET" ? clockResponse(clock.now()) : try postClock(request))
            }
        case (1, "channels"):
            return try on(request, method, OverlayService.get) { _ throws(APIError) in .response(listChannels()) }
        case (1, "openapi.yaml"):
            return try on(request, method, OverlayService.get) { _ throws(APIError) in
                .response(
                    HTTPResponse(
                        status: 200, headers: [Header(name: "Content-Type", value: "application/yaml; charset=utf-8")],
                        body: PackageResources.openapi_yaml))
            }
        case (1, "events"):
            // `/events?channel=name` is `/channels/name/events`.
            let name = OverlayService.queryValue(request, "channel") ?? ChannelRegistry.defaultName
            return try channelRoute(request, method, try channelName(name), path, prefix: "/channels/\(name)")
        case (2..., "channels"):
            let name = try channelName(String(path[1]))
            if path.count == 2 {
                return try on(request, method, OverlayService.get) { _ throws(APIError) in
                    .response(try channelSummary(name))
                }
            }
            return try channelRoute(request, method, name, Array(path[2...]), prefix: "/channels/\(name)")
        default:
            return try channelRoute(request, method, ChannelRegistry.defaultName, path, prefix: "")
        }
    }

    /// The path's segments after the leading "/", without one trailing empty segment ("/a/" is
    /// "/a"). Split on the scalar "/", not the Character: a combining mark after a slash
    /// ("/\u{301}") makes one Character of the two, which would hide the slash.
    static func segments(of path: String) -> [Substring] {
        var segments = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst().map(Substring.init)
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        return segments
    }

    /// The paths every channel has; `prefix` is how this request named the channel.
    private func channelRoute(
        _ request: HTTPRequest, _ method: String, _ name: String, _ path: [Substring], prefix: String
    ) throws(APIError) -> Routed {
        switch (path.count, path.first ?? "") {
        case (1, "messages"):
            return try on(request, method, OverlayService.getPost) { request throws(APIError) in
                method == "GET" ? .response(listMessages(name)) : try postMessage(name, request, prefix: prefix)
            }
        case (2, "messages"):
            return try on(request, method, OverlayService.getPatchDelete) { request throws(APIError) in
                let id = try messageID(path[1])
                switch method {
                case "GET": return .response(try getMessage(name, id))
                case "PATCH": return try patchMessage(name, id, request)
                default: return try deleteMessage(name, id)
                }
            }
        case (1, "overlay"):
            return try on(request, method, OverlayService.get) { request throws(APIError) in
                try getOverlay(name, request)
            }
        case (1, "orientation"):
            return try on(request, method, OverlayService.put) { request throws(APIError) in
                try putOrientation(name, request)
            }
        case (1, "device"):
            return try on(request, method, OverlayService.put) { request throws(APIError) in
                try putDevice(name, request)
            }
        case (1, "events"):
            return try on(request, method, OverlayService.get) { request throws(APIError) in
                .events(try channels.obtain(name), lastEventID: try lastEventID(request))
            }
        default:
            throw .notFound("no such path: \(request.path)")
        }
    }

    private func channelName(_ name: String) throws(APIError) -> String {
        guard ChannelName.isValid(name) else {
            throw .badRequest("a channel name is 1 to 64 of A-Z a-z 0-9 . _ -", field: "channel")
        }
        return name
    }

    /// Reads a channel without creating it: one that does not exist shows what a new one would.
    private func read<T: Sendable>(_ name: String, _ body: (OverlayEngine, Instant) -> T) -> T {
        if let channel = channels.existing(name) {
            return (try? channel.withEngine { engine, now in body(engine, now) }) ?? body(fresh(), clock.now())
        }
        return body(fresh(), clock.now())
    }

    private func fresh() -> OverlayEngine {
        OverlayEngine(configuration: configuration.engineConfiguration, now: clock.now())
    }

    static func queryValue(_ request: HTTPRequest, _ name: String) -> String? {
        request.query.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// Runs `handler` if the method is allowed here; answers OPTIONS with the allowed methods and
    /// anything else with 405 and `Allow`.
    private func on(
        _ request: HTTPRequest, _ method: String, _ allowed: [String],
        _ handler: (HTTPRequest) throws(APIError) -> Routed
    ) throws(APIError) -> Routed {
        let methods = allowed.contains("GET") ? allowed + ["HEAD"] : allowed
        if method == "OPTIONS" {
            return .response(
                HTTPResponse(
                    status: 204,
                    headers: [Header(name: "Allow", value: (methods + ["OPTIONS"]).joined(separator: ", "))]))
        }
        guard allowed.contains(method) else {
            throw .methodNotAllowed(request.method, allowed: methods + ["OPTIONS"])
        }
        // The handler gets the request as an argument rather than capturing it: a capture copies
        // the request (a retain of each of its references).
        return try handler(request)
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
                "DELETE /messages/{id}", "GET /overlay", "PUT /orientation", "PUT /device", "GET /events",
                "GET /channels", "GET /channels/{name}", "/channels/{name}/…", "GET /healthz", "GET /metrics",
                "GET /clock", "POST /clock", "GET /openapi.yaml",
            ] {
                $0.string(endpoint)
            }
            $0.endArray()
            $0.endObject()
        }
    }

    private static let postFields: Set<String> = ["kind", "text", "progress", "duration", "immediate", "key"]
    private static let patchFields: Set<String> = ["kind", "text", "progress", "duration"]

    private func postMessage(_ name: String, _ request: HTTPRequest, prefix: String) throws(APIError) -> Routed {
        let fields = try RequestFields(request, textField: "text")
        try fields.rejectUnknown(allowing: OverlayService.postFields)
        let input = try messageInput(fields)
        let (result, sequence) = try channels.obtain(name).write { engine, now in engine.post(input, at: now) }
        let outcome = try result.get(orThrow: APIError.init)
        let location = Header.location.with(value: "\(prefix)/messages/\(outcome.message.id)")
        if case .created = outcome { metrics.messagePosted() }
        return .durable(
            json(outcome.isCreated ? 202 : 200, headers: [.json, location]) { $0.message(outcome.message) },
            sequence: sequence)
    }

    private func listMessages(_ name: String) -> HTTPResponse {
        let messages = read(name) { engine, _ in engine.liveMessages }
        return json(200) {
            $0.beginObject()
            $0.key("messages")
            $0.beginArray()
            for message in messages { $0.message(message) }
            $0.endArray()
            $0.endObject()
        }
    }

    private func getMessage(_ name: String, _ id: Int64) throws(APIError) -> HTTPResponse {
        guard let message = read(name, { engine, _ in engine.message(id: id) }) else {
            throw APIError(EngineError.messageNotFound(id: id))
        }
        return json(200) { $0.message(message) }
    }

    private func patchMessage(_ name: String, _ id: Int64, _ request: HTTPRequest) throws(APIError) -> Routed {
        let fields = try RequestFields(request, textField: "text")
        for field in ["immediate", "key"] where fields.contains(field) {
            throw .badRequest("\(field) cannot be changed after posting", field: field)
        }
        try fields.rejectUnknown(allowing: OverlayService.patchFields)
        let input = try messageInput(fields)
        let channel = try existingChannel(name, messageID: id)
        let (result, sequence) = channel.write { engine, now in engine.update(id: id, with: input, at: now) }
        let message = try result.get(orThrow: APIError.init)
        return .durable(json(200) { $0.message(message) }, sequence: sequence)
    }

    private func deleteMessage(_ name: String, _ id: Int64) throws(APIError) -> Routed {
        let (result, sequence) = try existingChannel(name, messageID: id).write { engine, now in
            engine.delete(id: id, at: now)
        }
        let message = try result.get(orThrow: APIError.init)
        return .durable(json(200) { $0.message(message) }, sequence: sequence)
    }

    /// A message can only be changed in a channel that exists: anywhere else it is unknown.
    private func existingChannel(_ name: String, messageID: Int64) throws(APIError) -> Channel {
        guard let channel = channels.existing(name) else { throw APIError(EngineError.messageNotFound(id: messageID)) }
        return channel
    }

    /// `GET /overlay`: 304 while `If-None-Match` (or `?since=`) names the current version; with
    /// `?wait=N` the request is held until the version changes or N seconds pass.
    private func getOverlay(_ name: String, _ request: HTTPRequest) throws(APIError) -> Routed {
        let tags = request.header("If-None-Match")
        // The common conditional GET names one tag: its version is read from the bytes directly.
        // A list of tags or `*` is matched as RFC 9110 says, against the version read below.
        let single = tags.flatMap(OverlayService.version(fromSingleTag:))
        let since: UInt64?
        if let text = OverlayService.queryValue(request, "since") {
            guard let version = UInt64(text.trimmingSpaces()) else {
                throw .badRequest("since must be a version number, not \"\(text)\"", field: "since")
            }
            since = version
        } else {
            since = single ?? tags.flatMap(OverlayService.version(fromTags:))
        }
        var wait = 0.0
        if let text = OverlayService.queryValue(request, "wait") {
            guard let seconds = Double(text.trimmingSpaces()), seconds.isFinite else {
                throw .badRequest("wait must be a number of seconds, not \"\(text)\"", field: "wait")
            }
            // 0 would hold nothing: spec §5 allows a wait in (0, 60].
            guard seconds > 0 && seconds <= OverlayService.maximumWait else {
                throw .invalidField(
                    "wait", "must be more than 0 and at most \(Int(OverlayService.maximumWait)) seconds")
            }
            wait = seconds
        }
        // Only a long-poll that has to wait needs the channel (and creates it); one whose version
        // differs is a read, answered below, and a read creates nothing. Should the version move
        // between this look and the wait, the wait answers at once.
        if wait > 0, let since, since == read(name, { engine, _ in engine.version }) {
            return .wait(try channels.obtain(name), since: since, seconds: wait)
        }
        if let channel = channels.existing(name), tags == nil || single != nil {
            return .response(channel.overlayResponse(unlessVersion: single ?? since))
        }
        let overlay = read(name) { engine, now in engine.overlay(at: now) }
        let etag = OverlayEncoder.etag(overlay.version)
        if let tags, OverlayService.matches(tags, etag) {
            return .response(encoder.notModified(version: overlay.version))
        }
        if since == overlay.version {
            return .response(encoder.notModified(version: overlay.version))
        }
        return .response(encoder.response(overlay))
    }

    /// Whether an If-None-Match list names `etag` (weak comparison, RFC 9110 §13.1.2).
    static func matches(_ header: String, _ etag: String) -> Bool {
        let opaque = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingSpaces()
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == opaque
        }
    }

    /// The version of an If-None-Match that is one tag, `W/"7"` or `"7"` (spaces around allowed);
    /// nil for anything else. Reads bytes only: it runs on every conditional GET.
    static func version(fromSingleTag header: String) -> UInt64? {
        var header = header
        return header.withUTF8 { bytes -> UInt64? in
            var start = 0
            var end = bytes.count
            while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            if end - start >= 2 && bytes[start] == UInt8(ascii: "W") && bytes[start + 1] == UInt8(ascii: "/") {
                start += 2
            }
            guard end - start >= 3, bytes[start] == UInt8(ascii: "\""), bytes[end - 1] == UInt8(ascii: "\"") else {
                return nil
            }
            var version: UInt64 = 0
            for index in (start + 1)..<(end - 1) {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                let (times, overflow) = version.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(byte - 0x30))
                guard !overflow && !carry else { return nil }
                version = sum
            }
            return version
        }
    }

    /// The version an If-None-Match header names (`W/"7"` or `"7"`; the first of a list).
    static func version(fromTags header: String) -> UInt64? {
        for candidate in header.split(separator: ",") {
            var tag = Substring(candidate.trimmingSpaces())
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            guard tag.count >= 2, tag.first == "\"", tag.last == "\"" else { continue }
            if let version = UInt64(tag.dropFirst().dropLast()) { return version }
        }
        return nil
    }

    /// `Last-Event-ID` (what EventSource sends on reconnecting), or `?lastEventId=` for clients
    /// that cannot set headers. The header wins, but a malformed value is refused in either.
    private func lastEventID(_ request: HTTPRequest) throws(APIError) -> UInt64? {
        func version(_ text: String?) throws(APIError) -> UInt64? {
            guard let text else { return nil }
            let trimmed = text.trimmingSpaces()
            if trimmed.isEmpty { return nil }
            guard let version = UInt64(trimmed) else {
                throw .badRequest("Last-Event-ID must be a version number, not \"\(text)\"", field: "Last-Event-ID")
            }
            return version
        }
        let header = try version(request.header("Last-Event-ID"))
        let query = try version(OverlayService.queryValue(request, "lastEventId"))
        return header ?? query
    }

    private func putOrientation(_ name: String, _ request: HTTPRequest) throws(APIError) -> Routed {
        let fields = try RequestFields(request, textField: "orientation")
        try fields.rejectUnknown(allowing: ["orientation"])
        guard let text = try fields.string("orientation") else {
            throw .invalidField("orientation", "is required")
        }
        guard let orientation = Orientation(rawValue: text.trimmingSpaces()) else {
            throw .invalidField(
                "orientation", "must be one of \(Orientation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let (overlay, sequence) = try channels.obtain(name).write { engine, now in
            engine.changeOrientation(to: orientation, at: now).map { _ in engine.overlay(at: now) }
        }
        return .durable(encoder.response(overlay), sequence: sequence)
    }

    private func putDevice(_ name: String, _ request: HTTPRequest) throws(APIError) -> Routed {
        let fields = try RequestFields(request, textField: "device")
        try fields.rejectUnknown(allowing: ["device"])
        guard let text = try fields.string("device") else {
            throw .invalidField("device", "is required")
        }
        guard let profile = configuration.devices[text.trimmingSpaces()] else {
            throw .invalidField(
                "device", "must be one of \(configuration.devices.keys.sorted().joined(separator: ", "))")
        }
        let (overlay, sequence) = try channels.obtain(name).write { engine, now in
            engine.changeDevice(to: profile, at: now).map { _ in engine.overlay(at: now) }
        }
        return .durable(encoder.response(overlay), sequence: sequence)
    }

    private func listChannels() -> HTTPResponse {
        let summaries = channels.all.compactMap { channel in
            try? channel.withEngine { engine, now in ChannelSummary(channel: channel, engine: engine, now: now) }
        }
        return json(200) {
            $0.beginObject()
            $0.key("channels")
            $0.beginArray()
            for summary in summaries { $0.channel(summary) }
            $0.endArray()
            $0.endObject()
        }
    }

    private func channelSummary(_ name: String) throws(APIError) -> HTTPResponse {
        guard let channel = channels.existing(name) else {
            throw .notFound("no channel \(name) (a channel comes into being on its first write)")
        }
        let summary = try channel.withEngine { engine, now in
            ChannelSummary(channel: channel, engine: engine, now: now)
        }
        return json(200) { $0.channel(summary) }
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
        for channel in channels.all { channel.advanceToNow() }
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

    private func getMetrics() -> HTTPResponse {
        let overlays = channels.all.compactMap { channel in
            (try? channel.withEngine { engine, now in engine.overlay(at: now) }).map { (channel, $0) }
        }
        let text = metrics.render(
            channels: overlays.map {
                (name: $0.0.name, overlay: $0.1, subscribers: $0.0.subscriberCount, waiters: $0.0.waiterCount)
            })
        return HTTPResponse(
            status: 200, headers: [Header(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")],
            body: Array(text.utf8))
    }

    private func scheduleHeartbeat() {
        let interval = Int64(configuration.heartbeatSeconds * 1e9)
        // Captured strongly, like every scheduler entry: a weak reference would give the service a
        // side table and slow every retain of it; `DeadlineScheduler.stop` drops the entries.
        scheduler.schedule(.heartbeat, at: MonotonicClock.nanoseconds() + interval) { [self] in
            let comment = Array(": heartbeat\n\n".utf8)
            for channel in channels.all { channel.heartbeat(comment) }
            scheduleHeartbeat()
        }
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
        if let seconds = try fields.number("duration") {
            // The range is checked on the number as sent, before rounding to whole nanoseconds
            // (the engine checks the rounded one): 3600.0000000000005 is over 3600 (spec §2).
            let limit = MessageRules.maximumDuration.seconds
            guard seconds > 0 && seconds <= limit else {
                throw .invalidField("duration", "must be greater than 0 and at most \(Int(limit)) seconds")
            }
            input.duration = .seconds(seconds)
        }
        input.immediate = try fields.bool("immediate")
        input.key = try fields.string("key")
        return input
    }

    /// A JSON answer; `headers` replaces the usual `[.json]` (and should include it).
    private func json(_ status: Int, headers: [Header] = [.json], _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter()
        write(&writer)
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }
}

/// One line of `GET /channels`.
struct ChannelSummary: Sendable {
    var name: String
    var version: UInt64
    var phase: Phase
    var queued: Int
    var device: String
    var orientation: Orientation
    var subscribers: Int

    init(channel: Channel, engine: OverlayEngine, now: Instant) {
        name = channel.name
        version = engine.version
        phase = engine.phase
        queued = engine.queue.count
        device = engine.device.name
        orientation = engine.orientation
        subscribers = 0
    }
}

extension JSONWriter {
    mutating func channel(_ summary: ChannelSummary) {
        beginObject()
        key("name")
        string(summary.name)
        key("version")
        integer(summary.version)
        key("phase")
        string(summary.phase.rawValue)
        key("queued")
        integer(summary.queued)
        key("device")
        string(summary.device)
        key("orientation")
        string(summary.orientation.rawValue)
        endObject()
    }
}

extension Result {
    /// The success value, or the failure turned into another error and thrown.
    func get<E: Error>(orThrow transform: (Failure) -> E) throws(E) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw transform(error)
        }
    }
}

extension PostOutcome {
    var isCreated: Bool {
        if case .created = self { return true }
        return false
    }
}
