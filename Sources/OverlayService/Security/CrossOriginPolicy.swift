import MicroHTTP
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// What web pages may do with overlayd: which origins may read it from a browser (CORS), and the
/// two refusals that keep a page a user happens to visit from writing to a local overlayd.
///
/// A browser sends a text or form POST to any site without asking first, and CORS only decides
/// whether the page may read the answer, not whether the write happens. So a write that names a
/// foreign `Origin` is refused, unless that origin is listed by name or the write carries a valid
/// credential (a browser never attaches a bearer token on its own). And a page whose host name an attacker
/// points at 127.0.0.1 (DNS rebinding) is same-origin with the server it reaches, so while
/// overlayd listens on loopback, a request for a host that is not a loopback name is refused.
///
/// Pure: the configuration in, decisions and headers out.
struct CrossOriginPolicy: Sendable {
    /// Why a request is refused; each is a 403.
    enum Refusal: Hashable, Sendable {
        /// `Host` names something other than loopback (or `allowedHosts`) while listening on loopback.
        case foreignHost(String)
        /// A write without a credential from a web page of another origin.
        case foreignOrigin(String)

        var error: APIError {
            switch self {
            case .foreignHost(let host):
                APIError(
                    status: 403, code: "host_not_allowed",
                    message: "overlayd listens on loopback and answers only requests for a loopback host, not "
                        + "\"\(CrossOriginPolicy.shortened(host))\" (DNS rebinding); list the name in allowedHosts "
                        + "to allow it")
            case .foreignOrigin(let origin):
                APIError(
                    status: 403, code: "origin_not_allowed",
                    message: "writes from the web page at \"\(CrossOriginPolicy.shortened(origin))\" are refused; "
                        + "list its origin in cors.allowOrigins, or send a credential")
            }
        }
    }

    /// The request headers a cross-origin page may send (answered to every preflight).
    static let allowedRequestHeaders = "Authorization, Content-Type, If-None-Match, Last-Event-ID"
    /// The response headers a cross-origin page may read besides the simple ones.
    static let exposedHeaders = Header(name: "Access-Control-Expose-Headers", value: "ETag, Location, Retry-After")

    /// `*` is in `cors.allowOrigins`: every origin may read.
    let allowsAnyOrigin: Bool
    /// The origins listed by name, lowercased: these may read, and write without a token.
    let listedOrigins: Set<String>
    /// Listening on a loopback address: the Host check applies.
    let checksHost: Bool
    /// Extra host names allowed by the Host check, lowercased; `.example.com` allows the name and
    /// every name under it.
    let allowedHosts: [String]

    init(configuration: ServiceConfiguration) {
        let origins = configuration.corsAllowOrigins.map { $0.lowercased() }
        allowsAnyOrigin = origins.contains("*")
        listedOrigins = Set(origins.filter { $0 != "*" })
        checksHost = CrossOriginPolicy.isLoopback(address: configuration.host)
        allowedHosts = configuration.allowedHosts.map { $0.lowercased() }
    }

    /// Whether any CORS header is sent (`cors.allowOrigins` is not empty).
    var isEnabled: Bool { allowsAnyOrigin || !listedOrigins.isEmpty }

    // MARK: - Decisions

    /// Refuses the request if its `Host` says a page of a rebound name is behind it. The header
    /// is only looked up when the rule applies: on a server not on loopback this costs nothing.
    func checkHost(_ request: HTTPRequest) throws(APIError) {
        guard checksHost else { return }
        if let refusal = refusal(write: false, origin: nil, host: request.header("Host")) { throw refusal.error }
    }

    /// Refuses a write that comes without a credential from a web page that may not write: what
    /// a forged write is, since a browser never attaches a credential on its own.
    func checkOrigin(_ request: HTTPRequest) throws(APIError) {
        guard let origin = request.header("Origin") else { return }
        if let refusal = refusal(write: true, origin: origin, host: request.header("Host")) { throw refusal.error }
    }

