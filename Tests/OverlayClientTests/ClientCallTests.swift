import Foundation
import OverlayClient
import TestSupport
import Testing

/// Every call of `OverlayClient` against a real manual-clock overlayd, with what it answers and
/// the errors it reports, through each transport.
@Suite("OverlayClient calls")
struct ClientCallTests {
    let server: ServerProcess

    init() async throws {
        server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
    }

    /// A post is queued and shown at once on a hidden overlay; the overlay shows its text.
    @Test(arguments: Network.allCases) func postShowsTheMessage(network: Network) async throws {
        let client = network.client(server.url)
        let message = try await client.post("Sending photo…", kind: .sending)
        #expect(message.id >= 1)
        #expect(message.kind == .sending)
        #expect(message.text == "Sending photo…")
        #expect(message.state == .showing)
        #expect(message.postedAt == 0)
        let overlay = try await client.overlay()
        #expect(overlay.phase == .showing)
        #expect(overlay.message?.id == message.id)
        #expect(overlay.label?.text == "Sending photo…")
        #expect(overlay.activity)
        #expect(overlay.style == Overlay.Style(background: "#1C1C1E", foreground: "#FFFFFF"))
        #expect(overlay.animation == Animation(property: .contentOffset, from: -20, to: 0, start: 0, duration: 0.25))
    }

    /// Every field of a post reaches the server; a second post with the same key updates it.
    @Test(arguments: Network.allCases) func postWithEveryFieldThenUpdateByKey(network: Network) async throws {
        let client = network.client(server.url)
        let first = try await client.post(
            "Downloading…", kind: .progress, progress: 0.25, duration: 9, immediate: true, key: "dl-7")
        #expect(first.kind == .progress)
        #expect(first.progress == 0.25)
        #expect(first.duration == 9)
        #expect(first.immediate == true)
        #expect(first.key == "dl-7")
        let updated = try await client.post(nil, progress: 0.5, key: "dl-7")
        #expect(updated.id == first.id)
        #expect(updated.progress == 0.5)
        #expect(updated.text == "Downloading…")
        let bar = try #require(try await client.overlay().progressBar)
        #expect(bar.progress == 0.5)
        #expect(bar.frame.width == 384)
        #expect(bar.position == .bottom)
    }

