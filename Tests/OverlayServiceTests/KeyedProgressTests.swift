import ServiceTestSupport
import TestSupport
import Testing

/// A download's progress, the most common write: a keyed update of the shown message. Its answer,
/// the stored message and what the overlay shows, byte for byte, and the refusals that leave
/// everything as it was (the reading of its fields has a fast path: it must change none of this).
@Suite("Keyed progress")
struct KeyedProgressTests {
    static func body(_ progress: String) -> String {
        #"{"key":"dl-7","kind":"progress","text":"Downloading","progress":\#(progress)}"#
    }

    static func message(_ progress: String) -> String {
        #"{"id":1,"kind":"progress","text":"Downloading","subtitle":null,"icon":null,"progress":\#(progress),"#
            + #""state":"showing","click":null,"actions":[],"accessibilityLabel":null,"taps":[],"duration":null,"immediate":false,"key":"dl-7","priority":3,"scheduledFor":null,"#
            + #""expires":null,"expiresAt":null,"postedAt":0,"shownAt":0,"displayStartedAt":null,"endsAt":null,"#
            + #""endedAt":null}"#
    }

    @Test func updatesAnswerAndStoreTheMessage() throws {
        try withLiveServer { live in
            let first = try live.post("/messages", json: Self.body("0.5"))
            #expect(first.status == 202)
            #expect(first.text == Self.message("0.5"))
            #expect(first.header("Location") == "/messages/1")
            for progress in ["0.25", "0.4242", "0.0001", "0", "0.9999"] {
                let update = try live.post("/messages", json: Self.body(progress))
                #expect(update.status == 200)
                #expect(update.text == Self.message(progress))
                #expect(update.header("Location") == "/messages/1")
                #expect(try live.get("/messages/1").text == Self.message(progress))
                #expect(try live.overlay()["progressBar"]?["progress"]?.number == Double(progress))
            }
            // The same progress again changes nothing, not even the version.
            let version = try live.version()
            #expect(try live.post("/messages", json: Self.body("0.9999")).text == Self.message("0.9999"))
            #expect(try live.version() == version)
        }
    }

    @Test func refusalsNameTheFieldAndChangeNothing() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: Self.body("0.5")).status == 202)
            let before = try live.observableState()
            let refused = [
                (#"{"key":"dl-7","progress":1.5}"#, 422, "invalid_field", "progress"),
                (#"{"key":"dl-7","progress":"x"}"#, 400, "bad_request", "progress"),
                (#"{"key":"dl-7","progess":0.5}"#, 400, "bad_request", "progess"),
                (#"{"key":"dl-7","progress":0.5,"progress":0.6}"#, 400, "invalid_json", nil),
                (#"{"key":"dl-7","kind":"nope","progress":0.5}"#, 422, "invalid_field", "kind"),
            ]
            for (body, status, code, field) in refused {
                expectError(try live.post("/messages", json: body), status: status, code: code, field: field)
            }
            try live.expectUnchanged(since: before)
            #expect(try live.get("/messages/1").text == Self.message("0.5"))
        }
    }
}