    /// The decision for a request (a write or not) with this `Origin` and `Host` (nil: header absent).
    func refusal(write: Bool, origin: String?, host: String?) -> Refusal? {
        // A request without Host (HTTP/1.0) comes from no browser: there is nothing to rebind.
        if checksHost, let host, !isAllowed(host: host) { return .foreignHost(host) }
        if write, let origin, !mayWrite(origin: origin, host: host) {
            return .foreignOrigin(origin)
        }
        return nil
    }

    /// Whether a `Host` header value names this machine: `localhost` or a name under it, an
    /// address in 127.0.0.0/8, `[::1]`, or a name of `allowedHosts`; any port.
    func isAllowed(host value: String) -> Bool {
        if CrossOriginPolicy.isPlainLoopback(value) { return true }
        guard let name = CrossOriginPolicy.hostName(value) else { return false }
        if CrossOriginPolicy.isLoopback(name: name) { return true }
        return allowedHosts.contains { allowed in
            allowed.hasPrefix(".") ? name == allowed.dropFirst() || name.hasSuffix(allowed) : name == allowed
        }
    }

    /// Whether a page of `origin` may write: the server's own pages (the preview), and origins
    /// listed by name. `*` lets every page read, never write.
    func mayWrite(origin: String, host: String?) -> Bool {
        let origin = origin.lowercased()
        if listedOrigins.contains(origin) { return true }
        guard let host = host?.lowercased(), !host.isEmpty else { return false }
        for (scheme, defaultPort) in [("http://", ":80"), ("https://", ":443")] {
            if origin == scheme + host { return true }
            // A browser leaves the scheme's default port out of the origin, not out of Host.
            if host.hasSuffix(defaultPort) && origin == scheme + host.dropLast(defaultPort.count) { return true }
        }
        return false
    }

    // MARK: - CORS headers

    /// Headers for every answer, whatever the request: `*` with the exposed headers, or (with a
    /// list of names) `Vary: Origin`, since the answer then depends on the request's origin.
    var responseHeaders: [Header] {
        if allowsAnyOrigin { return [Header(name: "Access-Control-Allow-Origin", value: "*"), Self.exposedHeaders] }
        if !listedOrigins.isEmpty { return [Header(name: "Vary", value: "Origin")] }
        return []
    }

    /// With a list of names (and no `*`): the headers for a request from `origin`, which is
    /// echoed if it is listed. Nil when no header depends on the origin.
    var originHeaders: (@Sendable (String) -> [Header])? {
        guard !allowsAnyOrigin, !listedOrigins.isEmpty else { return nil }
        let listed = listedOrigins
        return { origin in
            guard listed.contains(origin.lowercased()) else { return [] }
            return [Header(name: "Access-Control-Allow-Origin", value: origin), CrossOriginPolicy.exposedHeaders]
        }
    }

    /// What an `OPTIONS` answer adds for a CORS preflight: the path's methods and the request
    /// headers a page may send. The browser caches the answer for ten minutes.
    func preflightHeaders(allowing methods: [String]) -> [Header] {
        guard isEnabled else { return [] }
        return [
            Header(name: "Access-Control-Allow-Methods", value: methods.joined(separator: ", ")),
            Header(name: "Access-Control-Allow-Headers", value: Self.allowedRequestHeaders),
            Header(name: "Access-Control-Max-Age", value: "600"),
        ]
    }

    // MARK: - Names and addresses

