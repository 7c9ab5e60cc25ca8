import Crypto
import MicroHTTP
import OverlayEngine

/// `POST /messages?template=NAME` (and under `/channels/{name}/`): a tool's webhook body read by a
/// template into keyed messages, applied to the channel at once, all or none.
struct WebhookHandlers: Sendable {
    let channels: ChannelRegistry
    let metrics: Metrics
    let memory: MemoryAccount
    /// The operator's templates (`webhooks.templates`), by name.
    let templates: [String: WebhookTemplate]
    /// `webhooks.github.secret`'s bytes, when set.
    let githubSecret: [UInt8]?
    /// Each kind's priority, for a template's priority that maps to nothing.
    let priorities: KindTable<Priority>
    let builtIn = BuiltInTemplates()

    /// The query parameters a template's write may carry besides `template`.
    static let queryNames = ["template", "auth"]

    func post(_ request: HTTPRequest, _ parameters: RouteParameters, template name: String) throws(APIError) -> Routed {
        if let other = request.query.first(where: { !WebhookHandlers.queryNames.contains($0.name) }) {
            throw .badRequest(
                "template takes no other message parameter: the body makes the messages", field: other.name)
        }
        try FieldReader.refuseContentCoding(request)
        let template: WebhookTemplate?
        switch name {
        case "alertmanager": template = builtIn.alertmanager
        case "grafana": template = builtIn.grafana
        case "github":
            try checkSignature(request)
            guard let event = request.header("X-GitHub-Event") else {
                throw .badRequest("a GitHub delivery names its event in X-GitHub-Event", field: "X-GitHub-Event")
            }
            template = builtIn.github(event: event)
        default:
            guard let own = templates[name] else {
                throw APIError(
                    status: 404, code: "unknown_template",
                    message:
                        "no template \(name); the built-in ones are \(BuiltInTemplates.names.joined(separator: ", "))",
                    field: "template")
            }
            template = own
        }
        guard let template else { return answer([], sequence: nil) }
        let body: JSONValue
        do throws(JSONSyntaxError) {
            body = try JSONParser.parse(WebhookHandlers.json(of: request))
        } catch {
            throw .invalidJSON(error)
        }
        var posts: [BatchPost] = []
        var origins: [String] = []
        for yield in try template.messages(from: body) {
            posts.append(
                try TemplateMessage.post(yield, priorities: priorities, yieldsToLiveKind: template.yieldsToLiveKind))
            origins.append(yield.origin)
        }
        guard !posts.isEmpty else { return answer([], sequence: nil) }
        try memory.admit(posts.reduce(0) { $0 + MessageMemory.estimate($1.input) })
        // A refusal names the element it came from, also where the channel does not exist yet.
        let refusal = { (result: Result<[PostOutcome?], BatchFailure>) -> APIError? in
            guard case .failure(let failure) = result else { return nil }
            return WebhookHandlers.error(failure, origin: origins[failure.index])
        }
        let (result, sequence) = try channels.write(parameters.channel, refusal: refusal) { engine, now in
            engine.post(batch: posts, at: now)
        }
        switch result {
        case .success(let outcomes):
            let made = outcomes.compactMap { $0 }
            for case .created in made { metrics.messagePosted() }
            return answer(made.map(\.message), sequence: sequence)
        case .failure(let failure):
            throw WebhookHandlers.error(failure, origin: origins[failure.index])
        }
    }

    private func answer(_ messages: [Message], sequence: UInt64?) -> Routed {
        .durable(
            HTTPResponse.json(200, headers: [.json]) { writer in
                writer.beginObject()
                writer.key("messages")
                writer.beginArray()
                for message in messages { writer.message(message) }
                writer.endArray()
                writer.endObject()
            }, sequence: sequence)
    }

    /// A refused message of the batch, naming where in the body it came from.
    static func error(_ failure: BatchFailure, origin: String) -> APIError {
        var error = APIError(failure.error)
        guard !origin.isEmpty else { return error }
        error.message = "\(origin): \(error.message); nothing was applied"
        if let field = error.field { error.field = "\(origin).\(field)" }
        return error
    }

    /// The JSON of a delivery: the body, or, for a form (GitHub's form content type), its
    /// `payload` field.
    static func json(of request: HTTPRequest) -> [UInt8] {
        let first = request.body.first { !FieldReader.isBlank($0) }
        guard first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
            let payload = request.formFields()?.first(where: { $0.name == "payload" })
        else { return request.body }
        return payload.value
    }

    /// GitHub's `X-Hub-Signature-256`, when a secret is set: the HMAC-SHA256 of the body's raw
    /// bytes, compared in constant time before anything reads them.
    private func checkSignature(_ request: HTTPRequest) throws(APIError) {
        guard let githubSecret else { return }
        guard let header = request.header("X-Hub-Signature-256") else { throw WebhookHandlers.invalidSignature }
        let expected = "sha256=" + SHA256.hex(HMAC.sha256(key: githubSecret, message: request.body))
        guard ConstantTime.equals(Array(header.utf8), Array(expected.utf8)) else {
            throw WebhookHandlers.invalidSignature
        }
    }

    /// What the transport judges from a request's head: a write through a template may carry
    /// `bodyBytes` (`limits.webhookBodyBytes`); a GitHub delivery without its signature, when
    /// deliveries are signed, is refused before its body is read.
    static func headCheck(bodyBytes: Int, signs: Bool) -> @Sendable (RequestHead) -> HeadVerdict {
        { head in
            // Nearly every request has no query: nothing is decoded for it.
            guard head.hasQuery else { return .proceed }
            var template: QueryItem?
            guard
                isTemplateWrite(
                    method: head.method, path: head.path,
                    hasTemplate: {
                        template = QueryItem.items(of: head.rawQuery).first { $0.name == "template" }
                        return template != nil
                    })
            else { return .proceed }
            if signs, template?.value == Array("github".utf8), head.header("X-Hub-Signature-256") == nil {
                return .refuse(invalidSignature.response)
            }
            return .bodyLimit(bodyBytes)
        }
    }

    /// Whether a request is a write through a template: a POST to `/messages` or
    /// `/channels/{name}/messages` (one trailing slash allowed, as the router allows) with a
    /// `template` parameter. The path is read as the router reads it, so that the transport's head
    /// check, the access check and the route agree; `hasTemplate` is asked last.
    static func isTemplateWrite(method: String, path: String, hasTemplate: () -> Bool) -> Bool {
        guard method == "POST" else { return false }
        // The head check is given the path as sent; the router's is decoded.
        let decoded =
            path.utf8.contains(UInt8(ascii: "%"))
            ? String(decoding: URLEncoded.decode(Array(path.utf8)), as: UTF8.self) : path
        let parts = Router.segments(of: decoded)
        let messages =
            parts == ["messages"]
            || (parts.count == 3 && parts[0] == "channels" && !parts[1].isEmpty && parts[2] == "messages")
        return messages && hasTemplate()
    }

    static let invalidSignature = APIError(
        status: 401, code: "invalid_signature",
        message: "the delivery's X-Hub-Signature-256 is missing or does not match webhooks.github.secret",
        field: "X-Hub-Signature-256")
}
