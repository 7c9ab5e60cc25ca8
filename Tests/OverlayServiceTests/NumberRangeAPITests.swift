import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// A number too large for a Double is a value out of range, not malformed input: the same digits
/// get the same answer in a JSON body, a query and a form, 422 `invalid_field` naming the field.
@Suite("Numbers too large, in every body")
struct NumberRangeAPITests {
    /// A field, the path it is sent to, the rest of the request, and what the refusal says.
    struct Case: Sendable, CustomTestStringConvertible {
        var field: String
        var path: String
        /// Another field the request needs (the message's text), as a JSON member and a form field.
        var other: (json: String, form: String)?
        var value: String
        var reason: String?

        var testDescription: String { "\(field)=\(value)" }
    }

    static let message = (json: #""text": "a""#, form: "text=a")
    static let cases: [Case] = [
        Case(field: "delay", path: "/messages", other: message, value: "1e400", reason: "at most 7 days"),
        Case(field: "delay", path: "/messages", other: message, value: "-1e400", reason: "at most 7 days"),
        Case(field: "expires", path: "/messages", other: message, value: "1e400", reason: "at most 7 days"),
        Case(field: "expires", path: "/messages", other: message, value: "1e309", reason: "at most 7 days"),
        Case(field: "duration", path: "/messages", other: message, value: "1e400", reason: "at most 3600 seconds"),
        Case(field: "duration", path: "/messages", other: message, value: "-1e400", reason: "at most 3600 seconds"),
        Case(field: "progress", path: "/messages", other: message, value: "1e400", reason: "between 0 and 1"),
        Case(field: "progress", path: "/messages", other: message, value: "-1E+400", reason: "between 0 and 1"),
        Case(field: "at", path: "/messages", other: message, value: "1e400", reason: "at most 7 days"),
        Case(field: "priority", path: "/messages", other: message, value: "1e400", reason: "must be 1 to 5"),
        Case(field: "advance", path: "/clock", other: nil, value: "1e400", reason: "between 0 and 1000000000"),
        Case(field: "advance", path: "/clock", other: nil, value: "-1e400", reason: "between 0 and 1000000000"),
        Case(field: "to", path: "/clock", other: nil, value: "1e400", reason: "between 0 and 1000000000"),
        // Just out of range, or read as 0 (too small for a Double): the same one answer.
        Case(field: "delay", path: "/messages", other: message, value: "1e-400", reason: "at most 7 days"),
        Case(field: "expires", path: "/messages", other: message, value: "604800.0000000001", reason: "at most 7 days"),
        Case(field: "duration", path: "/messages", other: message, value: "3600.0000000000005", reason: "3600 seconds"),
        Case(field: "duration", path: "/messages", other: message, value: "0e5", reason: "at most 3600 seconds"),
        Case(field: "progress", path: "/messages", other: message, value: "1.0000000000000002", reason: "0 and 1"),
        Case(field: "advance", path: "/clock", other: nil, value: "-1", reason: "between 0 and 1000000000"),
        // Not refused at all: a time long past is now, in every body alike.
        Case(field: "at", path: "/messages", other: message, value: "-1e400", reason: nil),
    ]

    static func requests(_ test: Case) -> [(way: String, request: HTTPRequest)] {
        let jsonMembers = (test.other.map { [$0.json] } ?? []) + ["\"\(test.field)\": \(test.value)"]
        // A `+` in a query or a form is a space: sent as %2B, as a browser or curl encodes it.
        let encoded = test.value.split(separator: "+", omittingEmptySubsequences: false).joined(separator: "%2B")
        let formFields = (test.other.map { [$0.form] } ?? []) + ["\(test.field)=\(encoded)"]
        let query = QueryItem.items(of: Array("\(test.field)=\(encoded)".utf8))
        let form = Header(name: "Content-Type", value: "application/x-www-form-urlencoded")
        return [
            (
                "json",
                HTTPRequest(
                    method: "POST", path: test.path, headers: [Header(name: "Content-Type", value: "application/json")],
                    body: Array("{\(jsonMembers.joined(separator: ", "))}".utf8))
            ),
            (
                "query",
                HTTPRequest(
                    method: "POST", path: test.path, query: query,
                    headers: [Header(name: "Content-Type", value: "text/plain")],
                    body: Array((test.other == nil ? "" : "a").utf8))
            ),
            (
                "form",
                HTTPRequest(
                    method: "POST", path: test.path, headers: [form],
                    body: Array(formFields.joined(separator: "&").utf8))
            ),
        ]
    }

    /// Each way gets one answer: 422 `invalid_field` naming the field, in the same words (or, for
    /// a value that is no refusal, the same status).
    @Test(arguments: NumberRangeAPITests.cases)
    func oneAnswer(_ test: Case) throws {
        var answers: [(status: Int, error: JSONValue?)] = []
        for (way, request) in Self.requests(test) {
            let service = try OverlayService.testing()
            let response = service.answer(request)
            let error = response.json["error"]
            answers.append((response.status, error))
            guard let reason = test.reason else { continue }
            #expect(response.status == 422, "\(way): \(response.json)")
            #expect(error?["code"]?.string == "invalid_field", "\(way)")
            #expect(error?["field"]?.string == test.field, "\(way)")
            #expect(error?["message"]?.string?.contains(reason) == true, "\(way): \(response.json)")
            // Refused: nothing was queued or scheduled, and the clock did not move.
            let overlay = service.answer(HTTPRequest("GET", "/overlay")).json
            #expect(overlay["message"]?.isNull == true && overlay["scheduled"]?.int == 0, "\(way)")
            #expect(service.answer(HTTPRequest("GET", "/clock")).json["now"]?.number == 0)
        }
        #expect(Set(answers.map(\.status)).count == 1, "\(answers.map(\.status))")
        #expect(Set(answers.map { $0.error?["message"]?.string ?? "" }).count == 1, "\(answers.map(\.error))")
    }

    /// A long-poll's `wait` comes in the query alone: too large is out of range there too.
    @Test func longPollWait() throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            HTTPRequest("GET", "/overlay", query: [QueryItem(name: "wait", value: "1e400")]))
        #expect(response.status == 422)
        #expect(response.json["error"]?["field"]?.string == "wait")
    }

    /// A parsed document keeps the number as infinity, signed, for the reader to judge; written
    /// back it is null, as every non-finite number is.
    @Test func parsedAsInfinity() throws {
        let parsed = try JSONParser.parse(Array(#"{"a": 1e400, "b": -1E+309, "c": 1e-400}"#.utf8))
        #expect(parsed["a"]?.number == .infinity)
        #expect(parsed["b"]?.number == -.infinity)
        #expect(parsed["c"]?.number == 0)
        var writer = JSONWriter()
        writer.value(parsed["a"] ?? .null)
        #expect(writer.bytes == Array("null".utf8))
    }
}
