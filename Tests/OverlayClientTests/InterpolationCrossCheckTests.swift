import Foundation
import OverlayClient
import TestSupport
import Testing

/// `Overlay.at(_:)` against the server itself: the snapshot taken as an animation starts,
/// interpolated to an instant, equals `GET /overlay` once the manual clock is moved there, at 200
/// instants through a slide-in, a rotation (fade out, fade in), a hide and an eased fade-in, and
/// through rises in two presentations.
@Suite("Interpolation against the server")
struct InterpolationCrossCheckTests {
    /// Slide-in, rotation out and in, hide: a message with a progress bar on the default server.
    @Test func slideRotationHide() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let client = OverlayClient(url: server.url)
        var compared = 0

        _ = try await client.post("Uploading", kind: .info, progress: 0.4, duration: 1)
        let slideIn = try await client.overlay()
        #expect(slideIn.phase == .showing)
        #expect(slideIn.progressBar != nil)
        compared += try await crossCheck(slideIn, client: client, seed: 1)

        _ = try await client.setClock(to: 0.3)
        let rotatingOut = try await client.orientation(.landscapeLeft)
        #expect(rotatingOut.phase == .rotatingOut)
        #expect(rotatingOut.animation?.property == .alpha)
        compared += try await crossCheck(rotatingOut, client: client, seed: 2)

        _ = try await client.setClock(to: 0.7)
        let rotatingIn = try await client.overlay()
        #expect(rotatingIn.phase == .rotatingIn)
        #expect(rotatingIn.orientation == .landscapeLeft)
        compared += try await crossCheck(rotatingIn, client: client, seed: 3)

        _ = try await client.setClock(to: 1.25)
        let hiding = try await client.overlay()
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation == Animation(property: .contentOffset, from: 0, to: -20, start: 1.25, duration: 0.25))
        compared += try await crossCheck(hiding, client: client, seed: 4)
        #expect(compared == 160)
    }

    /// The status bar under the overlay: a slide-out that takes the shown overlay out with it
    /// (held), then a fade-in that brings the held message back at the same moment. Both bars'
    /// values come from the one snapshot.
    @Test func statusBarHideAndShow() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let client = OverlayClient(url: server.url)
        _ = try await client.post("Sending…", kind: .sending, progress: 0.5)
        _ = try await client.setClock(to: 0.5)

        let hiding = try await client.statusBar(hidden: true, animation: .slide)
        #expect(hiding.held == true)
        #expect(hiding.phase == .hiding)
        let bar = try #require(hiding.statusBar)
        #expect(bar.hidden)
        #expect(bar.animation == Animation(property: .offset, from: 0, to: -20, start: 0.5, duration: 0.25))
        var compared = try await crossCheck(hiding, client: client, seed: 6)
        // Past the end: the server's bar has slid out and is hidden, as `at` has it too.
        _ = try await client.setClock(to: 1)
        let slid = try await client.overlay()
        #expect(slid.statusBar?.offset == -20)
        #expect(slid.statusBar?.alpha == 0)
        #expect(slid.statusBar?.animation == nil)
        #expect(hiding.at(1).statusBar?.offset == -20)
        #expect(hiding.at(1).statusBar?.alpha == 0)

        _ = try await client.setClock(to: 2)
        let showing = try await client.statusBar(hidden: false, animation: .fade)
        #expect(showing.held == false)
        #expect(showing.phase == .showing)
        #expect(showing.statusBar?.animation?.property == .alpha)
        compared += try await crossCheck(showing, client: client, seed: 7)
        #expect(compared == 80)
    }

    /// A fade-in on a server configured to fade, with the ease-in-ease-out curve.
    @Test func easedFade() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try directory.write("fade.json", #"{"showStyle": "fade", "curve": "easeInOut"}"#)
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral", "--config", configuration])
        let client = OverlayClient(url: server.url)
        _ = try await client.setClock(to: 3.5)
        _ = try await client.post("Sent", kind: .sent, progress: 1)
        let fadeIn = try await client.overlay()
        #expect(
            fadeIn.animation
                == Animation(property: .alpha, from: 0, to: 1, start: 3.5, duration: 0.25, curve: .easeInOut))
        #expect(try await crossCheck(fadeIn, client: client, seed: 5) == 40)
    }

    /// A rise (`messageChange: rise`): both labels from the one snapshot taken at its start, in
    /// `statusBar` on the iPad (to the last bit) and in `fullWidth` on the iPhone 15 Pro.
    @Test(arguments: [("ipad", "statusBar"), ("iphone-15-pro", "fullWidth")])
    func rise(device: String, presentation: String) async throws {
        let directory = try TemporaryDirectory()
        let configuration = try directory.write(
            "rise.json", #"{"messageChange": "rise", "device": "\#(device)", "presentation": "\#(presentation)"}"#)
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral", "--config", configuration])
        let client = OverlayClient(url: server.url)
        _ = try await client.post("Uploading", kind: .info, duration: 1)
        _ = try await client.post("Uploaded", kind: .sent)
        _ = try await client.setClock(to: 1.25)
        let rising = try await client.overlay()
        #expect(rising.animation?.property == .labelOffset)
        #expect(rising.animation?.curve == .easeInOut)
        #expect(rising.outgoing?.text == "Uploading")
        #expect(rising.label?.text == "Uploaded")
        #expect(try await crossCheck(rising, client: client, seed: 8) == 40)
    }
}
