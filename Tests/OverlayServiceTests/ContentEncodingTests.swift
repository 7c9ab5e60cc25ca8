import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// A body in a content coding (RFC 9110 §8.4) is one overlayd does not decode: 415
/// `unsupported_encoding` naming the field, with `Accept-Encoding: identity` (§15.5.16), before
/// anything reads it as JSON, a form or text. `identity`, or no coding, is read as always.
@Suite("Content encoding")
struct ContentEncodingTests {
    /// `{"text":"hi"}` as gzip sends it.
    static let gzipped: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0x2a, 0x49, 0xad, 0x28, 0x51, 0xb2,
        0x52, 0xca, 0xc8, 0x54, 0xaa, 0x05, 0x00, 0xd8, 0xc4, 0x47, 0xca, 0x0d, 0x00, 0x00, 0x00,
    ]

    static func request(
        _ method: String, _ path: String, type: String?, codings: [String], body: [UInt8], query: [QueryItem] = []
    ) -> HTTPRequest {
        let headers =
            (type.map { [Header(name: "Content-Type", value: $0)] } ?? [])
            + codings.map { Header(name: "Content-Encoding", value: $0) }
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
    }

    static func expectRefused(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = response.json["error"]
        #expect(
            response.status == 415, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(error?["code"]?.string == "unsupported_encoding", sourceLocation: sourceLocation)
        #expect(error?["field"]?.string == "Content-Encoding", sourceLocation: sourceLocation)
        #expect(response.header("Accept-Encoding") == "identity", sourceLocation: sourceLocation)
    }

    /// A gzip JSON body is 415, not a misleading 400 `invalid_json`; a `br` text body is 415, not
    /// stored as the message's text. Nothing is queued.
    @Test func codedBodiesRefused() throws {
        let service = try OverlayService.testing()
        Self.expectRefused(
            service.answer(
                Self.request("POST", "/messages", type: "application/json", codings: ["gzip"], body: Self.gzipped)))
        Self.expectRefused(
            service.answer(
                Self.request("POST", "/messages", type: "text/plain", codings: ["br"], body: Array("hi".utf8))))
        Self.expectRefused(
            service.answer(
                Self.request("POST", "/messages", type: nil, codings: ["deflate"], body: Array("text=hi".utf8))))
        let overlay = service.answer(HTTPRequest("GET", "/overlay")).json
        #expect(overlay["queued"]?.int == 0)
        #expect(overlay["phase"]?.string == "hidden")
    }

    /// Any coding but identity, alone or in a list, or in a second field, is refused.
    @Test(arguments: [
        ["gzip"], ["GZIP"], ["x-gzip"], ["compress"], ["zstd"], ["*"], ["gzip, identity"], ["identity, gzip"],
        ["identity;q=1"], ["identity", "gzip"], ["", "br"],
    ])
    func codingsRefused(_ codings: [String]) throws {
        let service = try OverlayService.testing()
        Self.expectRefused(
            service.answer(
                Self.request(
                    "POST", "/messages", type: "application/json", codings: codings, body: Array(#"{"text":"hi"}"#.utf8)
                )))
    }

    /// `identity` in any case with blanks around it, a list of nothing else, and an empty value
    /// (a list of no codings) are the body as it is.
    @Test(arguments: [["identity"], ["IDENTITY"], [" \tIdentity \t"], [""], ["identity, identity"], ["identity", ""]])
    func identityServed(_ codings: [String]) throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            Self.request(
                "POST", "/messages", type: "application/json", codings: codings, body: Array(#"{"text":"hi"}"#.utf8)))
        #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// Without a body there is nothing to decode: the query's fields are read as always.
    @Test func noBodyServed() throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            Self.request(
                "POST", "/messages", type: nil, codings: ["gzip"], body: [],
                query: [QueryItem(name: "text", value: "hi")]))
        #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// Every endpoint that reads a body refuses a coded one, each with a body it would take.
    @Test(arguments: [
        ("POST", "/messages", #"{"text":"hi"}"#), ("PATCH", "/messages/1", #"{"text":"ho"}"#),
        ("PUT", "/orientation", #"{"orientation":"landscapeLeft"}"#), ("PUT", "/device", #"{"device":"iphone"}"#),
        ("PUT", "/presentation", #"{"presentation":"pill"}"#), ("PUT", "/statusbar", #"{"hidden":true}"#),
        ("PUT", "/statusbar/controllers", #"{"root":{"id":"a"},"controllers":[]}"#),
        ("POST", "/clock", #"{"advance":1}"#),
        ("POST", "/channels/ci/messages", #"{"text":"hi"}"#),
    ])
    func everyBodyReaderRefuses(method: String, path: String, body: String) throws {
        let service = try OverlayService.testing()
        #expect(service.answer(HTTPRequest("POST", "/messages", body: "first")).status == 202)
        Self.expectRefused(
            service.answer(
                Self.request(method, path, type: "application/json", codings: ["gzip"], body: Array(body.utf8))))
    }

    /// `POST /tokens` reads its JSON itself.
    @Test func tokenBodyRefused() throws {
        let service = try OverlayService.guarded()
        let request = HTTPRequest(
            method: "POST", path: "/tokens",
            headers: Credential.bearer(Credential.admin) + [
                Header(name: "Content-Type", value: "application/json"),
                Header(name: "Content-Encoding", value: "gzip"),
            ],
            body: Array(#"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#.utf8))
        Self.expectRefused(service.answer(request))
    }

    /// Through libmicrohttpd: the 415 in the API's shape, with `Accept-Encoding`; a second field
    /// naming a coding is seen too; `identity` is served.
    @Test func live() throws {
        try withLiveServer { live in
            let before = try live.observableState()
            let gzip = try RawClient.request(
                "POST", "/messages", port: live.port,
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], bodyBytes: Self.gzipped)
            expectError(gzip, status: 415, code: "unsupported_encoding", field: "Content-Encoding")
            #expect(gzip.header("Accept-Encoding") == "identity")
            let second = try live.request(
                "POST", "/messages",
                headers: [
                    ("Content-Type", "text/plain"), ("Content-Encoding", "identity"), ("Content-Encoding", "br"),
                ],
                body: "hi")
            expectError(second, status: 415, code: "unsupported_encoding", field: "Content-Encoding")
            let lowerCase = try live.request(
                "POST", "/messages", headers: [("content-type", "text/plain"), ("content-encoding", "Zstd")], body: "hi"
            )
            expectError(lowerCase, status: 415, code: "unsupported_encoding", field: "Content-Encoding")
            #expect(try live.observableState() == before)
            let identity = try live.request(
                "POST", "/messages", headers: [("Content-Type", "text/plain"), ("Content-Encoding", " Identity ")],
                body: "hi")
            #expect(identity.status == 202, "\(identity.text)")
        }
    }
}
