import OverlayService
import TestSupport

extension ServiceConfiguration {
    /// The one configuration every in-process test server starts from: a free port, no access
    /// log, nothing on disk, no rate limit, and the manual clock unless told.
    public static func testing(clock: ClockMode = .manual) -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.clock = clock
        configuration.accessLog = .off
        configuration.ephemeral = true
        configuration.writesPerSecond = 0
        // Raw-socket tests name the host `x`; the DNS-rebinding check would refuse it.
        configuration.allowedHosts = ["x"]
        return configuration
    }

    /// Keeps the state in `directory`, so that a server started on it again finds it there.
    public mutating func store(in directory: TemporaryDirectory) {
        ephemeral = false
        dataDirectory = directory.path
    }
}
