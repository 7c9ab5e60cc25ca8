import MicroHTTP
import OverlayEngine

/// `GET /auth`: the question nginx's `nchan_authorize_request` asks before nchan takes a
/// subscriber: may this request's credential read this channel? 204 if so, else the 401 or 403 the
/// API itself would answer, so that a reader reaching nchan is held to the same grants as one
/// reaching overlayd (docs/ACCESS.md, "Behind nginx and nchan").
struct AuthHandlers: Sendable {
    let guardian: AccessGuard

    func authorize(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let original = request.header("X-Original-URI").map { Array($0.utf8) }
        let channel: String
        if let named = request.header("X-Overlayd-Channel") {
            guard Name.isValid(named) else { throw Router.badChannelName }
            channel = named
        } else {
            channel = try Self.channel(ofURI: original ?? Array("/".utf8))
        }
        // The credential: the subscriber's Authorization header, else the `auth` parameter of
        // the URI it asked for (EventSource cannot set headers).
        var credentialRequest = request
        if request.header("Authorization") == nil, let original,
            let question = original.firstIndex(of: UInt8(ascii: "?"))
        {
            credentialRequest.query = QueryItem.items(of: original[(question + 1)...])
        }
        try guardian.authorizeRead(credentialRequest, channel: channel)
        return HTTPResponse(status: 204, headers: [.noStore])
    }

    /// The channel a URI addresses, as the API reads a request: `/channels/{name}/…`, the
    /// `channel` parameter of `/events`, else `default`. A path with a dot segment or an encoded
    /// `/` is 400: nginx and overlayd could read it as different paths.
    static func channel(ofURI uri: [UInt8]) throws(APIError) -> String {
        let question = uri.firstIndex(of: UInt8(ascii: "?")) ?? uri.endIndex
        let rawPath = uri[..<question]
        let lowered = String(decoding: rawPath, as: UTF8.self).lowercased()
        if lowered.contains("%2f") || lowered.contains("%5c") {
            throw .badRequest("X-Original-URI holds an encoded / or \\", field: "X-Original-URI")
        }
        let path = percentDecoded(rawPath)
        let segments = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        if segments.contains(where: { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }) {
            throw .badRequest("X-Original-URI holds a dot segment", field: "X-Original-URI")
        }
        if segments.count >= 2, segments.first!.elementsEqual("channels".utf8) {
            let name = String(decoding: segments[segments.startIndex + 1], as: UTF8.self)
            guard Name.isValid(name) else { throw Router.badChannelName }
            return name
        }
        if path.elementsEqual("/events".utf8) || path.elementsEqual("/events/".utf8) {
            let query = question < uri.endIndex ? QueryItem.items(of: uri[(question + 1)...]) : []
            if let named = query.first(where: { $0.name == "channel" })?.value {
                let name = String(decoding: named, as: UTF8.self)
                guard Name.isValid(name) else { throw Router.badChannelName }
                return name
            }
        }
        return ChannelRegistry.defaultName
    }

    /// `%XX` decoded; `+` stays a plus, as in any path.
    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }
}
