import ServiceTestSupport
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `accessLog`: true or "text" (the `key=value` line), false, or "json" (one object a line), from
/// the file, the environment and the flag; the JSON line parses, whatever the path holds.
@Suite("Access log")
struct AccessLogTests {
    @Test(arguments: [
        (#"{"accessLog": true}"#, AccessLogFormat.text), (#"{"accessLog": false}"#, .off),
        (#"{"accessLog": "text"}"#, .text), (#"{"accessLog": "json"}"#, .json), (#"{}"#, .text),
    ])
    func fileValues(json: String, format: AccessLogFormat) throws {
        #expect(
            try ServiceConfiguration.loaded(file: json).accessLog == format)
    }

    @Test func environmentAndFlag() throws {
        #expect(try ServiceConfiguration.loaded(environment: ["OVERLAYD_ACCESS_LOG": "json"]).accessLog == .json)
        #expect(try ServiceConfiguration.loaded(environment: ["OVERLAYD_ACCESS_LOG": "no"]).accessLog == .off)
        #expect(try ServiceConfiguration.loaded(["--access-log=json"]).accessLog == .json)
        #expect(try ServiceConfiguration.loaded(["--access-log=text"]).accessLog == .text)
        #expect(try ServiceConfiguration.loaded(["--access-log=false"]).accessLog == .off)
        // Alone, the switch is true: the text line.
        #expect(try ServiceConfiguration.loaded(["--access-log"]).accessLog == .text)
    }

    /// A bad value names `accessLog` (or its variable or flag) and says what it may be.
    @Test(arguments: [
        (["--config", "c.json"], [:], "accessLog"),
        ([], ["OVERLAYD_ACCESS_LOG": "xml"], "OVERLAYD_ACCESS_LOG"),
        (["--access-log=JSON"], [:], "--access-log"),
    ])
    func badValue(arguments: [String], environment: [String: String], key: String) {
        let error = ConfigurationError.loading(
            arguments, environment: environment, files: ["c.json": #"{"accessLog": "yaml"}"#])
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.contains(#""json""#) == true, "\(String(describing: error))")
    }

    @Test(arguments: [#"{"accessLog": 1}"#, #"{"accessLog": null}"#, #"{"accessLog": ["json"]}"#])
    func badFileType(json: String) {
        #expect(ConfigurationError.loading(file: json)?.key == "accessLog")
    }

    /// A quote, a backslash and control bytes in the path still give one valid JSON object.
    @Test func jsonEscaping() throws {
        let path = "/a\"b\\c\u{1}\n\u{7F}é"
        let record = AccessRecord(
            method: "GET", path: path, status: 404, bytes: 12, microseconds: 345, remoteAddress: "127.0.0.1")
        let line = AccessLog.json(record, at: 1_764_680_400_012_345)
        #expect(!line.contains("\n"))
        let object = try JSONParser.parse(Array(line.utf8))
        #expect(object["path"]?.string == path)
        #expect(object["time"]?.string == "2025-12-02T13:00:00.012345Z")
        #expect(object["method"]?.string == "GET")
        #expect(object["status"]?.number == 404)
        #expect(object["bytes"]?.number == 12)
        #expect(object["microseconds"]?.number == 345)
        #expect(object["client"]?.string == "127.0.0.1")
        #expect(AccessLog.timestamp(0) == "1970-01-01T00:00:00.000000Z")
    }

    /// `principal=` names who made the request, escaped as the path is: a JWT's `sub` cannot
    /// forge or break a line; a request refused before its principal was known has none.
    @Test func principal() throws {
        var record = AccessRecord(
            method: "GET", path: "/overlay", status: 200, bytes: 1, microseconds: 2, remoteAddress: "127.0.0.1",
            principal: Principal(.signed(subject: "a b\"c\n" + String(repeating: "x", count: 100)), grants: .none)
                .logName)
        #expect(record.principal.count == "jwt:".count + 64)
        let object = try JSONParser.parse(Array(AccessLog.json(record, at: 0).utf8))
        #expect(object["principal"]?.string == record.principal)
        record.principal = ""
        #expect(try JSONParser.parse(Array(AccessLog.json(record, at: 0).utf8))["principal"] == .null)
        #expect(Principal(.created(id: "tok_abc"), grants: .none).logName == "tok_abc")
        #expect(Principal(.anonymous, grants: .none).logName == "anonymous")
        #expect(Principal(.token, grants: .none).logName == "token")
        #expect(Principal(.readToken, grants: .none).logName == "readToken")
    }

    /// The real executable with `--access-log=json` writes a JSON line per request on stderr.
    @Test func liveJSONLine() throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=json"])
        let port = try #require(child.listeningPort())
        #expect(try RawClient.request("GET", "/nowhere%22x", port: port).status == 404)
        #expect(try RawClient.request("GET", "/overlay?auth=not-logged", port: port).status == 200)
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        let lines = child.errorText.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count == 2, "\(child.errorText)")
        let read = try JSONParser.parse(Array((lines.last ?? "").utf8))
        #expect(read["principal"]?.string == "anonymous" && read["path"]?.string == "/overlay")
        #expect(!child.errorText.contains("not-logged"))
        let object = try JSONParser.parse(Array((lines.first ?? "").utf8))
        #expect(object["method"]?.string == "GET")
        #expect(object["path"]?.string?.hasPrefix("/nowhere") == true)
        #expect(object["status"]?.number == 404)
        #expect(object["client"]?.string == "127.0.0.1")
        #expect((object["microseconds"]?.number ?? -1) >= 0)
        #expect(object["time"]?.string?.hasSuffix("Z") == true)
    }
}
