import Foundation
import OverlayClient
import TestSupport
import Testing

/// The presentations of today against the server: a bounce into a pill under the island with a
/// subtitle and an icon, then a full-width bar sliding out, interpolated by the client from one
/// snapshot each and compared with `GET /overlay` at 40 instants of each.
@Suite("Interpolation against the server, presentations")
struct PresentationCrossCheckTests {
    @Test func bounceIntoAPillThenSlideOutOfAFullWidthBar() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/overlayd.json"
        try Data(#"{"showStyle": "bounce", "device": "iphone-15-pro"}"#.utf8).write(to: URL(fileURLWithPath: config))
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral", "--config", config])
        let client = OverlayClient(url: server.url)

        let posted = try await client.post(
            "Downloading", kind: .progress, subtitle: "photos.zip", icon: "⬇️", progress: 0.4)
        #expect(posted.subtitle == "photos.zip")
        #expect(posted.icon == "⬇️")
        let bounce = try await client.overlay()
        #expect(bounce.presentation == .pill)
        #expect(bounce.animation?.curve == .easeOutBounce)
        #expect(bounce.animation?.duration == 0.75)
        // Hw = 59 + 0 + 50 on the island iPhone: the content starts 109 above its place.
        #expect(bounce.animation?.from == -109)
        #expect(bounce.frame == Rect(x: 0, y: 0, width: 393, height: 109))
        #expect(bounce.pill?.cornerRadius == 25)
        #expect(bounce.accessory?.kind == .icon)
        #expect(bounce.subtitle?.text == "photos.zip")
        #expect((bounce.label?.textWidth ?? 0) > 0)
        var compared = try await crossCheck(bounce, client: client, seed: 5)

        _ = try await client.setClock(to: 1)
        let wide = try await client.presentation("fullWidth")
        #expect(wide.presentation == .fullWidth)
        #expect(wide.frame.height == 59 + 38.66)
        let held = try await client.hold()
        #expect(held.touch?.heldSince == 1)
        let dismissed = try await client.dismiss()
        #expect(dismissed.state == .dismissed)
        let hiding = try await client.overlay()
        #expect(hiding.phase == .hiding)
        #expect(hiding.touch == held.touch)
        compared += try await crossCheck(hiding, client: client, seed: 6)
        #expect(compared == 80)
        _ = try await client.setClock(to: 2)
        #expect(try await client.overlay().touch == nil)
    }
}
