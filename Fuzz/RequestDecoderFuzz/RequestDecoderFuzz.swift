import MicroHTTP
import OverlayEngine
import OverlayService

/// The libFuzzer entry point: every input is run through the request decoders (see `FuzzInput`).
/// Built with `-sanitize=fuzzer` (scripts/fuzz), libFuzzer calls it with mutated inputs; built
/// plainly, `Replay` calls it with files, to reproduce a crash or re-run the corpus.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestDecoders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    RequestDecoderFuzz.run(bytes)
    return 0
}

/// What one fuzz input exercises, and the properties it checks. A failed property is a crash
/// (`fatalError`), which is what libFuzzer reports and minimises.
///
/// An input is a little HTTP conversation in text, so that seeds are readable and mutations stay
/// meaningful (Fuzz/corpus/ has examples, Fuzz/overlayd.dict the tokens):
///
///     #af                       optional first line: service flags (below)
///     POST /messages?kind=sent  request line: method, path and query (percent-encoded)
///     Content-Type: text/plain  headers, up to an empty line
///
///     Upload done               the body, up to a line `%%` that starts the next request
///
/// Flags: `a` write and read tokens (`Bearer fuzz-write-token`, `fuzz-read-token`), `f` fade,
/// `n` no animation, `e` easeInOut, `c` a cap width wider than the bar, `t` bar on top, `v` the
/// status bar decided by view controllers (`statusBar.appearance: controllers`), `h` the status
/// bar hidden at launch, `b` the bounce, `p` the pill, `w` the full-width bar everywhere, `r` the
/// rise between messages and `m` a shortest showing (`minimumVisible` 0.4).
///
/// Each request's body goes to `JSONParser` (and, when it is JSON, through `JSONWriter` and back:
/// the round trip must give the same value); the request goes to `FieldReader` with each kind of
/// text field and every accessor, and to both status-bar decoders; then to `OverlayService.handle` (with `FuzzAnswer` for a responder) on one ephemeral
/// manual-clock service per input (small queue, history and channel limits so that an input
/// reaches them), whose answers must be well-formed: a known status, JSON that parses, the error
/// shape, `Allow` on 405, `WWW-Authenticate` on 401, no body on 204 and 304. After the last
/// request the overlay and the message list must still read back as JSON.
enum RequestDecoderFuzz {
    // 201: a token made; 403: a valid credential without the access (access control), or a refused page.
    static let statuses: Set<Int> = [200, 201, 202, 204, 304, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 503]
    static let fieldNames = [
        "kind", "text", "progress", "duration", "immediate", "key", "orientation", "device", "advance", "to",
        "style", "hidden", "animation", "root", "controllers", "subtitle", "icon", "delay", "at", "expires",
        "priority", "state", "click", "actions", "accessibilityLabel", "action",
    ]
    static let textFields: [String?] = [nil, "text", "orientation", "device", "advance"]

    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        var configuration = ServiceConfiguration()
        configuration.clock = .manual
        configuration.ephemeral = true
        configuration.accessLog = .off
        configuration.writesPerSecond = 0
        configuration.maxChannels = 4
        configuration.engine.maxQueue = 6
        configuration.engine.historySize = 3
        configuration.engine.maxScheduled = 3
        if input.flags.contains("a") {
            configuration.token = "fuzz-write-token"
            configuration.readToken = "fuzz-read-token"
        }
        if input.flags.contains("f") { configuration.engine.showStyle = .fade }
        if input.flags.contains("n") { configuration.engine.showStyle = .none }
        if input.flags.contains("e") { configuration.engine.curve = .easeInOut }
        if input.flags.contains("c") { configuration.engine.progressBarCapWidth = 500 }
        if input.flags.contains("t") { configuration.engine.progressBarPosition = .top }
        if input.flags.contains("v") { configuration.engine.statusBar.appearance = .controllers }
        if input.flags.contains("h") { configuration.engine.statusBar.hiddenAtLaunch = true }
        if input.flags.contains("b") { configuration.engine.showStyle = .bounce }
        if input.flags.contains("p") { configuration.engine.presentation = .pill }
        if input.flags.contains("w") { configuration.engine.presentation = .fullWidth }
        if input.flags.contains("r") { configuration.engine.messageChange = .rise }
        if input.flags.contains("m") { configuration.engine.minimumVisible = .seconds(0.4) }
        guard let service = try? OverlayService(configuration: configuration) else {
            fatalError("an ephemeral service could not be made")
        }
        defer { service.shutdown() }

