import MicroHTTP
import OverlayEngine

/// `/messages` and `/messages/{id}`: post, list, read, change and delete messages.
struct MessageHandlers: Sendable {
    let channels: ChannelRegistry
    let metrics: Metrics
    /// The most bytes a page of `GET /messages` holds (`limits.maxPageBytes`).
    let maxPageBytes: Int
    let memory: MemoryAccount

    func post(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        var input = MessageInput()
        try FieldReader.read(request, MessageFields.post, into: &input)
        try MessageFields.checkTogether(input)
        try memory.admit(MessageMemory.estimate(input))
        let (result, sequence) = try channels.write(parameters.channel, refusal: Self.refusal) { engine, now in
            engine.post(input, at: now)
        }
        // The message taken out of the outcome once: each `outcome.message` is a copy of it.
        let (message, isCreated) =
            switch try result.get(orThrow: APIError.init) {
            case .created(let message): (message, true)
            case .updated(let message): (message, false)
            }
        let location = Header.location.with(value: "\(parameters.prefix)/messages/\(message.id)")
        if isCreated { metrics.messagePosted() }
        return .durable(
            HTTPResponse.json(isCreated ? 202 : 200, headers: [.json, location]) { $0.message(message) },
            sequence: sequence)
    }

    /// What refuses a post, for a channel that a refused one must not create.
    static func refusal(_ result: Result<PostOutcome, EngineError>) -> APIError? {
        if case .failure(let error) = result { return APIError(error) }
        return nil
    }

    /// Messages a page of `GET /messages` holds when `limit` is not given, and at most.
    static let pageSize = (default: 100, maximum: 1000)

    /// `GET /messages`: the live messages in the order they show (with `?state=scheduled` the
    /// scheduled ones, in the order they are due; with `?state=ended` the history, the most
    /// recently ended first), a page at a time. `?limit=`
    /// (1…1000, default 100) and `?after=<id>`, the `next` of the page before. A page costs its
    /// own size, not the queue's, and holds at most `maxPageBytes` (but always one message):
    /// where it stops, `next` goes on. Readers asking for the same page at one version share it.
    func list(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let query = try FieldReader(query: request)
        let page = PageCache.Query(
            after: try query.read(PageFields.after),
            limit: try query.read(PageFields.limit) ?? MessageHandlers.pageSize.default,
            listing: try query.read(PageFields.state) ?? .live)
        let condition = request.header("If-None-Match").map(EntityTagCondition.init)
        let cache = channels.existing(parameters.channel)?.pages
        // The condition is judged once the page is known to exist: `*` matches only a page that
        // does, and an expired cursor is 409 whatever the tags.
        let read = channels.read(parameters.channel) { engine, _ -> PageRead in
            let unchanged = condition?.matches(engine.version) == true
            if let kept = cache?.page(page, at: engine.version) {
                return unchanged ? .unchanged(engine.version) : .kept(kept)
            }
            let listed =
                switch page.listing {
                case .live: engine.liveMessages(after: page.after, limit: page.limit)
                case .scheduled: engine.scheduledMessages(after: page.after, limit: page.limit)
                case .ended: engine.endedMessages(after: page.after, limit: page.limit)
                }
            guard let messages = listed else {
                return .messages(engine.version, nil)
            }
            return unchanged ? .unchanged(engine.version) : .messages(engine.version, messages)
        }
        switch read {
        case .unchanged(let version):
            return HTTPResponse(status: 304, headers: OverlayEncoder.versionHeaders(version))
        case .kept(let response):
            return response
        case .messages(_, nil):
            throw APIError(
                status: 409, code: "cursor_expired",
                message: "message \(page.after ?? 0) is no longer \(page.listing.gone); start again without after",
                field: "after")
        case .messages(let version, let messages?):
            var response = HTTPResponse.json(200, headers: [.json] + OverlayEncoder.versionHeaders(version)) {
                $0.page(messages, maximumBytes: maxPageBytes)
            }
            response.prepare()
            cache?.keep(response, for: page, at: version)
            return response
        }
    }

