import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// One way to read a field: a value means the same in a query, a form body and JSON, and is
/// refused the same way, naming the field.
@Suite("Field reading")
struct FieldReadingTests {
    static func form(_ body: String) -> [(String, String)] {
        [FormBody.urlEncoded]
    }

    /// A query value and a form value are percent-decoded by the one decoder: `%00` is U+0000 in
    /// both, and a value that is not UTF-8 once decoded is 400 naming the field in both.
    @Test func queryAndFormDecodeAlike() throws {
        try withLiveServer { live in
            let queried = try live.request("POST", "/messages?text=a%00b")
            let formed = try live.request("POST", "/messages", headers: Self.form(""), body: "text=a%00b")
            #expect(queried.status == 202)
            #expect(formed.status == 202)
            #expect(queried.json["text"]?.string == "a\u{0}b")
            #expect(formed.json["text"]?.string == queried.json["text"]?.string)
            let before = try live.observableState()
            expectError(try live.request("POST", "/messages?text=%FF"), status: 400, code: "bad_request", field: "text")
            expectError(
                try live.request("POST", "/messages", headers: Self.form(""), body: "text=%FF"), status: 400,
                code: "bad_request", field: "text")
            try live.expectUnchanged(since: before)
        }
    }

    /// Keys that differ after decoding name different messages, and one that is not UTF-8 names
    /// none: `%FF` and `%FE` are both refused (they were once both U+FFFD, one key), `%00` and
    /// `%2500` are two keys (they were once both the text `%00`).
    @Test func keysAreDecodedExactly() throws {
        try withLiveServer { live in
            for key in ["%FF", "%FE"] {
                expectError(
                    try live.request("POST", "/messages?key=\(key)&text=x"), status: 400, code: "bad_request",
                    field: "key")
            }
            let nul = try live.request("POST", "/messages?key=%00&text=one")
            let percent = try live.request("POST", "/messages?key=%2500&text=two")
            #expect(nul.status == 202)
            #expect(percent.status == 202)
            #expect(nul.json["key"]?.string == "\u{0}")
            #expect(percent.json["key"]?.string == "%00")
            #expect(nul.json["id"]?.int != percent.json["id"]?.int)
        }
    }

    /// A read refuses a parameter given twice, as a write does, rather than taking the first.
    @Test(arguments: [
        ("/messages?limit=2&limit=1", "limit"), ("/messages?limit=1&limit=2", "limit"),
        ("/messages?after=1&after=2", "after"), ("/overlay?since=1&since=1", "since"),
        ("/overlay?wait=1&wait=2&since=0", "wait"), ("/events?channel=x&channel=y", "channel"),
    ])
    func readsRefuseRepeatedParameters(path: String, field: String) throws {
        try withLiveServer { live in
            let response = try live.get(path)
            expectError(response, status: 400, code: "bad_request", field: field)
            #expect(response.json["error"]?["message"]?.string == "query parameter \(field) is given twice")
        }
    }

    /// The typed readings of a value, from JSON and from text.
    @Test func typedValues() throws {
        #expect(try FieldValue.text(" 2.5 ").number() == 2.5)
        #expect(try FieldValue.json(.number(2.5)).number() == 2.5)
        #expect(throws: FieldProblem(.malformed, "must be a number, not \"inf\"")) {
            try FieldValue.text("inf").number()
        }
        #expect(throws: FieldProblem(.malformed, "must be a number, not a string")) {
            try FieldValue.json(.string("1")).number()
        }
        #expect(try FieldValue.text("42").whole(Int.self) == 42)
        #expect(throws: FieldProblem.self) { try FieldValue.json(.number(1.5)).whole(Int.self) }
        for (text, flag) in [("true", true), ("YES", true), ("on", true), ("1", true), ("0", false), ("off", false)] {
            #expect(try FieldValue.text(text).bool() == flag, "\(text)")
        }
        #expect(try FieldValue.bare.bool())
        #expect(throws: FieldProblem(.malformed, "must be true or false, not an empty value")) {
            try FieldValue.text("").bool()
        }
        #expect(throws: FieldProblem.self) { try FieldValue.json(.number(1)).bool() }
        #expect(try FieldValue.text(" landscapeLeft ").choice(Orientation.self) == .landscapeLeft)
        #expect(throws: FieldProblem.self) { try FieldValue.text("sideways").choice(Orientation.self) }
        #expect(throws: FieldProblem(.malformed, "is not valid UTF-8")) { try FieldValue.text([0xFF]).string() }
        #expect(FieldValue.text("null").isNull && FieldValue.json(.null).isNull && !FieldValue.bare.isNull)
    }

    /// A message's fields from a query, the same from JSON, and the refusals naming each field.
    @Test func messageFieldsFromEverySource() throws {
        let query = HTTPRequest(
            method: "POST", path: "/messages",
            query: [
                QueryItem(name: "kind", value: "progress"), QueryItem(name: "text", value: "Downloading"),
                QueryItem(name: "progress", value: "0.25"), QueryItem(name: "duration", value: "2"),
                QueryItem(name: "immediate", value: nil), QueryItem(name: "key", value: "dl"),
            ])
        let json = HTTPRequest(
            method: "POST", path: "/messages", headers: [Header(name: "Content-Type", value: "application/json")],
            body: Array(
                #"{"kind": "progress", "text": "Downloading", "progress": 0.25, "duration": 2, "immediate": true, "key": "dl"}"#
                    .utf8))
        var fromQuery = MessageInput()
        var fromJSON = MessageInput()
        try FieldReader(query, MessageFields.post).read(MessageFields.post, into: &fromQuery)
        try FieldReader(json, MessageFields.post).read(MessageFields.post, into: &fromJSON)
        #expect(fromQuery == fromJSON)
        #expect(
            fromQuery
                == MessageInput(
                    kind: .progress, text: "Downloading", progress: 0.25, duration: .seconds(2), immediate: true,
                    key: "dl"))
        var patch = MessageInput()
        #expect(throws: APIError.badRequest("immediate cannot be changed after posting", field: "immediate")) {
            try FieldReader(query, MessageFields.patch).read(MessageFields.patch, into: &patch)
        }
        #expect(
            MessageFields.post.names == [
                "kind", "text", "progress", "duration", "immediate", "key", "subtitle", "icon", "delay", "at",
                "expires", "priority", "click", "actions", "accessibilityLabel",
            ])
    }
}
