import TestSupport
import Testing

@testable import MicroHTTP

/// Form bodies decoded by libmicrohttpd's post processor through a live server, and the check
/// that tells a URL-encoded form from text sent with the form type.
@Suite("Form fields")
struct FormFieldTests {
    /// Well-formed pairs with escapes, and what is not a form: a pair without `=`, a stray `%`.
    @Test func urlEncodedShape() {
        let forms = ["text=hi&kind=sent", "a=", "=b", "a=1&&b=2&", "", "x=%41%4a%4A+y", "a=b=c"]
        let texts = ["hello", "a=1&b", "50%", "a=%4", "a=%zz", "%41=1&x", "text=hi&kind"]
        for form in forms { #expect(URLEncoded.isForm(Array(form.utf8)), "\(form)") }
        for text in texts { #expect(!URLEncoded.isForm(Array(text.utf8)), "\(text)") }
    }

    /// A server that answers with the fields it decoded, one `name=value-length[:filename]` line each,
    /// or `not a form`.
    static func server() throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 1
        return try HTTPServer.serving(options) { request, responder in
            let text =
                request.formFields().map { fields in
                    fields.map { "\($0.name)=\($0.value.count)" + ($0.filename.map { ":\($0)" } ?? "") }
                        .joined(separator: "\n")
                } ?? "not a form"
            responder.respond(HTTPResponse(status: 200, body: Array(text.utf8)))
        }
    }

    static func post(_ server: HTTPServer, type: String?, body: String) throws -> String {
        let client = try RawClient(port: server.port)
        var head = "POST /f HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        if let type { head += "Content-Type: \(type)\r\n" }
        try client.send(head + "\r\n" + body)
        let answer = String(decoding: client.receive(), as: UTF8.self)
        return String(answer.split(separator: "\r\n\r\n", maxSplits: 1).last ?? "")
    }

    /// A value longer than the post processor's buffer arrives in pieces and is put back together;
    /// the form type is assumed when none is named.
    @Test(arguments: [nil, "application/x-www-form-urlencoded; charset=utf-8"])
    func longURLEncodedValue(_ type: String?) throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        let long = String(repeating: "ab%20", count: 2000)
        #expect(try Self.post(server, type: type, body: "short=1&long=\(long)&last=") == "short=1\nlong=6000\nlast=0")
        #expect(try Self.post(server, type: type, body: "just text") == "not a form")
    }

    /// Multipart parts, a file among them, a long one in pieces; a body without valid framing is
    /// not a form.
    @Test func multipart() throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        let long = String(repeating: "z", count: 5000)
        let body =
            "--XyZ\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"n.txt\"\r\nContent-Type: text/plain\r\n\r\n\(long)\r\n"
            + "--XyZ--\r\n"
        let decoded = try Self.post(server, type: "multipart/form-data; boundary=XyZ", body: body)
        #expect(decoded == "text=2\nfile=5000:n.txt")
        #expect(try Self.post(server, type: "multipart/form-data", body: body) == "not a form")
        #expect(try Self.post(server, type: "text/plain", body: "a=b") == "not a form")
    }
}

/// The one decoding of query strings and URL-encoded bodies, the multipart framing, and the
/// reading of media types, without a server.
@Suite("Form decoding")
struct FormDecodingTests {
    static func pairs(_ text: String) -> [String] {
        URLEncoded.pairs(Array(text.utf8)).map { pair in
            String(decoding: pair.name, as: UTF8.self)
                + (pair.value.map { "=" + $0.map { String($0) }.joined(separator: ",") } ?? "")
        }
    }

    /// `+` is a space and `%XX` its byte, whatever the byte: invalid UTF-8 and NUL come out as
    /// they were sent, for the reader to judge. A stray `%` stays; empty pairs are skipped.
    @Test func urlEncodedPairs() {
        #expect(Self.pairs("a=1&b=x+y") == ["a=49", "b=120,32,121"])
        #expect(Self.pairs("k=%FF&n=%00&p=%2B") == ["k=255", "n=0", "p=43"])
        #expect(Self.pairs("bare&e=&&=v") == ["bare", "e=", "=118"])
        #expect(Self.pairs("t=100%&u=%4") == ["t=49,48,48,37", "u=37,52"])
        #expect(Self.pairs("%41%62=c") == ["Ab=99"])
        #expect(Self.pairs("").isEmpty)
    }