    /// The name of a `Host` value without its port, lowercased, without a final dot; the
    /// address inside the brackets of an IPv6 literal. Nil for a value that is no host.
    static func hostName(_ value: String) -> String? {
        var text = Substring(value.lowercased().trimmingSpaces())
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if let colon = text.lastIndex(of: ":") {
            guard isPort(text[colon...]) else { return nil }
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        return text.isEmpty ? nil : String(text)
    }

    /// `127.0.0.1`, `localhost` or `[::1]`, with a port or without, as clients on this machine
    /// send them: decided over the bytes, without making a String, since every request asks
    /// (docs/ARCHITECTURE.md, hot-path rules). False means "not this form", not "refused": the
    /// general reading then decides.
    static func isPlainLoopback(_ value: String) -> Bool {
        value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            var end = bytes.count
            var digits = end
            while digits > 0, (0x30...0x39).contains(bytes[digits - 1]) { digits -= 1 }
            if digits < end, end - digits <= 5, digits > 0, bytes[digits - 1] == UInt8(ascii: ":") {
                end = digits - 1
            }
            let name = UnsafeBufferPointer(rebasing: bytes[..<end])
            return equal(name, "127.0.0.1") || equal(name, "localhost") || equal(name, "[::1]")
        } ?? false
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && (2...6).contains(text.utf8.count)
            && text.utf8.dropFirst().allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `localhost` and names under it (RFC 6761: always this machine), and loopback addresses.
    static func isLoopback(name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost") || isLoopback(address: name)
    }

    /// An IPv4 address in 127.0.0.0/8, `::1` (bracketed or not), an IPv4-mapped loopback
    /// address, or `localhost` (what the listen address may say).
    static func isLoopback(address: String) -> Bool {
        SocketAddress(host: address, port: 0)?.isLoopback ?? false
    }

    /// A header value as an error message quotes it: at most 100 characters.
    static func shortened(_ text: String) -> String {
        text.count > 100 ? String(text.prefix(100)) + "…" : text
    }
}

extension CrossOriginPolicy {
    /// `cors.allowOrigins` of the configuration (a row of `ConfigurationSettings`).
    static func readAllowedOrigins(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        configuration.corsAllowOrigins = try strings(value.json, key: name, origin)
    }

    /// `allowedHosts` of the configuration (a row of `ConfigurationSettings`).
    static func readAllowedHosts(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        configuration.allowedHosts = try strings(value.json, key: name, allowedHost)
    }

    /// A JSON array of strings, each checked (and normalised) by `check`, which names what is
    /// wrong with one or returns nil.
    private static func strings(
        _ value: JSONValue, key: String, _ check: (String) -> (String?, reason: String?)
    ) throws(ConfigurationError) -> [String] {
        guard case .array(let items) = value else {
            throw ConfigurationError(key: key, reason: "must be an array of strings, not \(value.typeName)")
        }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw ConfigurationError(key: "\(key)[\(index)]", reason: "must be a string, not \(item.typeName)")
            }
            let (normalised, reason) = check(text)
            guard let normalised else { throw ConfigurationError(key: "\(key)[\(index)]", reason: reason ?? "") }
            if !result.contains(normalised) { result.append(normalised) }
        }
        return result
    }

    /// `*`, or an origin as browsers send it: `scheme://host` with an optional port, no path.
    private static func origin(_ text: String) -> (String?, reason: String?) {
        let origin = text.lowercased()
        if origin == "*" { return ("*", nil) }
        if origin == "null" {
            return (nil, "null is the origin of sandboxed pages and local files: any page can send it")
        }
        let shape = "must be * or an origin such as https://dashboard.example:8443 (scheme, host, port; no path)"
        guard let separator = origin.firstRange(of: "://") else { return (nil, shape) }
        let scheme = origin[..<separator.lowerBound]
        let authority = origin[separator.upperBound...]
        guard let first = scheme.utf8.first, (0x61...0x7A).contains(first),
            scheme.utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: "+") }),
            !authority.isEmpty, hostName(String(authority)) != nil,
            authority.utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ":") || $0 == 0x5B || $0 == 0x5D })
        else { return (nil, shape) }
        return (origin, nil)
    }

    /// A host name without a port (`.example.com`: the name and every name under it).
    private static func allowedHost(_ text: String) -> (String?, reason: String?) {
        var name = Substring(text.lowercased())
        if name.hasPrefix("[") && name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        guard !name.isEmpty, name != ".", name.utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ":") }),
            !name.contains(":") || isLoopback(address: String(name)) || inet6(String(name))
        else { return (nil, "must be a host name (no port, no scheme), such as overlay.lan or .lan") }
        return (String(name), nil)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    private static func inet6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
