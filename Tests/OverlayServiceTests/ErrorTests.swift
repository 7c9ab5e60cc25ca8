import TestSupport
import Testing

@testable import OverlayService

/// One request a client gets wrong, and the answer it must get.
struct BadRequest: Sendable, CustomTestStringConvertible {
    var method: String
    var path: String
    var contentType: String?
    var body: [UInt8]?
    var status: Int
    var code: String
    var field: String?

    init(
        _ method: String, _ path: String, _ contentType: String? = "application/json", body: String? = nil,
        _ status: Int, _ code: String, field: String? = nil
    ) {
        self.init(method, path, contentType, bytes: body.map { Array($0.utf8) }, status, code, field: field)
    }

    init(
        _ method: String, _ path: String, _ contentType: String?, bytes: [UInt8]?, _ status: Int, _ code: String,
        field: String? = nil
    ) {
        self.method = method
        self.path = path
        self.contentType = contentType
        self.body = bytes
        self.status = status
        self.code = code
        self.field = field
    }

    var testDescription: String {
        let shown = body.map { String(decoding: $0.prefix(60), as: UTF8.self) } ?? ""
        return "\(method) \(path) \(contentType ?? "-") \(shown) → \(status) \(code) \(field ?? "")"
    }

    func send(to live: LiveServer) throws -> HTTPReply {
        try RawClient.request(
            method, path, port: live.port, headers: contentType.map { [("Content-Type", $0)] } ?? [], bodyBytes: body)
    }
}

/// Every error status of MODEL §5, each with the error body `{"error": {"code", "message"[, "field"]}}`,
/// and each leaving the overlay, the queue and the message list exactly as they were.
///
/// Each case runs against its own server holding a shown message (1) and a queued one (2).
@Suite("Error answers")
struct ErrorTests {
    static let deepNesting =
        #"{"text": "a", "x": "# + String(repeating: "[", count: 100)
        + String(
            repeating: "]", count: 100) + "}"

