import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Bodies by content type, through real HTTP: `text/plain` is the text verbatim; a form
/// (`application/x-www-form-urlencoded` or no type) whose every name is a field of the endpoint
/// is read as those fields, any other form-typed body is the text; `multipart/form-data` is read
/// as its fields; libmicrohttpd's post processor decodes both form encodings.
@Suite("Form and text bodies")
struct FormBodyTests {
    /// `text/plain` is the text, even when it starts with `{` (a browser may post it cross-site
    /// without a preflight, so it must never be read as JSON).
    @Test(arguments: [#"{"text": "x", "kind": "failed"}"#, "{oops", " {\"text\": \"a\",}"])
    func plainTextIsVerbatim(_ body: String) throws {
        try withLiveServer { live in
            let posted = try live.request("POST", "/messages", headers: [("Content-Type", "text/plain")], body: body)
            #expect(posted.status == 202, "\(posted.text)")
            #expect(posted.json["text"]?.string == body.trimmingSpaces())
            #expect(posted.json["kind"]?.string == "info")
        }
    }

    /// What HTML forms, `requests.post(data=…)` and `curl --data-urlencode` send: read as fields,
    /// with `+` and `%XX` decoded; with the form type or none.
    @Test(arguments: [true, false])
    func formIsRead(typed: Bool) throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages", headers: typed ? [FormBody.urlEncoded] : [],
                body: "text=Photo+sent%21&kind=sent&progress=0.5&key=up%2D1")
            #expect(posted.status == 202, "\(posted.text)")
            #expect(posted.json["text"]?.string == "Photo sent!")
            #expect(posted.json["kind"]?.string == "sent")
            #expect(posted.json["progress"]?.number == 0.5)
            #expect(posted.json["key"]?.string == "up-1")
            #expect(try live.get("/messages/1").json["text"]?.string == "Photo sent!")
        }
    }

    /// A form of the text field alone, and query parameters beside it, as `curl -d` users write.
    @Test func formBesideQuery() throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages?kind=failed", headers: [FormBody.urlEncoded],
                body: "text=Upload%20failed%3A%20disk%20full")
            #expect(posted.json["text"]?.string == "Upload failed: disk full")
            #expect(posted.json["kind"]?.string == "failed")
        }
    }

    /// A body that is not a form of message fields stays the text, verbatim: unknown names, a
    /// pair without `=`, a stray or bad `%`, plain prose with an `=` in it.
    @Test(arguments: [
        "text=Upload+done&x=%41", "colour=red", "Upload done", "50% off", "text=50%zz", "text=100%",
        "Note: a=b", "text=hi&kind", "a=b=c",
    ])
    func otherFormBodiesAreText(_ body: String) throws {
        try withLiveServer { live in
            for headers in [[FormBody.urlEncoded], []] {
                let posted = try live.request("POST", "/messages", headers: headers, body: body)
                #expect(posted.status == 202, "\(posted.text)")
                #expect(posted.json["text"]?.string == body)
                #expect(posted.json["kind"]?.string == "info")
            }
        }
    }

    /// A name given twice in a form, or in the form and the query, is an error rather than a
    /// guess; nothing is stored.
    @Test(arguments: [
        ("/messages", "text=a&text=b"), ("/messages?text=a", "text=b"), ("/messages?kind=sent", "kind=failed&text=x"),
    ])
    func repeatedNames(_ path: String, _ body: String) throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let response = try live.request("POST", path, headers: [FormBody.urlEncoded], body: body)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.errorCode == "bad_request")
            try live.expectUnchanged(since: before)
        }
    }

    /// A form value that is not UTF-8 once decoded is refused, naming the field.
    @Test func formValueNotUTF8() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let response = try live.request(
                "POST", "/messages", headers: [FormBody.urlEncoded], body: "text=%FF%FE&kind=sent")
            expectError(response, status: 400, code: "bad_request", field: "text")
            try live.expectUnchanged(since: before)
        }
    }

    /// A form value out of range is 422 like any other field.
    @Test func formValueOutOfRange() throws {
        try withLiveServer { live in
            let response = try live.request(
                "POST", "/messages", headers: [FormBody.urlEncoded], body: "text=hi&progress=2")
            expectError(response, status: 422, code: "invalid_field", field: "progress")
        }
    }

    /// The other writes read forms of their own fields too.
    @Test func formsOnOtherWrites() throws {
        try withLiveServer { live in
            let rotated = try live.request(
                "PUT", "/orientation", headers: [FormBody.urlEncoded], body: "orientation=landscapeLeft")
            #expect(rotated.status == 200, "\(rotated.text)")
            let device = try live.request("PUT", "/device", headers: [FormBody.urlEncoded], body: "device=iphone")
            #expect(device.json["device"]?.string == "iphone")
            let clock = try live.request("POST", "/clock", headers: [FormBody.urlEncoded], body: "advance=1.5")
            #expect(clock.json["now"]?.number == 1.5)
            let posted = try live.request("POST", "/messages", body: "text=first&immediate=false")
            let patched = try live.request(
                "PATCH", "/messages/\(posted.json["id"]?.int ?? 0)", headers: [FormBody.urlEncoded],
                body: "kind=sent&text=done")
            #expect(patched.json["kind"]?.string == "sent")
            #expect(patched.json["text"]?.string == "done")
        }
    }

    /// A multipart body as `curl -F text=… -F kind=…` sends it.
    /// Multipart fields are read as fields, a file part's contents included.
    @Test func multipartIsRead() throws {
        try withLiveServer { live in
            let fields = FormBody.multipart([
                ("text", nil, "Sending…"), ("kind", nil, "sending"), ("key", nil, "a&b=c"),
            ])
            let posted = try live.request("POST", "/messages", headers: [fields.header], body: fields.body)
            #expect(posted.status == 202, "\(posted.text)")
            #expect(posted.json["text"]?.string == "Sending…")
            #expect(posted.json["kind"]?.string == "sending")
            #expect(posted.json["key"]?.string == "a&b=c")

            let file = FormBody.multipart([("text", "note.txt", "from a file"), ("kind", nil, "sent")])
            let fromFile = try live.request("POST", "/messages", headers: [file.header], body: file.body)
            #expect(fromFile.status == 202, "\(fromFile.text)")
            #expect(fromFile.json["text"]?.string == "from a file")
        }
    }

    /// Multipart with a name that is not a field, the same name twice, or no valid framing is
    /// refused (there is no text to fall back to); nothing is stored.
    @Test func multipartRefused() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let unknown = FormBody.multipart([("text", nil, "hi"), ("attachment", "a.bin", "xyz")])
            let response = try live.request("POST", "/messages", headers: [unknown.header], body: unknown.body)
            expectError(response, status: 400, code: "bad_request", field: "attachment")
            let twice = FormBody.multipart([("text", nil, "a"), ("text", nil, "b")])
            let repeated = try live.request("POST", "/messages", headers: [twice.header], body: twice.body)
            expectError(repeated, status: 400, code: "bad_request", field: "text")
            for (type, body) in [
                ("multipart/form-data; boundary=x", "a"), ("multipart/form-data", "--x\r\n\r\nhi\r\n--x--\r\n"),
                ("multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi"),
            ] {
                let bad = try live.request("POST", "/messages", headers: [("Content-Type", type)], body: body)
                expectError(bad, status: 400, code: "bad_request")
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// A JSON body must be an object: one of blanks alone is 400 `invalid_json` and changes
    /// nothing, as the API description says (fuzzing found `\r` taken for no body, the query's
    /// fields applied). No body at all with a JSON type still means the query's fields alone.
    @Test func blankJSONBodyIsRefused() throws {
        try withLiveServer { live in
            let before = try live.observableState()
            let json = ("Content-Type", "application/json")
            for body in ["\r", " ", "\r\n\t "] {
                let statusBar = try live.request("PUT", "/statusbar?hidden=true", headers: [json], body: body)
                expectError(statusBar, status: 400, code: "invalid_json")
                let posted = try live.request("POST", "/messages?text=q", headers: [json], body: body)
                expectError(posted, status: 400, code: "invalid_json")
            }
            try live.expectUnchanged(since: before)
            let empty = try live.request("PUT", "/statusbar?hidden=true", headers: [json], body: "")
            #expect(empty.status == 200)
            #expect(empty.json["statusBar"]?["hidden"]?.bool == true)
        }
    }

    /// A body whose first non-blank character is `{` is still JSON with the form type or none.
    @Test func braceBodyIsJSONWithoutTextType() throws {
        try withLiveServer { live in
            for headers in [[FormBody.urlEncoded], []] {
                let posted = try live.request(
                    "POST", "/messages", headers: headers, body: #" {"text": "j", "kind": "sent"}"#)
                #expect(posted.json["text"]?.string == "j")
                #expect(posted.json["kind"]?.string == "sent")
            }
        }
    }
}
