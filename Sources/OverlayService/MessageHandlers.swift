import MicroHTTP
import OverlayEngine

/// `/messages` and `/messages/{id}`: post, list, read, change and delete messages.
extension OverlayService {
    private static let postFields = ["kind", "text", "progress", "duration", "immediate", "key"]
    private static let patchFields = ["kind", "text", "progress", "duration"]

    func postMessage(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let fields = try RequestFields(request, textField: "text")
        try fields.rejectUnknown(allowing: OverlayService.postFields)
        let input = try messageInput(fields)
        let (result, sequence) = try channels.obtain(parameters.channel).write { engine, now in
            engine.post(input, at: now)
        }
        let outcome = try result.get(orThrow: APIError.init)
        let location = Header.location.with(value: "\(parameters.prefix)/messages/\(outcome.message.id)")
        if case .created = outcome { metrics.messagePosted() }
        return .durable(
            json(outcome.isCreated ? 202 : 200, headers: [.json, location]) { $0.message(outcome.message) },
            sequence: sequence)
    }

    /// Messages a page of `GET /messages` holds when `limit` is not given, and at most.
    static let pageSize = (default: 100, maximum: 1000)

    /// `GET /messages`: the live messages in the order they show, a page at a time. `?limit=`
    /// (1…1000, default 100) and `?after=<id>`, the `next` of the page before. A page costs its
    /// own size, not the queue's.
    func listMessages(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        var limit = OverlayService.pageSize.default
        if let text = OverlayService.queryValue(request, "limit") {
            guard let number = Int(text.trimmingSpaces()) else {
                throw .badRequest("limit must be a whole number, not \"\(text)\"", field: "limit")
            }
            guard (1...OverlayService.pageSize.maximum).contains(number) else {
                throw .invalidField("limit", "must be between 1 and \(OverlayService.pageSize.maximum)")
            }
            limit = number
        }
        var after: Int64? = nil
        if let text = OverlayService.queryValue(request, "after") {
            guard let id = Int64(text.trimmingSpaces()), id > 0 else {
                throw .badRequest("after must be a message id, not \"\(text)\"", field: "after")
            }
            after = id
        }
        guard let page = read(parameters.channel, { engine, _ in engine.liveMessages(after: after, limit: limit) })
        else {
            throw APIError(
                status: 409, code: "cursor_expired",
                message:
                    "message \(after ?? 0) is no longer live (shown and ended, or deleted); start again without after",
                field: "after")
        }
        return json(200) {
            $0.beginObject()
            $0.key("messages")
            $0.beginArray()
            for message in page.messages { $0.message(message) }
            $0.endArray()
            $0.key("next")
            if let next = page.next { $0.integer(next) } else { $0.null() }
            $0.endObject()
        }
    }

    func getMessage(_ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let id = try messageID(parameters)
        guard let message = read(parameters.channel, { engine, _ in engine.message(id: id) }) else {
            throw APIError(EngineError.messageNotFound(id: id))
        }
        return json(200) { $0.message(message) }
    }

    func patchMessage(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let id = try messageID(parameters)
        let fields = try RequestFields(request, textField: "text")
        for field in ["immediate", "key"] where fields.contains(field) {
            throw .badRequest("\(field) cannot be changed after posting", field: field)
        }
        try fields.rejectUnknown(allowing: OverlayService.patchFields)
        let input = try messageInput(fields)
        let (result, sequence) = try existingChannel(parameters.channel, messageID: id).write { engine, now in
            engine.update(id: id, with: input, at: now)
        }
        let message = try result.get(orThrow: APIError.init)
        return .durable(json(200) { $0.message(message) }, sequence: sequence)
    }

    func deleteMessage(_ parameters: RouteParameters) throws(APIError) -> Routed {
        let id = try messageID(parameters)
        let (result, sequence) = try existingChannel(parameters.channel, messageID: id).write { engine, now in
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

    /// The `{id}` of the path: decimal digits that fit an id, or the message does not exist.
    private func messageID(_ parameters: RouteParameters) throws(APIError) -> Int64 {
        let segment = parameters.value ?? ""
        guard !segment.isEmpty, segment.utf8.count <= 18, segment.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let id = Int64(segment)
        else { throw .notFound("no such message: \(segment)") }
        return id
    }

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
            // (the engine checks the rounded one): 3600.0000000000005 is over 3600.
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