    /// 400: the body is not JSON, or not an object.
    static let malformedJSON: [BadRequest] = [
        BadRequest("POST", "/messages", body: #"{"text": "a""#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: "{", 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a",}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "progress": [0.5,]}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: "{\"text\": \"a\" // note\n}", 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{/* note */ "text": "a"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "progress": NaN}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": Infinity}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": -Infinity}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": 1e999}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": 01}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": .5}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": 1.}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": +1}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "duration": 0x10}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "text": "b"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "kind": "sent", "kind": "sent"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "\ud800"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "\udc00 low"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "\ud800\u0041"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "\u12"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "\x41"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: "{\"text\": \"tab\there\"}", 400, "invalid_json"),
        BadRequest("POST", "/messages", body: "{\"text\": \"line\nbreak\"}", 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{'text': 'a'}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{text: "a"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a"} {"text": "b"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": "a"} x"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text": tru}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: #"{"text" "a"}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", body: deepNesting, 400, "invalid_json"),
        BadRequest(
            "POST", "/messages", "application/json",
            bytes: Array(#"{"text": ""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8),
            400, "invalid_json"),
        BadRequest(
            "POST", "/messages", "application/json",
            bytes: Array(#"{"text": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
            400, "invalid_json"),
        BadRequest(
            "POST", "/messages", "application/json",
            bytes: Array(#"{"text": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), 400, "invalid_json"),
        BadRequest("POST", "/messages", "application/json", bytes: [0x7B, 0x00, 0x7D], 400, "invalid_json"),
        // The form type and no content type read a `{` body as JSON, which must then be valid.
        BadRequest(
            "POST", "/messages", "application/x-www-form-urlencoded", body: #"{"text": "a",}"#, 400, "invalid_json"),
        BadRequest("POST", "/messages", nil, body: " {oops", 400, "invalid_json"),
        BadRequest("PATCH", "/messages/2", body: #"{"text": "a""#, 400, "invalid_json"),
        BadRequest("PUT", "/orientation", body: #"{"orientation": landscapeLeft}"#, 400, "invalid_json"),
        BadRequest("POST", "/clock", body: #"{"advance": 1,}"#, 400, "invalid_json"),
        // Valid JSON that is not an object.
        BadRequest("POST", "/messages", body: "[]", 400, "bad_request"),
        BadRequest("POST", "/messages", body: #"[{"text": "a"}]"#, 400, "bad_request"),
        BadRequest("POST", "/messages", body: #""x""#, 400, "bad_request"),
        BadRequest("POST", "/messages", body: "5", 400, "bad_request"),
        BadRequest("POST", "/messages", body: "null", 400, "bad_request"),
        BadRequest("POST", "/messages", body: "true", 400, "bad_request"),
        BadRequest("PATCH", "/messages/2", body: "[]", 400, "bad_request"),
        BadRequest("PUT", "/orientation", body: #""landscapeLeft""#, 400, "bad_request"),
        BadRequest("POST", "/clock", body: "1", 400, "bad_request"),
        // A text body that is not UTF-8.
        BadRequest("POST", "/messages", nil, bytes: [0x68, 0xFF, 0xFE, 0x69], 400, "bad_request"),
        BadRequest("POST", "/messages", "text/plain", bytes: [0xC3, 0x28], 400, "bad_request"),
    ]

    /// 400: well-formed, but a field has the wrong type, is unknown, or is given twice.
    static let badFields: [BadRequest] = [
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": "2"}"#, 400, "bad_request", field: "duration"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": null}"#, 400, "bad_request", field: "duration"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "progress": "0.5"}"#, 400, "bad_request", field: "progress"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "progress": true}"#, 400, "bad_request", field: "progress"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "immediate": "yes"}"#, 400, "bad_request", field: "immediate"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "immediate": 1}"#, 400, "bad_request", field: "immediate"),
        BadRequest("POST", "/messages", body: #"{"text": 5}"#, 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages", body: #"{"text": ["a"]}"#, 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages", body: #"{"text": null}"#, 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "kind": 1}"#, 400, "bad_request", field: "kind"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "key": {"k": 1}}"#, 400, "bad_request", field: "key"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "colour": "red"}"#, 400, "bad_request", field: "colour"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "progess": 0.5}"#, 400, "bad_request", field: "progess"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "id": 7}"#, 400, "bad_request", field: "id"),
        BadRequest("POST", "/messages?colour=red", "text/plain", body: "a", 400, "bad_request", field: "colour"),
        BadRequest(
            "POST", "/messages?kind=sent", body: #"{"text": "a", "kind": "info"}"#, 400, "bad_request", field: "kind"),
        BadRequest("POST", "/messages?text=b", body: #"{"text": "a"}"#, 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages?text=b", "text/plain", body: "a", 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages?kind=sent&kind=info", "text/plain", body: "a", 400, "bad_request", field: "kind"),
        BadRequest("POST", "/messages?progress=abc", "text/plain", body: "a", 400, "bad_request", field: "progress"),
        BadRequest("POST", "/messages?progress", "text/plain", body: "a", 400, "bad_request", field: "progress"),
        BadRequest("POST", "/messages?duration=inf", "text/plain", body: "a", 400, "bad_request", field: "duration"),
        BadRequest("POST", "/messages?duration=nan", "text/plain", body: "a", 400, "bad_request", field: "duration"),
        BadRequest("POST", "/messages?duration=0x10", "text/plain", body: "a", 400, "bad_request", field: "duration"),
        BadRequest("POST", "/messages?duration=", "text/plain", body: "a", 400, "bad_request", field: "duration"),
        BadRequest("POST", "/messages?duration=1e999", "text/plain", body: "a", 400, "bad_request", field: "duration"),
        BadRequest(
            "POST", "/messages?immediate=maybe", "text/plain", body: "a", 400, "bad_request", field: "immediate"),
        BadRequest("POST", "/messages?immediate=", "text/plain", body: "a", 400, "bad_request", field: "immediate"),
        BadRequest(
            "POST", "/messages", "application/x-www-form-urlencoded", body: "text=a&immediate=", 400, "bad_request",
            field: "immediate"),
        // Many names (looked up in a table rather than a line): the first unknown one in alphabetical
        // order is named; a name given twice is found among them.
        BadRequest(
            "POST", "/messages",
            body: "{" + (0..<20).reversed().map { #""z\#($0)": 1, "# }.joined() + #""text": "a"}"#, 400, "bad_request",
            field: "z0"),
        BadRequest(
            "POST", "/messages?" + (0..<20).map { "q\($0)=1" }.joined(separator: "&") + "&q7=2", "text/plain",
            body: "a",
            400, "bad_request", field: "q7"),
        BadRequest(
            "POST", "/messages?" + (0..<20).map { "q\($0)=1" }.joined(separator: "&"),
            body: #"{"text": "a", "q19": 1}"#, 400, "bad_request", field: "q19"),
        BadRequest(
            "POST", "/messages?" + (0..<20).map { "q\($0)=1" }.joined(separator: "&") + "&text=b", "text/plain",
            body: "a", 400, "bad_request", field: "text"),
        BadRequest("PATCH", "/messages/2", body: #"{"immediate": true}"#, 400, "bad_request", field: "immediate"),
        BadRequest("PATCH", "/messages/2", body: #"{"key": "k"}"#, 400, "bad_request", field: "key"),
        BadRequest("PATCH", "/messages/2?immediate", nil, body: nil, 400, "bad_request", field: "immediate"),
        BadRequest("PATCH", "/messages/1", body: #"{"id": 3}"#, 400, "bad_request", field: "id"),
        BadRequest("PATCH", "/messages/1", body: #"{"state": "done"}"#, 400, "bad_request", field: "state"),
        BadRequest("PATCH", "/messages/2", body: #"{"duration": "1"}"#, 400, "bad_request", field: "duration"),
        BadRequest("PUT", "/orientation", body: #"{"orientation": 90}"#, 400, "bad_request", field: "orientation"),
        BadRequest(
            "PUT", "/orientation", body: #"{"orientation": "portrait", "animated": true}"#, 400, "bad_request",
            field: "animated"),
        BadRequest("POST", "/clock", body: #"{"advance": "1"}"#, 400, "bad_request", field: "advance"),
        BadRequest("POST", "/clock", body: #"{"advance": 1, "to": 2}"#, 400, "bad_request", field: "to"),
        BadRequest("POST", "/clock", body: #"{"advance": 1, "speed": 2}"#, 400, "bad_request", field: "speed"),
        BadRequest("POST", "/clock", "text/plain", body: "soon", 400, "bad_request", field: "advance"),
    ]

    /// 404: unknown paths and ids.
    static let notFound: [BadRequest] = [
        BadRequest("GET", "/nope", nil, body: nil, 404, "not_found"),
        BadRequest("POST", "/message", body: #"{"text": "a"}"#, 404, "not_found"),
        BadRequest("GET", "/messages/1/text", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/overlay/1", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/MESSAGES", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/99", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/0", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/abc", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/-1", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/1.0", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/+1", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/%20%31", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/0x1", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/9223372036854775807", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/99999999999999999999999999999999", nil, body: nil, 404, "not_found"),
        BadRequest("GET", "/messages/%ff", nil, body: nil, 404, "not_found"),
        BadRequest("PATCH", "/messages/99", body: #"{"text": "a"}"#, 404, "not_found"),
        BadRequest("PATCH", "/messages/abc", body: #"{"text": "a"}"#, 404, "not_found"),
        BadRequest("DELETE", "/messages/99", nil, body: nil, 404, "not_found"),
        BadRequest("DELETE", "/messages/99999999999999999999", nil, body: nil, 404, "not_found"),
        BadRequest("DELETE", "/messages/x1", nil, body: nil, 404, "not_found"),
    ]

    /// 415: a body of a type overlayd does not read.
    static let unsupportedType: [BadRequest] = [
        BadRequest("POST", "/messages", "application/xml", body: "<text>a</text>", 415, "unsupported_media_type"),
        BadRequest("POST", "/messages", "text/html", body: "<p>a</p>", 415, "unsupported_media_type"),
        BadRequest("POST", "/messages", "application/octet-stream", body: "a", 415, "unsupported_media_type"),
        BadRequest("POST", "/messages", "application/jsonx", body: #"{"text": "a"}"#, 415, "unsupported_media_type"),
        BadRequest("PATCH", "/messages/2", "application/xml", body: "<a/>", 415, "unsupported_media_type"),
        BadRequest("PUT", "/orientation", "application/xml", body: "<a/>", 415, "unsupported_media_type"),
        BadRequest("POST", "/clock", "application/xml", body: "<a/>", 415, "unsupported_media_type"),
    ]

    /// 422: a field out of its range.
    static let outOfRange: [BadRequest] = [
        BadRequest("POST", "/messages", body: #"{"text": ""}"#, 422, "invalid_field", field: "text"),
        BadRequest("POST", "/messages", body: #"{"text": " \n\t "}"#, 422, "invalid_field", field: "text"),
        BadRequest("POST", "/messages", "text/plain", body: "   \n", 422, "invalid_field", field: "text"),
        BadRequest("POST", "/messages", nil, body: nil, 422, "invalid_field", field: "text"),
        BadRequest("POST", "/messages", body: #"{"kind": "sent"}"#, 422, "invalid_field", field: "text"),
        BadRequest("POST", "/messages", body: "{}", 422, "invalid_field", field: "text"),
        BadRequest(
            "POST", "/messages", "text/plain", body: String(repeating: "x", count: 257), 422, "invalid_field",
            field: "text"),
        BadRequest(
            "POST", "/messages", "text/plain", body: String(repeating: "👍🏽", count: 257), 422, "invalid_field",
            field: "text"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "progress": -0.1}"#, 422, "invalid_field", field: "progress"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "progress": 1.5}"#, 422, "invalid_field", field: "progress"),
        BadRequest(
            "POST", "/messages?progress=1.0001", "text/plain", body: "a", 422, "invalid_field", field: "progress"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": 0}"#, 422, "invalid_field", field: "duration"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": -1}"#, 422, "invalid_field", field: "duration"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": 3601}"#, 422, "invalid_field", field: "duration"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": 1e300}"#, 422, "invalid_field", field: "duration"),
        BadRequest("POST", "/messages?duration=0", "text/plain", body: "a", 422, "invalid_field", field: "duration"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "kind": "bogus"}"#, 422, "invalid_field", field: "kind"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "kind": "Sent"}"#, 422, "invalid_field", field: "kind"),
        BadRequest("POST", "/messages?kind", "text/plain", body: "a", 422, "invalid_field", field: "kind"),
        BadRequest("POST", "/messages", body: #"{"text": "a", "key": ""}"#, 422, "invalid_field", field: "key"),
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "key": "\#(String(repeating: "k", count: 129))"}"#, 422,
            "invalid_field", field: "key"),
        BadRequest("PATCH", "/messages/2", body: #"{"text": ""}"#, 422, "invalid_field", field: "text"),
        BadRequest("PATCH", "/messages/1", body: #"{"progress": 2}"#, 422, "invalid_field", field: "progress"),
        BadRequest("PATCH", "/messages/1", body: #"{"duration": 0}"#, 422, "invalid_field", field: "duration"),
        BadRequest("PATCH", "/messages/2", body: #"{"kind": "urgent"}"#, 422, "invalid_field", field: "kind"),
        BadRequest(
            "PATCH", "/messages/2", body: #"{"kind": "progress", "progress": null}"#, 422, "invalid_field",
            field: "progress"),
        BadRequest(
            "PUT", "/orientation", body: #"{"orientation": "sideways"}"#, 422, "invalid_field", field: "orientation"),
        BadRequest(
            "PUT", "/orientation", body: #"{"orientation": "Portrait"}"#, 422, "invalid_field", field: "orientation"),
        BadRequest("PUT", "/orientation", body: "{}", 422, "invalid_field", field: "orientation"),
        BadRequest("PUT", "/orientation", nil, body: nil, 422, "invalid_field", field: "orientation"),
        BadRequest(
            "PUT", "/orientation", "text/plain", body: "upside down", 422, "invalid_field", field: "orientation"),
        BadRequest("POST", "/clock", body: #"{"advance": -1}"#, 422, "invalid_field", field: "advance"),
        BadRequest("POST", "/clock", body: #"{"advance": -0.001}"#, 422, "invalid_field", field: "advance"),
        BadRequest("POST", "/clock", body: #"{"advance": 1e10}"#, 422, "invalid_field", field: "advance"),
        BadRequest("POST", "/clock", body: #"{"to": 0.5}"#, 422, "invalid_field", field: "to"),
        BadRequest("POST", "/clock", body: #"{"to": 0}"#, 422, "invalid_field", field: "to"),
        BadRequest("POST", "/clock", body: #"{"to": -5}"#, 422, "invalid_field", field: "to"),
        BadRequest("POST", "/clock", body: "{}", 422, "invalid_field", field: "advance"),
        BadRequest("POST", "/clock", nil, body: nil, 422, "invalid_field", field: "advance"),
    ]

    static let methodNotAllowed: [(method: String, path: String, allow: String)] = [
        ("DELETE", "/overlay", "GET, HEAD, OPTIONS"),
        ("POST", "/overlay", "GET, HEAD, OPTIONS"),
        ("PUT", "/messages", "GET, POST, HEAD, OPTIONS"),
        ("DELETE", "/messages", "GET, POST, HEAD, OPTIONS"),
        ("POST", "/messages/1", "GET, PATCH, DELETE, HEAD, OPTIONS"),
        ("PUT", "/messages/1", "GET, PATCH, DELETE, HEAD, OPTIONS"),
        ("GET", "/orientation", "PUT, OPTIONS"),
        ("HEAD", "/orientation", "PUT, OPTIONS"),
        ("POST", "/orientation", "PUT, OPTIONS"),
        ("POST", "/healthz", "GET, HEAD, OPTIONS"),
        ("DELETE", "/metrics", "GET, HEAD, OPTIONS"),
        ("PUT", "/clock", "GET, POST, HEAD, OPTIONS"),
        ("POST", "/", "GET, HEAD, OPTIONS"),
        ("BREW", "/messages", "GET, POST, HEAD, OPTIONS"),
        ("get", "/overlay", "GET, HEAD, OPTIONS"),
    ]

    /// Sends `bad` to a server with a shown and a queued message; expects its error and no change.
    func check(_ bad: BadRequest) throws {
        let live = try LiveServer.withTwoMessages()
        let before = try live.observableState()
        let response = try bad.send(to: live)
        expectError(response, status: bad.status, code: bad.code, field: bad.field)
        try live.expectUnchanged(since: before)
    }

    @Test("400 for malformed JSON", arguments: malformedJSON)
    func malformed(_ bad: BadRequest) throws { try check(bad) }

    @Test("400 for a field of the wrong type, unknown or repeated", arguments: badFields)
    func badField(_ bad: BadRequest) throws { try check(bad) }

    @Test("404 for an unknown path or id", arguments: notFound)
    func unknown(_ bad: BadRequest) throws { try check(bad) }

    @Test("415 for a body of another type", arguments: unsupportedType)
    func unsupported(_ bad: BadRequest) throws { try check(bad) }

    @Test("422 for a field out of range", arguments: outOfRange)
    func invalid(_ bad: BadRequest) throws { try check(bad) }

    /// 405 names the method and lists the allowed ones in `Allow`.
    @Test(arguments: methodNotAllowed)
    func wrongMethod(method: String, path: String, allow: String) throws {
        let live = try LiveServer.withTwoMessages()
        let before = try live.observableState()
        let response = try live.request(method, path)
        #expect(response.header("Allow") == allow)
        if method == "HEAD" {
            #expect(response.status == 405)
            #expect(response.body.isEmpty)
        } else {
            expectError(response, status: 405, code: "method_not_allowed")
            #expect(response.json["error"]?["message"]?.string?.contains(method) == true)
        }
        try live.expectUnchanged(since: before)
    }

    /// 409: PATCH or DELETE of a message that has ended (done, cancelled, preempted).
    @Test func changeOfEndedMessage() throws {
        let live = try LiveServer.withTwoMessages()
        #expect(try live.request("DELETE", "/messages/2").status == 200)
        #expect(try live.request("POST", "/messages?duration=1", body: "short").status == 202)
        try live.advance(0.5)
        #expect(try live.request("DELETE", "/messages/1").status == 200)
        // Message 3 now shows for 1 s from 1.5, and ends done at 2.5.
        try live.advance(1)
        #expect(try live.get("/messages/3").json["state"]?.string == "done")

        let before = try live.observableState()
        for (method, id) in [("PATCH", 1), ("DELETE", 1), ("PATCH", 2), ("DELETE", 2), ("PATCH", 3), ("DELETE", 3)] {
            let response = try live.request(
                method, "/messages/\(id)", headers: [("Content-Type", "application/json")],
                body: method == "PATCH" ? #"{"text": "too late"}"# : nil)
            expectError(response, status: 409, code: "message_ended")
            #expect(response.json["error"]?["message"]?.string?.contains("\(id)") == true)
        }
        try live.expectUnchanged(since: before)
        #expect(try live.get("/messages/1").json["text"]?.string == "first")
    }

    /// 413 as soon as Content-Length says the body is over 16 KiB; 16 KiB itself is fine.
    @Test func bodyTooLargeByContentLength() throws {
        let live = try LiveServer.withTwoMessages()
        let before = try live.observableState()
        for contentType in ["text/plain", "application/json"] {
            let body = "{\"text\": \"" + String(repeating: "a", count: 16 * 1024) + "\"}"
            let response = try live.request("POST", "/messages", headers: [("Content-Type", contentType)], body: body)
            expectError(response, status: 413, code: "payload_too_large")
        }
        let patch = try live.request(
            "PATCH", "/messages/2", headers: [("Content-Type", "text/plain")],
            body: String(repeating: " ", count: 16 * 1024) + "x")
        expectError(patch, status: 413, code: "payload_too_large")
        try live.expectUnchanged(since: before)

        let limit = try live.request(
            "POST", "/messages", headers: [("Content-Type", "text/plain")],
            body: String(repeating: " ", count: 16 * 1024 - 3) + "fit")
        #expect(limit.status == 202)
        #expect(limit.json["text"]?.string == "fit")
    }

    /// 413 for a chunked body once it passes 16 KiB (no Content-Length to refuse it early).
    @Test func bodyTooLargeChunked() throws {
        let live = try LiveServer.withTwoMessages()
        let before = try live.observableState()
        func chunked(_ body: [UInt8]) throws -> HTTPReply {
            var raw = Array(
                "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    .utf8)
            var offset = 0
            while offset < body.count {
                let piece = body[offset..<min(offset + 4000, body.count)]
                raw += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                offset += piece.count
            }
            raw += Array("0\r\n\r\n".utf8)
            return try HTTPReply.parse(RawClient.exchange(port: live.port, send: raw))
        }
        for size in [16 * 1024 + 1, 40_000, 300_000] {
            let response = try chunked(Array(repeating: UInt8(ascii: " "), count: size - 1) + [UInt8(ascii: "x")])
            expectError(response, status: 413, code: "payload_too_large")
        }
        try live.expectUnchanged(since: before)
        let fits = try chunked(Array(repeating: UInt8(ascii: " "), count: 16 * 1024 - 3) + Array("fit".utf8))
        #expect(fits.status == 202)
        #expect(fits.json["text"]?.string == "fit")
    }

    /// 503 with Retry-After once maxQueue messages wait; the queue is unchanged and frees up later.
    @Test func queueFull() throws {
        let live = try LiveServer { $0.engine.maxQueue = 2 }
        for text in ["shown", "waiting 1", "waiting 2"] {
            #expect(try live.request("POST", "/messages", body: text).status == 202)
        }
        let before = try live.observableState()
        #expect(before.queued == 2)
        let full = try live.request("POST", "/messages", body: "one too many")
        expectError(full, status: 503, code: "queue_full")
        // The shown info message is displayed 0.25 → 2.75: 2.75 s from now, rounded up.
        #expect(full.header("Retry-After") == "3")
        try live.expectUnchanged(since: before)

        try live.advance(2)
        let later = try live.request("POST", "/messages", body: "still too many")
        expectError(later, status: 503, code: "queue_full")
        #expect(later.header("Retry-After") == "1")

        try live.advance(0.75)
        let accepted = try live.request("POST", "/messages", body: "fits now")
        #expect(accepted.status == 202)
        #expect(accepted.json["id"]?.int == 4)
    }

    /// An immediate POST whose replaced sticky message would go back to a full queue is refused too.
    @Test func queueFullForImmediateReplacingSticky() throws {
        let live = try LiveServer { $0.engine.maxQueue = 1 }
        #expect(try live.request("POST", "/messages?kind=sending", body: "Sending…").status == 202)
        #expect(try live.request("POST", "/messages", body: "waiting").status == 202)
        let before = try live.observableState()
        let response = try live.request("POST", "/messages?immediate", body: "urgent")
        expectError(response, status: 503, code: "queue_full")
        // A sticky message has no end in sight: the client is told to look again in 5 s.
        #expect(response.header("Retry-After") == "5")
        try live.expectUnchanged(since: before)
    }
}
