import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

// The requests of `ErrorTests`, by the status they must get.

extension ErrorTests {
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
        // A text body that is not UTF-8: refused naming the field it stands for, as a query or
        // form value that is not would be.
        BadRequest("POST", "/messages", nil, bytes: [0x68, 0xFF, 0xFE, 0x69], 400, "bad_request", field: "text"),
        BadRequest("POST", "/messages", "text/plain", bytes: [0xC3, 0x28], 400, "bad_request", field: "text"),
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
        // A number too large for a Double is out of range, one answer in JSON and in a query.
        BadRequest(
            "POST", "/messages", body: #"{"text": "a", "duration": 1e999}"#, 422, "invalid_field", field: "duration"),
        BadRequest(
            "POST", "/messages?duration=1e999", "text/plain", body: "a", 422, "invalid_field", field: "duration"),
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
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let response = try bad.send(to: live)
            expectError(response, status: bad.status, code: bad.code, field: bad.field)
            try live.expectUnchanged(since: before)
        }
    }
}