    static func multipart(
        _ boundary: String, _ parts: [(String, String)], preamble: String = "", epilogue: String = ""
    )
        -> [UInt8]
    {
        var body = preamble.isEmpty ? "" : preamble + "\r\n"
        for (head, content) in parts { body += "--\(boundary)\r\n\(head)\r\n\r\n\(content)\r\n" }
        return Array((body + "--\(boundary)--" + epilogue).utf8)
    }

    /// Parts by name, a file and its type, an empty value, a one-character boundary (RFC 2046
    /// allows 1 to 70), text before the first and after the last boundary.
    @Test func multipartParts() throws {
        let body = Self.multipart(
            "B",
            [
                ("Content-Disposition: form-data; name=\"text\"", "hi --B- there"),
                ("content-disposition: form-data; name=empty", ""),
                (
                    "Content-Disposition: form-data; name=\"f\"; filename=\"a b.txt\"\r\nContent-Type: text/plain",
                    "x\r\ny"
                ),
            ], preamble: "ignored", epilogue: "\r\nalso ignored")
        let fields = try #require(MultipartForm.fields(body, boundary: "B"))
        #expect(fields.map(\.name) == ["text", "empty", "f"])
        #expect(fields.map { String(decoding: $0.value, as: UTF8.self) } == ["hi --B- there", "", "x\r\ny"])
        #expect(fields[2].filename == "a b.txt")
        #expect(fields[2].contentType == "text/plain")
        #expect(MultipartForm.fields(Array("--B--".utf8), boundary: "B") == [])
    }

    /// Framing that does not hold is no form: no closing boundary, a part without its name or
    /// its blank line, another boundary, a boundary longer than 70.
    @Test func multipartRefusals() {
        let good = Self.multipart("XyZ", [("Content-Disposition: form-data; name=\"a\"", "1")])
        #expect(MultipartForm.fields(good, boundary: "XyZ") != nil)
        #expect(MultipartForm.fields(Array(good.dropLast(2)), boundary: "XyZ") == nil)
        #expect(MultipartForm.fields(good, boundary: "Other") == nil)
        #expect(MultipartForm.fields(good, boundary: String(repeating: "b", count: 71)) == nil)
        let nameless = Self.multipart("B", [("Content-Disposition: form-data", "1")])
        #expect(MultipartForm.fields(nameless, boundary: "B") == nil)
        let attachment = Self.multipart("B", [("Content-Disposition: attachment; name=\"a\"", "1")])
        #expect(MultipartForm.fields(attachment, boundary: "B") == nil)
        #expect(
            MultipartForm.fields(Array("--B\r\nContent-Disposition: form-data; name=a\r\n1".utf8), boundary: "B") == nil
        )
    }

    /// Type and parameters as RFC 9110 writes them: case-blind names, quoted values with escapes,
    /// blanks around the type.
    @Test func mediaTypes() {
        let type = MediaType(" Multipart/Form-Data ; charset=UTF-8; boundary=\"a \\\"b\\\" c\"; bare")
        #expect(type.type == "multipart/form-data")
        #expect(type.parameter("BOUNDARY") == "a \"b\" c")
        #expect(type.parameter("charset") == "UTF-8")
        #expect(type.parameter("bare") == nil)
        #expect(MultipartForm.boundary(of: "multipart/form-data; boundary=B") == "B")
        #expect(MediaType("").type == "")
        for (header, kind) in [
            ("application/json; charset=utf-8", MediaType.Kind.json), ("application/merge-patch+json", .json),
            ("TEXT/plain", .text), ("", .unnamedOrForm), ("application/x-www-form-urlencoded", .unnamedOrForm),
            ("multipart/form-data; boundary=x", .multipart), ("application/XML", .other("application/xml")),
        ] {
            var text = header
            #expect(text.withUTF8 { MediaType.kind(of: UnsafeRawBufferPointer($0)) } == kind, "\(header)")
            #expect(MediaType.kind(ofType: MediaType(header).type) == kind, "\(header)")
        }
        #expect(MediaType.kind(of: nil) == .unnamedOrForm)
    }
}