    /// The reader's side (docs/MODEL.md §14): a post with a click, actions and an accessibility
    /// label; taps on an action and on the overlay come back with the message; the overlay's
    /// announcement and its version; an unknown action is refused naming `action`.
    @Test(arguments: Network.allCases) func clickActionsAndTaps(network: Network) async throws {
        let client = network.client(server.url)
        let actions = [
            Message.Action(id: "retry", label: "Retry", url: "https://ci.example/42/retry"),
            Message.Action(id: "mute", label: "Mute"),
        ]
        let posted = try await client.post(
            "Build 42 failed", kind: .failed, click: "https://ci.example/42", actions: actions,
            accessibilityLabel: "Build forty-two failed")
        #expect(posted.click == "https://ci.example/42")
        #expect(posted.actions == actions)
        #expect(posted.accessibilityLabel == "Build forty-two failed")
        #expect(posted.taps == [])
        let overlay = try await client.overlay()
        #expect(overlay.announcement == "Build forty-two failed")
        #expect(overlay.announcementVersion == overlay.version)
        #expect(try await client.tap(action: "retry").taps == [Message.Tap(at: 0, action: "retry")])
        let both = try await client.tap()
        #expect(both.taps == [Message.Tap(at: 0, action: "retry"), Message.Tap(at: 0)])
        #expect(try await client.overlay().announcementVersion == overlay.version)
        await #expect {
            try await client.tap(action: "nope")
        } throws: { error in
            guard case .refused(let refusal) = error as? OverlayClientError else { return false }
            return refusal.status == 422 && refusal.field == "action"
        }
        let patched = try await client.patch(posted.id, actions: [Message.Action(id: "ok", label: "OK")])
        #expect(patched.actions == [Message.Action(id: "ok", label: "OK")])
        #expect(patched.click == "https://ci.example/42")
    }

    /// PATCH changes the fields it names; GET /messages/{id} and /messages read them back.
    @Test(arguments: Network.allCases) func patchAndRead(network: Network) async throws {
        let client = network.client(server.url)
        let shown = try await client.post("one")
        let queued = try await client.post("two")
        let patched = try await client.patch(queued.id, kind: .failed, text: "two, failed", progress: 0.75, duration: 4)
        #expect(patched.kind == .failed)
        #expect(patched.text == "two, failed")
        #expect(patched.progress == 0.75)
        #expect(patched.duration == 4)
        #expect(patched.state == .queued)
        #expect(try await client.message(queued.id) == patched)
        let list = try await client.messages()
        #expect(list.map(\.id) == [shown.id, queued.id])
        #expect(list[1] == patched)
    }

    /// `messages()` reads every page of `GET /messages` (the server sends at most 1,000 a page):
    /// 1,201 live messages come back whole and in order.
    @Test func messagesReadsEveryPage() async throws {
        let directory = try TemporaryDirectory()
        // Past the write rate's burst of 200: the limit is turned off for this server.
        let config = try directory.write("config.json", #"{"limits": {"writesPerSecond": 0}}"#)
        let big = try await ServerProcess.start(
            ["--config", config, "--clock", "manual", "--ephemeral", "--max-queue", "1500"])
        let client = OverlayClient(url: big.url, channel: "long")
        var posted: [Int] = []
        for index in 0..<1201 { posted.append(try await client.post("message \(index)").id) }
        let list = try await client.messages()
        #expect(list.count == 1201)
        #expect(list.map(\.id) == posted)
    }

    /// DELETE cancels a queued message; a PATCH of it afterwards is refused with 409.
    @Test(arguments: Network.allCases) func deleteThenPatchIsRefused(network: Network) async throws {
        let client = network.client(server.url)
        _ = try await client.post("shown")
        let queued = try await client.post("queued")
        let deleted = try await client.delete(queued.id)
        #expect(deleted.state == .cancelled)
        #expect(deleted.endedAt == 0)
        let error = await #expect(throws: OverlayClientError.self) {
            try await client.patch(queued.id, text: "too late")
        }
        guard case .refused(let refusal)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        #expect(refusal.status == 409)
        #expect(refusal.code == "message_ended")
        #expect(!refusal.message.isEmpty)
    }

    /// A field out of range is 422 with the server's code, message and field.
    @Test(arguments: Network.allCases) func invalidFieldCarriesTheField(network: Network) async throws {
        let client = network.client(server.url)
        let error = await #expect(throws: OverlayClientError.self) {
            try await client.post("bad", progress: 1.5)
        }
        #expect(error?.status == 422)
        #expect(error?.code == "invalid_field")
        guard case .refused(let refusal)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        #expect(refusal.field == "progress")
        #expect(refusal.message.contains("progress"))
        #expect(try await client.messages().isEmpty)
    }

    /// An unknown id is 404 `not_found`.
    @Test(arguments: Network.allCases) func unknownMessageIsNotFound(network: Network) async throws {
        let client = network.client(server.url)
        let error = await #expect(throws: OverlayClientError.self) { try await client.message(987_654) }
        #expect(error?.status == 404)
        #expect(error?.code == "not_found")
    }

    /// Orientation and device changes answer the overlay with the new frame.
    @Test(arguments: Network.allCases) func orientationAndDevice(network: Network) async throws {
        let client = network.client(server.url)
        let rotated = try await client.orientation(.landscapeRight)
        #expect(rotated.orientation == .landscapeRight)
        #expect(rotated.rotation == 90)
        #expect(rotated.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        let phone = try await client.device("iphone")
        #expect(phone.device == "iphone")
        #expect(phone.frame == Rect(x: 300, y: 0, width: 20, height: 480))
        let error = await #expect(throws: OverlayClientError.self) { try await client.orientation("sideways") }
        #expect(error?.status == 422)
        #expect(error?.code == "invalid_field")
    }

    /// The status bar: the server's bar decodes, a hidden one holds a new message back, and a
    /// style it does not know is refused naming the field.
    @Test(arguments: Network.allCases) func statusBar(network: Network) async throws {
        let client = network.client(server.url)
        let start = try await client.overlay()
        #expect(start.statusBar?.style == .lightContent)
        #expect(start.statusBar?.hidden == false)
        #expect(start.held == false)
        let hidden = try await client.statusBar(hidden: true, animation: StatusBar.UpdateAnimation.none)
        #expect(hidden.statusBar?.hidden == true)
        #expect(hidden.statusBar?.alpha == 0)
        _ = try await client.post("Held back")
        let held = try await client.overlay()
        #expect(held.held == true)
        #expect(held.phase == .hidden)
        #expect(held.queued == 1)
        let error = await #expect(throws: OverlayClientError.self) { try await client.statusBar(style: "purple") }
        #expect(error?.status == 422)
        guard case .refused(let refusal)? = error else { return }
        #expect(refusal.field == "style")
    }

    /// The manual clock moves by `advanceClock` and `setClock`, and reaches deadlines on the way.
    @Test(arguments: Network.allCases) func manualClock(network: Network) async throws {
        let client = network.client(server.url)
        _ = try await client.post("Sent", kind: .sent)
        #expect(try await client.clock() == 0)
        #expect(try await client.advanceClock(by: 0.125) == 0.125)
        #expect(try await client.overlay().contentOffset == -10)
        #expect(try await client.setClock(to: 0.25) == 0.25)
        #expect(try await client.overlay().phase == .visible)
        let backwards = await #expect(throws: OverlayClientError.self) { try await client.setClock(to: 0.1) }
        #expect(backwards?.status == 422)
    }

    /// A channel's calls go to that channel only.
    @Test(arguments: Network.allCases) func channel(network: Network) async throws {
        let client = network.client(server.url)
        let ci = network.client(server.url, channel: "ci")
        _ = try await ci.post("Build passed", kind: .sent)
        #expect(try await ci.overlay().label?.text == "Build passed")
        #expect(try await client.overlay().message == nil)
        #expect(try await ci.messages().count == 1)
        // A name the server does not take is escaped and refused, never sent somewhere else: 400,
        // or 404 where an escaped slash makes another path; `..` is no name even then.
        for (name, status) in [("no spaces", 400), ("café", 400), ("a/b", 404), ("../messages", 400)] {
            let bad = network.client(server.url, channel: name)
            let error = await #expect(throws: OverlayClientError.self, "\(name)") { try await bad.overlay() }
            #expect(error?.status == status, "\(name): \(String(describing: error))")
        }
    }

    /// A base URL with a trailing slash names the same server.
    @Test(arguments: Network.allCases) func trailingSlash(network: Network) async throws {
        let slashed = network.client(URL(string: server.url.absoluteString + "/")!)
        #expect(try await slashed.overlay().version == 0)
    }

    /// Nothing listening: `unreachable`, not a refusal.
    @Test(arguments: Network.allCases) func unreachable(network: Network) async throws {
        let port = server.port
        await server.stop()
        let gone = network.client(URL(string: "http://127.0.0.1:\(port)")!)
        let error = await #expect(throws: OverlayClientError.self) { try await gone.overlay() }
        guard case .unreachable(let reason)? = error else {
            Issue.record("not unreachable: \(String(describing: error))")
            return
        }
        #expect(reason == "connection refused")
    }
}

/// Tokens: writes need one when the server is given one, and the client sends it.
@Suite("OverlayClient tokens")
struct ClientTokenTests {
    @Test(arguments: Network.allCases)
    func tokenIsSentAndItsAbsenceRefused(network: Network) async throws {
        let server = try await ServerProcess.start(
            ["--clock", "manual", "--ephemeral"], environment: ["OVERLAYD_TOKEN": "s3cret-token"])
        let anonymous = network.client(server.url)
        let error = await #expect(throws: OverlayClientError.self) { try await anonymous.post("hi") }
        #expect(error?.status == 401)
        #expect(error?.code == "unauthorized")
        let wrong = network.client(server.url, token: "wrong-token")
        #expect(await (try? wrong.post("hi")) == nil)
        let authorised = network.client(server.url, token: "s3cret-token")
        #expect(try await authorised.post("hi").text == "hi")
    }
}
