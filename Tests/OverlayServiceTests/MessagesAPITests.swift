import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `/messages` through real HTTP on loopback (MODEL §2, §5), with the manual clock so that every
/// number is exact.
@Suite("Messages API")
struct MessagesAPITests {
    static let messageKeys = [
        "id", "kind", "text", "subtitle", "icon", "progress", "state", "click", "actions", "accessibilityLabel", "taps",
        "duration", "immediate", "key", "priority", "scheduledFor", "expires", "expiresAt", "postedAt", "shownAt",
        "displayStartedAt", "endsAt", "endedAt",
    ]

    /// A JSON POST answers 202 with the message as stored (text trimmed), `Location`, and JSON.
    @Test func postJSON() throws {
        try withLiveServer { live in
            let posted = try live.post(
                "/messages", json: #"{"kind": "sent", "text": "  Upload done \n", "duration": 1.5, "progress": 0.25}"#)
            #expect(posted.status == 202)
            #expect(posted.header("Location") == "/messages/1")
            #expect(posted.header("Content-Type") == "application/json; charset=utf-8")
            #expect(orderedKeys(posted.body) == Self.messageKeys)
            let message = posted.json
            #expect(message["id"]?.int == 1)
            #expect(message["kind"]?.string == "sent")
            #expect(message["text"]?.string == "Upload done")
            #expect(message["progress"]?.number == 0.25)
            #expect(message["state"]?.string == "showing")
            #expect(message["duration"]?.number == 1.5)
            #expect(message["immediate"]?.bool == false)
            #expect(message["key"]?.isNull == true)
            #expect(message["postedAt"]?.number == 0)
            #expect(message["shownAt"]?.number == 0)
            #expect(message["displayStartedAt"]?.isNull == true)
            #expect(message["endsAt"]?.isNull == true)
            #expect(message["endedAt"]?.isNull == true)

            let second = try live.post("/messages", json: #"{"text": "next"}"#)
            #expect(second.status == 202)
            #expect(second.header("Location") == "/messages/2")
            #expect(second.json["state"]?.string == "queued")
            #expect(second.json["kind"]?.string == "info")
            #expect(second.json["shownAt"]?.isNull == true)
        }
    }

    /// A plain-text body is the text, verbatim apart from trimming; the other fields come from the
    /// query, converted from text.
    @Test func postPlainTextWithQueryParameters() throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages?kind=progress&progress=0.5&duration=10&key=upload%2042",
                headers: [("Content-Type", "text/plain; charset=utf-8")], body: "Downloading \"a=b&c\" 50 %\n")
            #expect(posted.status == 202)
            #expect(posted.json["kind"]?.string == "progress")
            #expect(posted.json["text"]?.string == "Downloading \"a=b&c\" 50 %")
            #expect(posted.json["progress"]?.number == 0.5)
            #expect(posted.json["duration"]?.number == 10)
            #expect(posted.json["key"]?.string == "upload 42")
            #expect(posted.json["immediate"]?.bool == false)

            // `immediate` alone in the query means true: it replaces the shown message at once.
            let immediate = try live.request(
                "POST", "/messages?immediate&kind=failed", headers: [("Content-Type", "text/plain")], body: "Failed")
            #expect(immediate.status == 202)
            #expect(immediate.json["immediate"]?.bool == true)
            #expect(immediate.json["state"]?.string == "showing")
            #expect(immediate.json["kind"]?.string == "failed")
            let overlay = try live.overlay()
            #expect(overlay["message"]?["id"]?.int == 2)
            // The replaced message has a duration, so it is not sticky: it ends preempted.
            #expect(overlay["queued"]?.int == 0)
            #expect(try live.get("/messages/1").json["state"]?.string == "preempted")

            let explicit = try live.request(
                "POST", "/messages?immediate=false", headers: [("Content-Type", "text/plain")], body: "later")
            #expect(explicit.json["immediate"]?.bool == false)
            #expect(explicit.json["state"]?.string == "queued")
        }
    }

    /// What `curl -d 'text' host/messages?kind=sent` sends: the form content type, body verbatim.
    @Test func postCurlForm() throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages?kind=sent", headers: [FormBody.urlEncoded],
                body: "text=Upload+done&x=%41")
            #expect(posted.status == 202)
            #expect(posted.json["text"]?.string == "text=Upload+done&x=%41")
            #expect(posted.json["kind"]?.string == "sent")
            #expect(try live.get("/messages/1").json["text"]?.string == "text=Upload+done&x=%41")
        }
    }

    /// Without a content type the body is text, unless its first non-blank character is `{`.
    @Test func postWithoutContentType() throws {
        try withLiveServer { live in
            let text = try live.request("POST", "/messages", body: "hello")
            #expect(text.status == 202)
            #expect(text.json["text"]?.string == "hello")

            let json = try live.request(
                "POST", "/messages", body: "\n  {\"text\": \"from json\", \"kind\": \"failed\"}")
            #expect(json.status == 202)
            #expect(json.json["text"]?.string == "from json")
            #expect(json.json["kind"]?.string == "failed")

            // The same rule for the form type: a `{` body is JSON, and must then be valid JSON.
            let form = FormBody.urlEncoded
            let braces = try live.request("POST", "/messages", headers: [form], body: "{oops")
            expectError(braces, status: 400, code: "invalid_json")
            // A body that merely contains braces later is text.
            let later = try live.request("POST", "/messages", headers: [("Content-Type", "text/plain")], body: "a {b}")
            #expect(later.json["text"]?.string == "a {b}")
        }
    }

    /// The query may carry fields next to a JSON body, and `+json` types are JSON.
    @Test func postJSONWithQueryFields() throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages?kind=sent&duration=4", headers: [("Content-Type", "application/vnd.test+json")],
                body: #"{"text": "mixed"}"#)
            #expect(posted.status == 202)
            #expect(posted.json["kind"]?.string == "sent")
            #expect(posted.json["duration"]?.number == 4)
            #expect(posted.json["text"]?.string == "mixed")
        }
    }

    /// The text may also come from the query, and white space around query numbers is allowed.
    @Test func postTextInQuery() throws {
        try withLiveServer { live in
            let posted = try live.request("POST", "/messages?text=Hi%20there&progress=%201%20")
            #expect(posted.status == 202)
            #expect(posted.json["text"]?.string == "Hi there")
            #expect(posted.json["progress"]?.number == 1)
        }
    }

    /// A POST whose key matches a live message updates it in place: 200, same id, no new message.
    @Test func postWithKnownKeyUpdates() throws {
        try withLiveServer { live in
            let first = try live.post(
                "/messages", json: #"{"text": "Sending…", "kind": "sending", "key": "upload-42"}"#)
            #expect(first.status == 202)
            #expect(first.json["id"]?.int == 1)
            let other = try live.post("/messages", json: #"{"text": "other", "key": "upload-43"}"#)
            #expect(other.status == 202)
            let versionBefore = try live.overlay()["version"]?.int

            let progress = try live.request(
                "POST", "/messages?key=upload-42&progress=0.5", headers: [("Content-Type", "text/plain")],
                body: "Uploading"
            )
            #expect(progress.status == 200)
            #expect(progress.header("Location") == "/messages/1")
            #expect(progress.json["id"]?.int == 1)
            #expect(progress.json["text"]?.string == "Uploading")
            #expect(progress.json["progress"]?.number == 0.5)
            #expect(progress.json["kind"]?.string == "sending")
            #expect(try live.overlay()["version"]?.int == versionBefore.map { $0 + 1 })

            // Only the fields carried change; text may be left out; `immediate` is ignored.
            let sent = try live.post("/messages", json: #"{"key": "upload-42", "kind": "sent", "immediate": true}"#)
            #expect(sent.status == 200)
            #expect(sent.json["kind"]?.string == "sent")
            #expect(sent.json["text"]?.string == "Uploading")
            #expect(sent.json["immediate"]?.bool == false)

            // A retried POST does not queue a duplicate.
            let retry = try live.post("/messages", json: #"{"key": "upload-42", "kind": "sent", "text": "Uploading"}"#)
            #expect(retry.status == 200)
            let list = try live.get("/messages").json["messages"]?.array ?? []
            #expect(list.map { $0["id"]?.int } == [1, 2])
            #expect(try live.overlay()["message"]?["id"]?.int == 1)
        }
    }

    /// A key whose message has ended starts a new message.
    @Test func postWithEndedKeyStartsNewMessage() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "a", "key": "k"}"#).status == 202)
            #expect(try live.request("DELETE", "/messages/1").status == 200)
            let again = try live.post("/messages", json: #"{"text": "b", "key": "k"}"#)
            #expect(again.status == 202)
            #expect(again.json["id"]?.int == 2)
            #expect(again.header("Location") == "/messages/2")
        }
    }

    /// GET /messages pages: `limit` (default 100, at most 1000) messages at a time, `next` the
    /// cursor for `after` until the last page, whose `next` is null; a cursor that is no longer a
    /// live message is 409 `cursor_expired`; malformed or out-of-range values change nothing.
    @Test func listMessagesInPages() throws {
        try withLiveServer { live in
            for index in 1...205 {
                #expect(try live.request("POST", "/channels/paged/messages", body: "m\(index)").status == 202)
            }
            func page(_ query: String) throws -> (ids: [Int], next: Int?) {
                let json = try live.get("/channels/paged/messages\(query)").json
                return (json["messages"]?.array?.compactMap { $0["id"]?.int } ?? [], json["next"]?.int)
            }
            let first = try page("")
            #expect(first.ids == Array(1...100) && first.next == 100)
            let second = try page("?after=100")
            #expect(second.ids == Array(101...200) && second.next == 200)
            let last = try page("?after=200")
            #expect(last.ids == Array(201...205) && last.next == nil)
            #expect(try page("?limit=3").ids == [1, 2, 3])
            #expect(try page("?limit=3&after=1").ids == [2, 3, 4], "after the shown message come the queued ones")
            #expect(try page("?limit=1000").ids == Array(1...205))
            #expect(try live.get("/channels/paged/messages?limit=3&after=3").json["next"]?.int == 6)
            // The cursor's message deleted: the reader starts again.
            #expect(try live.request("DELETE", "/channels/paged/messages/150").status == 200)
            expectError(
                try live.get("/channels/paged/messages?after=150"), status: 409, code: "cursor_expired", field: "after")
            expectError(
                try live.get("/channels/paged/messages?after=9999"), status: 409, code: "cursor_expired", field: "after"
            )
            for bad in ["limit=0", "limit=1001", "limit=-1"] {
                expectError(
                    try live.get("/channels/paged/messages?\(bad)"), status: 422, code: "invalid_field", field: "limit")
            }
            for bad in ["limit=x", "limit=1.5", "limit="] {
                expectError(
                    try live.get("/channels/paged/messages?\(bad)"), status: 400, code: "bad_request", field: "limit")
            }
            for bad in ["after=x", "after=0", "after=-3", "after="] {
                expectError(
                    try live.get("/channels/paged/messages?\(bad)"), status: 400, code: "bad_request", field: "after")
            }
            // A channel that does not exist has one empty page.
            #expect(try live.get("/channels/nobody/messages?limit=5").text == #"{"messages":[],"next":null}"#)
        }
    }

    /// GET /messages lists the shown message, then the queued ones, in order; ended ones leave it.
    @Test func listMessages() throws {
        try withLiveServer { live in
            let empty = try live.get("/messages")
            #expect(empty.status == 200)
            #expect(empty.text == #"{"messages":[],"next":null}"#)

            for text in ["one", "two", "three"] {
                #expect(try live.request("POST", "/messages", body: text).status == 202)
            }
            let list = try live.get("/messages").json["messages"]?.array ?? []
            #expect(list.map { $0["text"]?.string } == ["one", "two", "three"])
            #expect(list.map { $0["state"]?.string } == ["showing", "queued", "queued"])

            // "one" (info, 2.5 s) is displayed 0.25 → 2.75, then "two" replaces it.
            try live.advance(2.75)
            let later = try live.get("/messages").json["messages"]?.array ?? []
            #expect(later.map { $0["id"]?.int } == [2, 3])
            #expect(later.first?["displayStartedAt"]?.number == 2.75)
            #expect(later.first?["endsAt"]?.number == 5.25)
        }
    }

    /// GET /messages/{id} shows a queued, a shown, and an ended message (from the history).
    @Test func getOneMessage() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages?kind=sent", body: "a").status == 202)
            #expect(try live.request("POST", "/messages", body: "b").status == 202)

            let queued = try live.get("/messages/2")
            #expect(queued.status == 200)
            #expect(queued.json["state"]?.string == "queued")
            #expect(orderedKeys(queued.body) == Self.messageKeys)

            try live.advance(0.25)
            let shown = try live.get("/messages/1")
            #expect(shown.json["state"]?.string == "showing")
            #expect(shown.json["displayStartedAt"]?.number == 0.25)
            #expect(shown.json["endsAt"]?.number == 2.25)

            try live.advance(2.0)
            let ended = try live.get("/messages/1")
            #expect(ended.status == 200)
            #expect(ended.json["state"]?.string == "done")
            #expect(ended.json["endedAt"]?.number == 2.25)
            #expect(ended.json["endsAt"]?.isNull == true)
            #expect(try live.get("/messages/2").json["state"]?.string == "showing")
            // A trailing slash names the same resource.
            #expect(try live.get("/messages/2/").json["id"]?.int == 2)
        }
    }

    /// PATCH changes kind, text, progress and duration; a duration restarts the shown one's timer.
    @Test func patchMessage() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages?kind=sending", body: "Sending…").status == 202)
            #expect(try live.request("POST", "/messages", body: "queued").status == 202)
            try live.advance(1)

            let queued = try live.request(
                "PATCH", "/messages/2", headers: [("Content-Type", "application/json")],
                body: #"{"text": " changed ", "kind": "progress", "progress": 0.75}"#)
            #expect(queued.status == 200)
            #expect(queued.json["text"]?.string == "changed")
            #expect(queued.json["kind"]?.string == "progress")
            #expect(queued.json["progress"]?.number == 0.75)
            #expect(queued.json["state"]?.string == "queued")

            // The shown sending message is sticky; a duration gives it 2 s from the PATCH at 1.0.
            let shown = try live.request("PATCH", "/messages/1?duration=2", headers: [("Content-Type", "text/plain")])
            #expect(shown.status == 200)
            #expect(shown.json["duration"]?.number == 2)
            #expect(shown.json["endsAt"]?.number == 3)

            // Plain text to PATCH is the new text.
            let text = try live.request("PATCH", "/messages/1", headers: [("Content-Type", "text/plain")], body: "Sent")
            #expect(text.json["text"]?.string == "Sent")
            #expect(text.json["endsAt"]?.number == 3)

            // A PATCH that changes nothing is 200 and does not bump the version.
            let version = try live.overlay()["version"]?.int
            let same = try live.request("PATCH", "/messages/1", headers: [("Content-Type", "text/plain")], body: "Sent")
            #expect(same.status == 200)
            #expect(try live.overlay()["version"]?.int == version)

            // progress: null removes the bar (allowed for a non-progress kind).
            let cleared = try live.request(
                "PATCH", "/messages/1", headers: [("Content-Type", "application/json")], body: #"{"progress": null}"#)
            #expect(cleared.json["progress"]?.isNull == true)

            try live.advance(2)
            #expect(try live.get("/messages/1").json["state"]?.string == "done")
            #expect(try live.overlay()["message"]?["id"]?.int == 2)
        }
    }

    /// DELETE cancels a queued message, or ends the shown one at once (the next replaces it).
    @Test func deleteMessage() throws {
        try withLiveServer { live in
            for text in ["a", "b", "c"] {
                #expect(try live.request("POST", "/messages", body: text).status == 202)
            }
            try live.advance(0.5)

            let queued = try live.request("DELETE", "/messages/3")
            #expect(queued.status == 200)
            #expect(queued.json["state"]?.string == "cancelled")
            #expect(queued.json["endedAt"]?.number == 0.5)
            #expect(orderedKeys(queued.body) == Self.messageKeys)

            let shown = try live.request("DELETE", "/messages/1")
            #expect(shown.status == 200)
            #expect(shown.json["state"]?.string == "cancelled")
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "visible")
            #expect(overlay["message"]?["id"]?.int == 2)
            #expect(overlay["queued"]?.int == 0)

            // Deleting the last one hides the overlay.
            #expect(try live.request("DELETE", "/messages/2").status == 200)
            #expect(try live.overlay()["phase"]?.string == "hiding")
            #expect(try live.get("/messages").text == #"{"messages":[],"next":null}"#)
            // The cancelled ones stay readable.
            #expect(try live.get("/messages/3").json["state"]?.string == "cancelled")
        }
    }

    /// A POST at the limit of the queue still updates by key: only new waiting messages are refused.
    @Test func keyUpdateIsNotRefusedByFullQueue() throws {
        try withLiveServer(configure: { $0.engine.maxQueue = 1 }) { live in
            #expect(try live.post("/messages", json: #"{"text": "a", "key": "a"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "b", "key": "b"}"#).status == 202)
            expectError(try live.post("/messages", json: #"{"text": "c"}"#), status: 503, code: "queue_full")
            let update = try live.post("/messages", json: #"{"text": "b2", "key": "b"}"#)
            #expect(update.status == 200)
            #expect(update.json["text"]?.string == "b2")
        }
    }

    /// HEAD answers as GET does, without the body.
    @Test func headMessages() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            let get = try live.get("/messages")
            let head = try live.request("HEAD", "/messages")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Content-Type") == "application/json; charset=utf-8")
            let one = try live.request("HEAD", "/messages/1")
            #expect(one.status == 200)
            #expect(one.body.isEmpty)
            #expect(try live.request("HEAD", "/messages/7").status == 404)
        }
    }
}