        let token = input.flags.contains("a") ? [Header(name: "Authorization", value: "Bearer fuzz-read-token")] : []
        var seen = Seen()
        for request in input.requests {
            decodeJSON(request.body)
            decodeFields(request)
            // Through the server's own dispatch; a long-poll left waiting is answered by the release.
            if let response = answer(service, request) { check(response, to: request) }
            service.releaseReaders()
            seen = checkState(service, headers: token, after: request, seen: seen)
        }
        let channels =
            answer(service, HTTPRequest(method: "GET", path: "/channels", headers: token)) ?? HTTPResponse(status: 0)
        guard channels.status == 200, case .object? = try? JSONParser.parse(channels.body) else {
            fatalError("GET /channels after the input: \(channels.status) \(text(channels.body))")
        }
    }

    /// What the checks carry from one request to the next.
    struct Seen {
        var version = 0.0
        var scheduled = 0.0
        /// Scheduled messages that left the schedule (joined the queue, or were deleted): each may
        /// have joined a full queue, which a message accepted earlier must (docs/BEHAVIOUR.md).
        var unscheduled = 0.0
    }

    /// Nothing a client sends may corrupt the queue (docs/MODEL.md §5): after every request the default
    /// channel's overlay and message list read back and agree, its version has not gone back, and
    /// the overlay's and the status bar's numbers are in range.
    static func checkState(
        _ service: OverlayService, headers: [Header], after request: HTTPRequest, seen: Seen
    ) -> Seen {
        func read(_ path: String, query: [QueryItem] = []) -> [String: JSONValue] {
            let response =
                answer(service, HTTPRequest(method: "GET", path: path, query: query, headers: headers))
                ?? HTTPResponse(status: 0)
            guard response.status == 200, case .object(let members)? = try? JSONParser.parse(response.body) else {
                fatalError(
                    "GET \(path) after \(request.method) \(request.path): \(response.status) \(text(response.body))")
            }
            return members
        }
        let overlay = read("/overlay")
        guard case .array(let messages)? = read("/messages")["messages"],
            case .number(let now)? = overlay["version"], case .number(let queued)? = overlay["queued"],
            case .string(let phase)? = overlay["phase"], case .number(let alpha)? = overlay["alpha"],
            case .number(let offset)? = overlay["contentOffset"], case .object(let frame)? = overlay["frame"],
            case .number(let width)? = frame["width"], case .number(let height)? = frame["height"],
            case .bool(let held)? = overlay["held"], case .object(let bar)? = overlay["statusBar"],
            case .bool(let barHidden)? = bar["hidden"], case .number(let barAlpha)? = bar["alpha"],
            case .number(let barOffset)? = bar["offset"], case .object(let barFrame)? = bar["frame"],
            case .number(let barWidth)? = barFrame["width"], case .number(let barHeight)? = barFrame["height"],
            case .string(let presentation)? = overlay["presentation"],
            // The window is the status bar's frame in the `statusBar` presentation only; the others
            // reach below it (Hw).
            presentation != "statusBar" || bar["frame"] == overlay["frame"]
        else { fatalError("overlay or messages of the wrong shape after \(request.method) \(request.path)") }
        // The reader's side (docs/MODEL.md §14): an announcement exactly when a message is drawn,
        // made at a version the overlay has reached; every message with its click, at most 3
        // actions of unique ids, its label and at most 10 taps.
        guard case .number(let announced)? = overlay["announcementVersion"], announced <= now,
            let announcement = overlay["announcement"], let drawn = overlay["message"],
            (announcement == .null) == (drawn == .null), announcement == .null || announcement.isString
        else { fatalError("no announcement of the right shape after \(request.method) \(request.path)") }
        for message in messages + (drawn == .null ? [] : [drawn]) where !hasReaderFields(message) {
            fatalError("a message without its reader's fields after \(request.method) \(request.path): \(message)")
        }
        guard case .number(let scheduled)? = overlay["scheduled"],
            case .array(let waiting)? = read("/messages", query: [QueryItem(name: "state", value: "scheduled")])[
                "messages"]
        else { fatalError("no scheduled count or list after \(request.method) \(request.path)") }
        let states = messages.map { message -> String in
            guard case .object(let fields) = message, case .string(let state)? = fields["state"] else { return "?" }
            return state
        }
        func fail(_ reason: String) -> Never {
            fatalError(
                "after \(request.method) \(request.path): \(reason); overlay \(overlay), states \(states)")
        }
        if now < seen.version { fail("the version went back from \(seen.version)") }
        if Double(waiting.count) != scheduled || scheduled > 3 { fail("scheduled disagrees with its list or limit") }
        for message in waiting {
            guard case .object(let fields) = message, fields["state"] == .string("scheduled") else {
                fail("a listed message not scheduled")
            }
        }
        let unscheduled = seen.unscheduled + max(0, seen.scheduled - scheduled)
        if Double(states.filter { $0 == "queued" }.count) != queued { fail("queued disagrees with /messages") }
        if states.dropFirst().contains(where: { $0 != "queued" })
            || !["showing", "queued"].contains(states.first ?? "queued")
        {
            fail("a live message that is neither shown first nor queued")
        }
        // The message a hold sends back to the queue keeps its place beyond the bound.
        if queued > 6 + (held ? 1 : 0) + unscheduled { fail("more queued than maxQueue") }
        // A hidden status bar holds the overlay: messages wait behind it, none is shown.
        if phase == "hidden" && !messages.isEmpty && !held { fail("hidden with live messages") }
        if held != barHidden { fail("held differs from the status bar's hidden") }
        if held && states.contains("showing") { fail("a message shown while held") }
        if !(0...1).contains(barAlpha) { fail("the status bar's alpha out of range") }
        if !(-min(barWidth, barHeight)...0).contains(barOffset) { fail("the status bar's offset out of range") }
        if !(0...1).contains(alpha) { fail("alpha out of range") }
        if !(-min(width, height)...0).contains(offset) { fail("contentOffset out of range") }
        // A rise runs only while visible, and is then the animation; its outgoing label goes with it.
        guard let outgoing = overlay["outgoing"] else { fail("no outgoing member") }
        let rising: Bool
        if case .object(let animation)? = overlay["animation"] {
            rising = animation["property"] == .string("labelOffset")
        } else {
            rising = false
        }
        if rising != (outgoing != .null) { fail("an outgoing label without its rise, or a rise without one") }
        if rising && phase != "visible" { fail("a rise outside the visible phase") }
        return Seen(version: now, scheduled: scheduled, unscheduled: unscheduled)
    }

    /// Whether a message's JSON has `click` (text or null), `actions` (at most 3, each an id, a
    /// label and a url or null, the ids unique), `accessibilityLabel` and `taps` (at most 10).
    static func hasReaderFields(_ message: JSONValue) -> Bool {
        guard case .object(let fields) = message, let click = fields["click"], click == .null || click.isString,
            let label = fields["accessibilityLabel"], label == .null || label.isString,
            case .array(let actions)? = fields["actions"], actions.count <= 3,
            case .array(let taps)? = fields["taps"], taps.count <= 10
        else { return false }
        var ids: Set<String> = []
        for action in actions {
            guard case .object(let members) = action, members.count == 3, case .string(let id)? = members["id"],
                members["label"]?.isString == true, let url = members["url"], url == .null || url.isString,
                ids.insert(id).inserted
            else { return false }
        }
        return taps.allSatisfy { tap in
            guard case .object(let members) = tap, case .number? = members["at"], let action = members["action"]
            else { return false }
            return action == .null || action.isString
        }
    }

    /// The parser must not crash; what it accepts must survive writing and reading back.
    static func decodeJSON(_ body: [UInt8]) {
        guard let value = try? JSONParser.parse(body) else { return }
        var writer = JSONWriter()
        writer.value(value)
        let again: JSONValue
        do {
            again = try JSONParser.parse(writer.bytes)
        } catch {
            fatalError("JSONWriter wrote what JSONParser refuses (\(error)): \(text(writer.bytes))")
        }
        // A number too large for a Double reads as infinity (the fields' ranges refuse it, 422),
        // which JSON cannot write: the writer writes null, and nothing else may change.
        guard again == finite(value) else {
            fatalError("JSON round trip changed the value: \(text(body)) became \(text(writer.bytes))")
        }
    }

    /// The value with every number JSON cannot write (infinity) as the null the writer writes.
    static func finite(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number) where !number.isFinite: .null
        case .array(let items): .array(items.map(finite))
        case .object(let members): .object(members.mapValues(finite))
        default: value
        }
    }

    /// Every way the routes read fields: with and without a text field, each accessor on each name,
    /// and the status-bar decoders, which must not crash whatever they refuse.
    static func decodeFields(_ request: HTTPRequest) {
        _ = try? StatusBarDecoder.input(request)
        _ = try? StatusBarDecoder.hierarchy(request)
        let names = Set(fieldNames + request.query.map(\.name))
        for textField in textFields {
            guard let fields = try? FieldReader(request, textField: textField, formNames: fieldNames) else { continue }
            _ = try? fields.rejectUnknown(allowing: ["kind", "text", "progress", "duration", "immediate", "key"])
            var input = MessageInput()
            _ = try? fields.read(MessageFields.post, into: &input)
            for name in names {
                _ = fields.contains(name)
                _ = try? fields.read(Field.string(name))
                _ = try? fields.read(Field.number(name))
                _ = try? fields.read(Field.number(name).nullable)
                _ = try? fields.read(Field<Int>.whole(name))
                _ = try? fields.read(Field.bool(name))
            }
        }
        _ = try? FieldReader(query: request).read(ReadFields.wait)
        compareReadings(request)
    }

    /// A message's fields read by the JSON fast path (`FieldReader.read(_:_:into:)`) and by the
    /// general reading: the same input, or the same error.
    static func compareReadings(_ request: HTTPRequest) {
        for fields in [MessageFields.post, MessageFields.patch] {
            var general = MessageInput()
            var fast = MessageInput()
            var generalError: APIError?
            var fastError: APIError?
            do throws(APIError) {
                try FieldReader(request, fields).read(fields, into: &general)
            } catch {
                generalError = error
            }
            do throws(APIError) {
                try FieldReader.read(request, fields, into: &fast)
            } catch {
                fastError = error
            }
            guard generalError == fastError, generalError != nil || general == fast else {
                fatalError(
                    "the fast reading differs: \(String(describing: fastError)) against \(String(describing: generalError)) "
                        + "for \(text(request.body))")
            }
        }
    }

    /// The shape every answer must have, whatever was asked.
    static func check(_ response: HTTPResponse, to request: HTTPRequest) {
        func fail(_ reason: String) -> Never {
            fatalError(
                "\(request.method) \(request.path) \(request.query) answered \(response.status): \(reason); "
                    + "body \(text(response.body))")
        }
        guard statuses.contains(response.status) else { fail("unexpected status") }
        if response.status == 204 || response.status == 304 {
            guard response.body.isEmpty else { fail("a body on \(response.status)") }
        }
        if response.status == 405 && response.header("Allow") == nil { fail("405 without Allow") }
        if response.status == 401 && response.header("WWW-Authenticate") == nil { fail("401 without WWW-Authenticate") }
        let type = response.header("Content-Type") ?? ""
        if type.hasPrefix("application/json") {
            guard case .object(let members)? = try? JSONParser.parse(response.body) else { fail("not a JSON object") }
            if response.status >= 400 {
                guard case .object(let error)? = members["error"], members.count == 1,
                    case .string(let code)? = error["code"], !code.isEmpty,
                    case .string(let message)? = error["message"], !message.isEmpty
                else { fail("not an error body") }
            }
        } else if type.hasPrefix("text/event-stream") {
            // The stream opens with its reconnection delay, then the current overlay.
            let retry = Array("retry: 1000\n\n".utf8)
            let events = response.body.starts(with: retry) ? Array(response.body.dropFirst(retry.count)) : response.body
            guard events.isEmpty || events.starts(with: Array("event: overlay\nid: ".utf8)) else {
                fail("not an event")
            }
        } else if response.status != 204 && response.status != 304 && type.isEmpty {
            fail("no Content-Type")
        }
    }

    /// The service's answer to `request` through `handle`, the dispatch the server uses, with a
    /// responder that has no connection; nil while a long-poll waits.
    static func answer(_ service: OverlayService, _ request: HTTPRequest) -> HTTPResponse? {
        FuzzAnswer.handle(request, service.handle)
    }

    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(300), as: UTF8.self)
    }
}

extension JSONValue {
    var isString: Bool {
        if case .string = self { return true }
        return false
    }
}
