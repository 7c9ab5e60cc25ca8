import MicroHTTP
import Testing

@testable import OverlayService

/// A service called directly and let go is freed, with everything it made: nothing its timer
/// thread runs holds it (the leak checker of `scripts/sanitize address` found every direct test's
/// service alive at exit, its heartbeat holding it).
@Suite("Service lifetime")
struct ServiceLifetimeTests {
    @Test func aServiceLetGoIsFreedWithItsChannels() throws {
        weak var released: OverlayService?
        weak var channel: Channel?
        do {
            let service = try OverlayService.testing()
            #expect(service.answer(HTTPRequest("POST", "/messages", body: #"{"text": "hi"}"#)).status == 202)
            // A reader still reading when the service is let go: the service ends it, so that its
            // stream and the registry listing it let go of each other.
            #expect(service.answer(HTTPRequest("GET", "/events")).status == 200)
            released = service
            channel = service.channels.existing("default")
        }
        #expect(released == nil)
        #expect(channel == nil)
    }
}
