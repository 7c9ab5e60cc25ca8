/// What a handler tells the server to count and log its request under, returned when it returns:
/// the route's place in `RequestDurations.routes` (0: none) and who made the request, as the
/// access log names it (an id, never a secret). A value handed back, so that the application
/// never calls into the server to label its metrics.
public struct RequestLabels: Sendable, Equatable {
    public var route: Int
    public var principal: String

    public init(route: Int = 0, principal: String = "") {
        self.route = route
        self.principal = principal
    }
}
