import MicroHTTP
import OverlayEngine
import Testing

@testable import OverlayService

/// `FieldReader.read(_:_:into:)` reads a JSON object body of known fields straight into the
/// rules; every request must get from it what the general reading gives: the same input, or the
/// same error with the same message and field.
@Suite("Field reading, the JSON fast path")
struct FieldFastPathTests {
    enum Outcome: Equatable {
        case read(MessageInput)
        case refused(APIError)
    }

    static func outcome(_ read: (inout MessageInput) throws(APIError) -> Void) -> Outcome {
        var input = MessageInput()
        do throws(APIError) {
            try read(&input)
            return .read(input)
        } catch {
            return .refused(error)
        }
    }

    static func request(_ body: String, type: String? = "application/json", query: [QueryItem] = []) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/messages", query: query,
            headers: type.map { [Header(name: "Content-Type", value: $0)] } ?? [], body: Array(body.utf8))
    }

    static func expectSame(_ request: HTTPRequest, _ fields: FieldSet<MessageInput>) {
        let general = outcome { (input) throws(APIError) in try FieldReader(request, fields).read(fields, into: &input)
        }
        let fast = outcome { (input) throws(APIError) in try FieldReader.read(request, fields, into: &input) }
        #expect(fast == general, "\(String(decoding: request.body, as: UTF8.self))")
    }

    static let bodies = [
        #"{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.4242}"#,
        #"{"progress":0.5,"text":"a","kind":"progress","key":"k"}"#,
        #" {"text" : "a" , "immediate" : true , "duration" : 2.5 } "#,
        "{}", "{ }", #"{"text":"a"}"#,
        // Duplicates, unknown names (the first alphabetically is named), a typo.
        #"{"text":"a","text":"b"}"#, #"{"text":"a","progess":0.5}"#, #"{"zz":1,"aa":2,"text":"x"}"#,
        #"{"text":"a","kind":"progress","kind":"info"}"#,
        // Values a rule refuses, each naming its field; the first in the rules' order wins.
        #"{"progress":"half"}"#, #"{"kind":"nope"}"#, #"{"text":5}"#, #"{"duration":-1}"#,
        #"{"immediate":"yes"}"#, #"{"progress":null}"#, #"{"subtitle":null,"icon":null,"text":"a"}"#,
        #"{"priority":"urgent","kind":"nope"}"#, #"{"duration":3600.0000000000005}"#, #"{"delay":1,"at":2}"#,
        #"{"expires":0}"#, #"{"key":""}"#, #"{"text":{"a":[1,2,{"b":null}]}}"#, #"{"text":[]}"#,
        // Keys the fast path leaves to the general reading: escaped, not ASCII.
        #"{"t\u0065xt":"a"}"#, #"{"tëxt":"a"}"#, #"{"text\n":"a"}"#,
        // Not JSON, or not an object.
        #"{"text":"a",}"#, #"{"text":"a"} x"#, #"{"text":"#, "{", #"["text"]"#, "  ", "", "\u{FEFF}{\"text\":\"a\"}",
        #"{"text":"a\u0000b"}"#, #"{"text":"\ud800"}"#,
        // Numbers: exact, at the edges of the fast number path, and past them.
        #"{"progress":1e-1}"#, #"{"progress":0.30000000000000004}"#, #"{"progress":-0}"#,
        #"{"progress":5e-324}"#, #"{"progress":1e400}"#, #"{"progress":0.123456789012345}"#,
        #"{"progress":0.1234567890123456}"#, #"{"duration":1E+2}"#, #"{"progress":01}"#,
    ]

    @Test(arguments: bodies)
    func jsonBodiesReadAlike(body: String) {
        for fields in [MessageFields.post, MessageFields.patch] {
            Self.expectSame(Self.request(body), fields)
            Self.expectSame(Self.request(body, type: nil), fields)
            Self.expectSame(Self.request(body, type: "application/x-www-form-urlencoded"), fields)
            Self.expectSame(Self.request(body, type: "text/plain"), fields)
            Self.expectSame(Self.request(body, query: [QueryItem(name: "text", value: "q")]), fields)
            Self.expectSame(Self.request(body, query: [QueryItem(name: "priority", value: "2")]), fields)
        }
    }

    /// PATCH refuses what only a new message can have, in the same words both ways.
    @Test func patchRefusesKeyAlike() {
        Self.expectSame(Self.request(#"{"progress":0.5,"key":"k"}"#), MessageFields.patch)
        Self.expectSame(Self.request(#"{"immediate":false}"#), MessageFields.patch)
    }

    /// The fast path is taken for the benchmark's body, and declined for what it leaves to the
    /// general reading.
    @Test func fastPathTakesOnlyKnownUniqueKeys() throws {
        let names = MessageFields.post.utf8Names
        let members = try #require(
            JSONParser.knownMembers(
                Array(#"{"key":"dl-7","kind":"progress","text":"Downloading","progress":0.4242}"#.utf8), names: names))
        #expect(members.map(\.name) == [0, 1, 2, 5])
        #expect(members[2].value == .number(0.4242))
        for declined in [#"{"text":"a","text":"b"}"#, #"{"txt":"a"}"#, #"{"t\u0065xt":"a"}"#, #"{"text":"a",}"#, "[]"] {
            #expect(JSONParser.knownMembers(Array(declined.utf8), names: names) == nil, "\(declined)")
        }
    }
}
