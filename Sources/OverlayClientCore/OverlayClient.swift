#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A client of one overlayd channel: post and change messages, rotate, read the overlay, and
/// follow its changes with `updates()`.
///
/// ```swift
/// let client = OverlayClient(url: URL(string: "http://127.0.0.1:8080")!)
/// let message = try await client.post("Sending…", kind: .sending)
/// for try await overlay in client.updates() { draw(overlay) }
/// ```
///
/// Every call throws `OverlayClientError` (or `CancellationError` when its task is cancelled).
///
/// The client reaches the server through an `HTTPTransport`: `import OverlayClient` brings
/// `init(url:token:channel:configuration:)`, on URLSession.
public final class OverlayClient: Sendable {
    /// How updates reach the client.
    public enum Transport: Sendable, Hashable {
        /// Server-Sent Events, falling back to long-poll where streaming does not work.
        case automatic
        /// Server-Sent Events only.
        case events
        /// `GET /overlay?wait=…` only.
        case longPoll
    }

    /// Which messages `messages(_:)` reads.
    public struct Listing: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The shown one and the queued ones.
        public static let live: Listing = "live"
        /// Those waiting for their `delay` or `at`.
        public static let scheduled: Listing = "scheduled"
    }

    /// Timeouts and the reconnection policy.
    public struct Configuration: Sendable, Hashable {
        /// Seconds a call may wait for its answer.
        public var requestTimeout: Double = 30
        /// Seconds before the first reconnection, until the server says otherwise (`retry:`).
        public var reconnectDelay: Double = 1
        /// The reconnection delay doubles on each failure in a row, up to this many seconds.
        public var maximumReconnectDelay: Double = 30
        /// Seconds an event stream may stay silent (the server sends a comment every 15 s) before
        /// the connection is taken for dead; a stream silent from its first byte falls back to
        /// long-poll (a proxy that buffers it).
        public var streamIdleTimeout: Double = 45
        /// Seconds one long-poll waits for a change: a whole number from 1 to 60.
        public var longPollWait: Double = 30
        public var transport: Transport = .automatic

        /// The defaults: each can be changed on the value.
        public init() {}
    }

    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let url: URL
    /// The bearer token for writes (and for reads where the server asks for one).
    public let token: String?
    /// The channel; `nil` is the `default` channel.
    public let channel: String?
    public let configuration: Configuration
    /// Makes the transport of the client's calls, and one for each update stream, which closes it
    /// when it ends (and so leaves no connection behind).
    let makeTransport: @Sendable () -> any HTTPTransport
    /// The transport of the calls.
    let transport: any HTTPTransport

    /// A client of the server at `url` (its base: `http://host:port`, or a prefix a proxy serves
    /// it under), sending `token` as a bearer token, on `channel` (nil: `default`), through
    /// transports `makeTransport` makes.
    public init(
        url: URL, token: String? = nil, channel: String? = nil, configuration: Configuration = Configuration(),
        transport makeTransport: @escaping @Sendable () -> any HTTPTransport
    ) {
        self.url = url
        self.token = token
        self.channel = channel
        self.configuration = configuration
        self.makeTransport = makeTransport
        transport = makeTransport()
    }

    deinit {
        transport.close()
    }

    // MARK: - Messages

    /// Posts a message: 202, a new message; or, with the `key` of a live or scheduled message,
    /// updates it (then `text` may be nil).
    ///
    /// `delay` (seconds, > 0 and at most 7 days) or `at` schedules it: it answers `scheduled` and
    /// joins the queue then. `expires` (seconds, counted from when it joins) ends it `expired`
    /// if it is still waiting by then; `priority` puts it ahead of lower ones in the queue.
    ///
    /// `click` is what a tap on the overlay opens and `actions` its buttons (at most 3); a
    /// reader reports taps with `tap(action:)`. `accessibilityLabel` is what VoiceOver reads
    /// instead of the words the server makes of the message.
    @discardableResult
    public func post(
        _ text: String?, kind: Message.Kind? = nil, subtitle: String? = nil, icon: String? = nil,
        progress: Double? = nil, duration: Double? = nil, immediate: Bool? = nil, key: String? = nil,
        delay: Double? = nil, at: ScheduledTime? = nil, expires: Double? = nil, priority: Priority? = nil,
        click: String? = nil, actions: [Message.Action]? = nil, accessibilityLabel: String? = nil
    ) async throws -> Message {
        var fields = MessageFields(
            text: text, kind: kind?.rawValue, subtitle: subtitle, icon: icon, progress: progress, duration: duration,
            immediate: immediate, key: key, click: click, actions: actions, accessibilityLabel: accessibilityLabel)
        fields.schedule(delay: delay, at: at, expires: expires, priority: priority)
        return try await post(fields)
    }

    /// Posts fields as they are (`overlayd post` sends its schedule flags as their text).
    package func post(_ fields: MessageFields) async throws -> Message {
        try await call("POST", "/messages", body: fields)
    }

    /// Changes a queued, shown or scheduled message (nil leaves a field as it is). A new `delay`
    /// (from now) or `at` is for a scheduled message only: any other is 409 `not_scheduled`.
    @discardableResult
    public func patch(
        _ id: Int, kind: Message.Kind? = nil, text: String? = nil, subtitle: String? = nil, icon: String? = nil,
        progress: Double? = nil, duration: Double? = nil, delay: Double? = nil, at: ScheduledTime? = nil,
        expires: Double? = nil, priority: Priority? = nil, click: String? = nil, actions: [Message.Action]? = nil,
        accessibilityLabel: String? = nil
    ) async throws -> Message {
        var fields = MessageFields(
            text: text, kind: kind?.rawValue, subtitle: subtitle, icon: icon, progress: progress, duration: duration,
            click: click, actions: actions, accessibilityLabel: accessibilityLabel)
        fields.schedule(delay: delay, at: at, expires: expires, priority: priority)
        return try await call("PATCH", "/messages/\(id)", body: fields)
    }

    /// Cancels a queued message, or ends the shown one now.
    @discardableResult
    public func delete(_ id: Int) async throws -> Message {
        try await call("DELETE", "/messages/\(id)")
    }

    /// One message, also after it ended (while the server's history holds it).
    public func message(_ id: Int) async throws -> Message {
        try await call("GET", "/messages/\(id)")
    }

    /// The shown message and the queued ones, in order (`.live`), or the scheduled ones in the
    /// order they are due (`.scheduled`): every page of `GET /messages`. A page cursor that
    /// stopped being live (or scheduled) while the pages were read starts the reading again, up
    /// to three times.
    public func messages(_ listing: Listing = .live) async throws -> [Message] {
        var attempts = 0
        while true {
            do {
                var messages: [Message] = []
                var after: Int? = nil
                repeat {
                    var query = [URLQueryItem(name: "limit", value: "1000")]
                    // Live is the server's default: left out, an older server answers it too.
                    if listing != .live { query.append(URLQueryItem(name: "state", value: listing.rawValue)) }
                    if let after { query.append(URLQueryItem(name: "after", value: String(after))) }
                    let (head, data) = try await transport.perform(request("GET", "/messages", query: query))
                    let page: MessageList = try Self.decode(head, data)
                    messages += page.messages
                    after = page.next
                } while after != nil
                return messages
            } catch let error as OverlayClientError where error.code == "cursor_expired" && attempts < 3 {
                attempts += 1
            }
        }
    }

    // MARK: - The overlay

    /// The overlay now.
    public func overlay() async throws -> Overlay {
        try await call("GET", "/overlay")
    }

    /// Rotates the interface; answers the overlay (a rotation animates unless it is hidden).
    @discardableResult
    public func orientation(_ orientation: Overlay.Orientation) async throws -> Overlay {
        try await call("PUT", "/orientation", body: ["orientation": orientation.rawValue])
    }

    /// Changes the device profile (`iphone`, `iphone-notch`, `ipad`, or one the server defines).
    @discardableResult
    public func device(_ name: String) async throws -> Overlay {
        try await call("PUT", "/device", body: ["device": name])
    }

    /// Changes the presentation: `statusBar`, `fullWidth`, `pill` or `auto`.
    @discardableResult
    public func presentation(_ name: String) async throws -> Overlay {
        try await call("PUT", "/presentation", body: ["presentation": name])
    }

    /// The finger is down on the overlay: the shown message does not end by its time until
    /// `release()` (or the server's longest hold). Nothing shown is 409 `nothing_shown`.
    @discardableResult
    public func hold() async throws -> Overlay { try await call("POST", "/overlay/hold") }

    /// The finger is lifted.
    @discardableResult
    public func release() async throws -> Overlay { try await call("POST", "/overlay/release") }

    /// The overlay is swiped away: the shown message ends as `dismissed`; answers it.
    @discardableResult
    public func dismiss() async throws -> Message { try await call("POST", "/overlay/dismiss") }

    /// A tap on the shown message (`action` nil) or on one of its actions, by id: the message
    /// keeps it among its `taps` and the event stream tells it; answers the message. Nothing
    /// shown is 409 `nothing_shown`, an action it does not have 422.
    @discardableResult
    public func tap(action: String? = nil) async throws -> Message {
        try await call("POST", "/overlay/tap", body: TapFields(action: action))
    }

    /// Changes the app's status bar under the overlay (`PUT /statusbar`): its style, whether it
    /// is hidden (a hidden bar holds the overlay back), and the animation of a change of hidden.
    /// Answers the overlay. A server whose appearance is decided by controllers refuses it (409).
    @discardableResult
    public func statusBar(
        style: StatusBar.Style? = nil, hidden: Bool? = nil, animation: StatusBar.UpdateAnimation? = nil
    ) async throws -> Overlay {
        let fields = StatusBarFields(style: style?.rawValue, hidden: hidden, animation: animation?.rawValue)
        return try await call("PUT", "/statusbar", body: fields)
    }

    // MARK: - The manual clock

    /// The server's clock, in seconds.
    public func clock() async throws -> Double {
        let clock: Clock = try await call("GET", "/clock", channelled: false)
        return clock.now
    }

    /// Moves a manual clock forward by `seconds`; answers the time after the move.
    @discardableResult
    public func advanceClock(by seconds: Double) async throws -> Double {
        let clock: Clock = try await call("POST", "/clock", body: ["advance": seconds], channelled: false)
        return clock.now
    }

    /// Moves a manual clock to `seconds` (not backwards); answers the time after the move.
    @discardableResult
    public func setClock(to seconds: Double) async throws -> Double {
        let clock: Clock = try await call("POST", "/clock", body: ["to": seconds], channelled: false)
        return clock.now
    }

    // MARK: - Requests

    /// The URL of `path` on this client's channel (or on the server, for `channelled: false`).
    func endpoint(_ path: String, query: [URLQueryItem] = [], channelled: Bool = true) -> URL {
        var prefix = ""
        if channelled, let channel, channel != "default" {
            prefix = "/channels/" + Self.escaped(channel)
        }
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var components = URLComponents(string: base + prefix + path) ?? URLComponents()
        if !query.isEmpty { components.queryItems = query }
        return components.url ?? url
    }

    /// `name` with every byte but unreserved ASCII percent-escaped: any other channel name
    /// reaches the server escaped, and it says why not.
    static func escaped(_ name: String) -> String {
        var escaped = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                escaped.unicodeScalars.append("%")
                escaped.unicodeScalars.append(digits[Int(byte >> 4)])
                escaped.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return escaped
    }

    func request(
        _ method: String, _ path: String, query: [URLQueryItem] = [], channelled: Bool = true, timeout: Double? = nil
    ) -> HTTPRequest {
        var request = HTTPRequest(
            method: method, url: endpoint(path, query: query, channelled: channelled),
            headers: ["Accept": "application/json"], timeout: timeout ?? configuration.requestTimeout)
        if let token { request.headers["Authorization"] = "Bearer \(token)" }
        return request
    }

    func call<Answer: Decodable>(
        _ method: String, _ path: String, body: (some Encodable & Sendable)? = nil as Empty?, channelled: Bool = true
    ) async throws -> Answer {
        var request = request(method, path, channelled: channelled)
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = try JSONEncoder().encode(body)
        }
        let (head, data) = try await transport.perform(request)
        return try Self.decode(head, data)
    }

    /// The answer's body as `Answer`, or the error it reports.
    static func decode<Answer: Decodable>(_ head: HTTPResponseHead, _ data: Data) throws -> Answer {
        guard (200..<300).contains(head.status) else { throw refusal(head, data) }
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw OverlayClientError.invalidResponse(
                status: head.status, reason: "not the expected JSON (\(error)): \(excerpt(data))")
        }
    }

    /// The error an answer that is not a success reports.
    static func refusal(_ head: HTTPResponseHead, _ data: Data) -> OverlayClientError {
        guard let body = try? JSONDecoder().decode(ErrorBody.self, from: data) else {
            return .invalidResponse(status: head.status, reason: excerpt(data))
        }
        let retryAfter = head.value("Retry-After").flatMap { Double($0) }
        return .refused(
            ServerError(
                status: head.status, code: body.error.code, message: body.error.message,
                field: body.error.field, retryAfter: retryAfter))
    }

    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        return text.isEmpty ? "an empty body" : text
    }
}

/// The fields of `PUT /statusbar`; absent ones are left out of the JSON.
struct StatusBarFields: Encodable, Sendable {
    var style: String?
    var hidden: Bool?
    var animation: String?
}

/// The body of `POST /overlay/tap`: the action, or nothing for a tap on the overlay.
struct TapFields: Encodable, Sendable {
    var action: String?
}

struct MessageList: Decodable {
    var messages: [Message]
    /// The cursor of the next page; absent (an older server) or null on the last page.
    var next: Int?
}

struct Clock: Decodable {
    var now: Double
}

struct Empty: Encodable, Sendable {}