    /// What a read of a page found under the channel's lock.
    private enum PageRead: Sendable {
        case unchanged(UInt64)
        case kept(HTTPResponse)
        case messages(UInt64, MessagePage?)
    }

    func get(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let id = try messageID(parameters)
        guard
            let (version, message) = channels.read(
                parameters.channel, { engine, _ in engine.message(id: id).map { (engine.version, $0) } })
        else {
            throw APIError(EngineError.messageNotFound(id: id))
        }
        if let unchanged = HTTPResponse.notModified(request, version: version) { return unchanged }
        return HTTPResponse.json(200, headers: [.json] + OverlayEncoder.versionHeaders(version)) { $0.message(message) }
    }

    func patch(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let id = try messageID(parameters)
        var input = MessageInput()
        try FieldReader.read(request, MessageFields.patch, into: &input)
        try MessageFields.checkTogether(input)
        // A change adds at most its texts' bytes: the message is already counted.
        try memory.admit(MessageMemory.estimate(input) - MessageMemory.base)
        let (result, sequence) = try existingChannel(parameters.channel, messageID: id).write { engine, now in
            engine.update(id: id, with: input, at: now)
        }
        let message = try result.get(orThrow: APIError.init)
        return .durable(HTTPResponse.json(200) { $0.message(message) }, sequence: sequence)
    }

    func delete(_ parameters: RouteParameters) throws(APIError) -> Routed {
        let id = try messageID(parameters)
        let (result, sequence) = try existingChannel(parameters.channel, messageID: id).write { engine, now in
            engine.delete(id: id, at: now)
        }
        let message = try result.get(orThrow: APIError.init)
        return .durable(HTTPResponse.json(200) { $0.message(message) }, sequence: sequence)
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
}

extension HTTPResponse {
    /// 304 when the request's `If-None-Match` names `version` (or `*`), for the answers whose
    /// validator is their channel's version.
    static func notModified(_ request: HTTPRequest, version: UInt64) -> HTTPResponse? {
        guard let header = request.header("If-None-Match"), EntityTagCondition(header).matches(version) else {
            return nil
        }
        return HTTPResponse(status: 304, headers: OverlayEncoder.versionHeaders(version))
    }
}

extension JSONWriter {
    /// `{"messages": [...], "next": id}`: as many of `page`'s messages as fit in `maximumBytes`
    /// (the first always), `next` naming the last one written when the rest did not fit.
    mutating func page(_ page: MessagePage, maximumBytes: Int) {
        // `],"next":` and an id of up to 19 digits, then `}`.
        let budget = maximumBytes - 32
        var next = page.next
        beginObject()
        key("messages")
        beginArray()
        for (index, message) in page.messages.enumerated() {
            let before = mark
            self.message(message)
            if index > 0 && byteCount > budget {
                rewind(to: before)
                next = page.messages[index - 1].id
                break
            }
        }
        endArray()
        key("next")
        if let next { integer(next) } else { null() }
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

/// Which messages `GET /messages` lists.
enum MessageListing: String, CaseIterable, Sendable {
    /// The shown one and the queued ones, in the order they show.
    case live
    /// Those waiting for their time, in the order they are due.
    case scheduled
    /// Those ended and still in the history, the most recently ended first.
    case ended

    /// What a cursor's message no longer is, when it has left the list.
    var gone: String {
        switch self {
        case .live: "live (shown and ended, or deleted)"
        case .scheduled: "scheduled (its time came, or it was deleted)"
        case .ended: "in the history (historySize ended messages are kept)"
        }
    }
}

/// The query of `GET /messages`.
enum PageFields {
    static let state = Field<MessageListing>.choice("state")
    static let limit = Field<Int>.whole("limit").checked { limit in
        (1...MessageHandlers.pageSize.maximum).contains(limit)
            ? nil : "must be between 1 and \(MessageHandlers.pageSize.maximum)"
    }
    static let after = Field<Int64>("after") { (value) throws(FieldProblem) in
        guard let id = try? value.whole(Int64.self), id > 0 else {
            throw FieldProblem(.malformed, "must be a message id, not \(value.described)")
        }
        return id
    }
}
