import ServiceTestSupport
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
