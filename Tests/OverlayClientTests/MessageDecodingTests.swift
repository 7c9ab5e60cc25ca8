import Foundation
import OverlayClient
import Testing

/// The schedule fields as overlayd writes them, as an older server leaves them out, and the
/// request bodies `post`, `patch` and `messages(_:)` send for them.
@Suite("Message decoding and request bodies")
struct MessageDecodingTests {
    /// A real answer of `POST /messages` on a real-clock server: `{"text": "later", "delay":
    /// "5m", "priority": "high", "expires": 30}`.
    static let scheduled = """
        {"id":1,"kind":"info","text":"later","subtitle":null,"icon":null,"progress":null,"state":"scheduled",\
        "duration":null,"immediate":false,"key":null,"priority":4,"scheduledFor":301.024160348,"expires":30,\
        "expiresAt":null,"postedAt":1.024160348,"shownAt":null,"displayStartedAt":null,"endsAt":null,"endedAt":null}
        """

    static func decode(_ json: String) throws -> Message {
        try JSONDecoder().decode(Message.self, from: Data(json.utf8))
    }

    @Test func scheduledMessage() throws {
        let message = try Self.decode(Self.scheduled)
        #expect(message.state == .scheduled)
        #expect(!message.state.hasEnded)
        #expect(message.priority == .high)
        #expect(message.priority?.rawValue == 4)
        #expect(message.scheduledFor == 301.024160348)
        #expect(message.expires == 30)
        #expect(message.expiresAt == nil)
        let again = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
        #expect(again == message)
    }

    /// An older server's message has none of the fields; a newer one's state decodes as itself.
    @Test func olderAndNewerServers() throws {
        var older = Self.scheduled
        for member in [#""priority":4,"#, #""scheduledFor":301.024160348,"#, #""expires":30,"#, #""expiresAt":null,"#] {
            older = older.replacingOccurrences(of: member, with: "")
        }
        let message = try Self.decode(older.replacingOccurrences(of: "\"scheduled\"", with: "\"queued\""))
        #expect(message.priority == nil && message.scheduledFor == nil && message.expires == nil)
        #expect(message.state == .queued)
        let newer = try Self.decode(Self.scheduled.replacingOccurrences(of: "\"scheduled\"", with: "\"snoozed\""))
        #expect(newer.state == "snoozed")
    }

    /// The reader's fields as overlayd writes them (docs/MODEL.md §14), and the body a post sends
    /// for them; an older server's message has none.
    @Test func readersFields() throws {
        let json = Self.scheduled.replacingOccurrences(
            of: #""state":"scheduled","#,
            with:
                #""state":"scheduled","click":"https://x.example","actions":[{"id":"open","label":"Open","url":"x:y"},"#
                + #"{"id":"later","label":"Later","url":null}],"accessibilityLabel":"Later, maybe","#
                + #""taps":[{"at":1.5,"action":"open"},{"at":2,"action":null}],"#)
        let message = try Self.decode(json)
        #expect(message.click == "https://x.example")
        #expect(
            message.actions == [
                Message.Action(id: "open", label: "Open", url: "x:y"), Message.Action(id: "later", label: "Later"),
            ])
        #expect(message.accessibilityLabel == "Later, maybe")
        #expect(message.taps == [Message.Tap(at: 1.5, action: "open"), Message.Tap(at: 2)])
        let older = try Self.decode(Self.scheduled)
        #expect(older.click == nil && older.actions == nil && older.accessibilityLabel == nil && older.taps == nil)

        let fields = MessageFields(
            text: "t", click: "https://x.example", actions: [Message.Action(id: "a", label: "A")],
            accessibilityLabel: "L")
        let body = try JSONSerialization.jsonObject(with: JSONEncoder().encode(fields)) as? [String: Any]
        #expect(body?["click"] as? String == "https://x.example")
        #expect((body?["actions"] as? [[String: Any]])?.first?["id"] as? String == "a")
        #expect(body?["accessibilityLabel"] as? String == "L")
    }

    /// A priority is a number; a name or a fraction where one belongs fails the decoding.
    @Test(arguments: [#""priority":"high""#, #""priority":4.5"#])
    func priorityIsANumber(_ member: String) throws {
        #expect(throws: DecodingError.self) {
            try Self.decode(Self.scheduled.replacingOccurrences(of: #""priority":4"#, with: member))
        }
    }

    @Test func priorities() {
        #expect([Priority.min, .low, .default, .high, .max].map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(Priority.urgent == .max)
        #expect(Priority.low < .high)
        #expect(Priority(rawValue: 6).description == "6")
    }

    /// What each call sends: waits as seconds, a date as Unix seconds, a priority as its number,
    /// and no member for what was not given.
    @Test func requestBodies() async throws {
        let recorder = RecordingTransport(body: Self.scheduled)
        let client = OverlayClient(url: URL(string: "http://127.0.0.1:9")!) { recorder }
        try await client.post("later", delay: 300, expires: 30.5, priority: .high)
        #expect(try recorder.lastBody() == #"{"delay":300,"expires":30.5,"priority":4,"text":"later"}"#)
        try await client.post("at", at: .date(Date(timeIntervalSince1970: 1_796_000_000.25)), priority: 2)
        #expect(try recorder.lastBody() == #"{"at":1796000000.25,"priority":2,"text":"at"}"#)
        try await client.post("plain")
        #expect(try recorder.lastBody() == #"{"text":"plain"}"#)
        try await client.patch(7, at: .clock(42.5))
        #expect(recorder.requests.last?.method == "PATCH")
        #expect(recorder.requests.last?.url.path == "/messages/7")
        #expect(try recorder.lastBody() == #"{"at":42.5}"#)
        try await client.patch(7, delay: 10, expires: 5, priority: .urgent)
        #expect(try recorder.lastBody() == #"{"delay":10,"expires":5,"priority":5}"#)
    }

    /// `messages(.scheduled)` asks for `state=scheduled`; the live listing leaves `state` out so
    /// that an older server answers it too.
    @Test func listingQueries() async throws {
        let recorder = RecordingTransport(body: #"{"messages": [\#(Self.scheduled)], "next": null}"#)
        let client = OverlayClient(url: URL(string: "http://127.0.0.1:9")!) { recorder }
        #expect(try await client.messages(.scheduled).map(\.state) == [.scheduled])
        #expect(recorder.requests.last?.url.query == "limit=1000&state=scheduled")
        _ = try await client.messages()
        #expect(recorder.requests.last?.url.query == "limit=1000")
    }
}
