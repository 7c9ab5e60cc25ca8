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
        for form in forms { #expect(FormField.isURLEncodedForm(Array(form.utf8)), "\(form)") }
        for text in texts { #expect(!FormField.isURLEncodedForm(Array(text.utf8)), "\(text)") }
    }

    /// A server that answers with the fields it decoded, one `name=value-length[:filename]` line each,
    /// or `not a form`.
    static func server() throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 1
        return try HTTPServer(options: options) { request, responder in
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
