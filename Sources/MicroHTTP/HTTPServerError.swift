/// Why a server could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    case invalidHost(String)
    case invalidPort(Int)
    case cannotStart(host: String, port: Int)

    public var description: String {
        switch self {
        case .invalidHost(let host): "not an IPv4 or IPv6 address: \(host)"
        case .invalidPort(let port): "not a port number: \(port)"
        case .cannotStart(let host, let port): "cannot listen on \(host):\(port) (in use, or not allowed)"
        }
    }
}
