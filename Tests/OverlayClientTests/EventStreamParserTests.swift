import Testing

@testable import OverlayClientCore

/// The event-stream format as the parser reads it, whole and in pieces of every size.
@Suite("Event stream parser")
struct EventStreamParserTests {
    /// Feeds `text` in pieces of `size` bytes and answers the events and the parser.
    static func parse(_ text: String, size: Int = .max) throws -> ([ServerSentEvent], EventStreamParser) {
        let bytes = Array(text.utf8)
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        var index = 0
        while index < bytes.count {
            let end = index + min(size, bytes.count - index)
            events += try parser.feed(bytes[index..<end])
            index = end
        }
        return (events, parser)
    }

    /// What overlayd sends: `retry:`, then `event: overlay`, `id:`, `data:`, and heartbeats.
    @Test func overlaydStream() async throws {
        let stream =
            "retry: 1000\n\nevent: overlay\nid: 7\ndata: {\"version\":7}\n\n: heartbeat\n\n"
            + "event: overlay\nid: 8\ndata: {\"version\":8}\n\n"
        let (events, parser) = try Self.parse(stream)
        #expect(
            events == [
                ServerSentEvent(type: "overlay", data: "{\"version\":7}", lastEventID: "7"),
                ServerSentEvent(type: "overlay", data: "{\"version\":8}", lastEventID: "8"),
            ])
        #expect(parser.retry == 1000)
        #expect(parser.lastEventID == "8")
        #expect(parser.bytesReceived == stream.utf8.count)
    }

    /// Cut anywhere, and with any line ending, the same stream gives the same events.
    @Test(arguments: ["\n", "\r", "\r\n"])
    func everySplit(newline: String) async throws {
        let stream = [
            "\u{FEFF}retry: 250", "", ": comment", "event: overlay", "id: 1", "data: first", "data:  second", "",
            "data", "", "id: 2", "data:x", "", "",
        ].joined(separator: newline)
        let (whole, _) = try Self.parse(stream)
        #expect(
            whole == [
                ServerSentEvent(type: "overlay", data: "first\n second", lastEventID: "1"),
                ServerSentEvent(type: "message", data: "", lastEventID: "1"),
                ServerSentEvent(type: "message", data: "x", lastEventID: "2"),
            ])
        for size in 1...9 {
            let (pieces, parser) = try Self.parse(stream, size: size)
            #expect(pieces == whole, "pieces of \(size)")
            #expect(parser.retry == 250)
        }
    }

    /// A CR at the end of one piece and an LF at the start of the next are one line end, not two.
    @Test func carriageReturnAcrossPieces() async throws {
        var parser = EventStreamParser()
        #expect(try parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(try parser.feed(Array("\ndata: b\r".utf8)).isEmpty)
        #expect(try parser.feed(Array("\n\r\n".utf8)) == [ServerSentEvent(type: "message", data: "a\nb")])
    }

    /// No data, no event: a blank line after only `event:` or `id:` dispatches nothing.
    @Test func noDataNoEvent() async throws {
        let (events, parser) = try Self.parse("event: overlay\n\nid: 5\n\n")
        #expect(events.isEmpty)
        #expect(parser.lastEventID == "5")
    }

    /// An event cut off before its blank line is not dispatched.
    @Test func unfinishedEvent() async throws {
        let (events, _) = try Self.parse("event: overlay\ndata: {\"version\":9}\n")
        #expect(events.isEmpty)
    }

    /// `retry:` that is not all digits is ignored; an `id` with NUL is ignored; unknown fields too.
    @Test func ignoredFields() async throws {
        let (events, parser) = try Self.parse("retry: 1s\nretry: -5\nid: a\0b\nfoo: bar\ndata: d\n\n")
        #expect(parser.retry == nil)
        #expect(parser.lastEventID == nil)
        #expect(events == [ServerSentEvent(type: "message", data: "d")])
    }

    /// A byte-order mark only counts at the very start; elsewhere it is data.
    @Test func byteOrderMark() async throws {
        let (events, _) = try Self.parse("data: \u{FEFF}x\n\n")
        #expect(events.first?.data == "\u{FEFF}x")
        // Two bytes of a mark and then other bytes: all of them are the first line's.
        var parser = EventStreamParser()
        #expect(try parser.feed([0xEF, 0xBB] + Array("data: y\n\n".utf8)).isEmpty)
        #expect(try parser.feed(Array("data: z\n\n".utf8)).first?.data == "z")
    }

    /// A line without end beyond the limit is an error, not memory without bound.
    @Test func lineTooLong() async throws {
        var parser = EventStreamParser()
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 16)
        #expect(throws: EventStreamParser.LineTooLong.self) {
            for _ in 0...(EventStreamParser.maximumLineBytes >> 16) { _ = try parser.feed(piece) }
        }
    }
}
