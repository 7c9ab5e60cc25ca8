/// What the server records of one finished request, for the access log and metrics.
public struct AccessRecord: Sendable {
    public var method: String
    public var path: String
    /// 0 when the connection ended before a response was sent.
    public var status: Int
    /// The length of the response body.
    public var bytes: Int
    public var microseconds: Int64
    public var remoteAddress: String
    /// Who made the request (`anonymous`, a token's id, `token`, `jwt:<sub>`); empty when no
    /// handler named one (a request refused before routing).
    public var principal: String = ""
}
