import Glibc
import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `limits.maxMemoryBytes`: the server keeps an account of what every channel's queued, scheduled
/// and remembered messages hold, and refuses (503 `memory_full`, changing nothing) a write that
/// could pass it; what ends or is deleted gives its place back.
@Suite("Memory bound")
struct MemoryBoundTests {
    /// The largest message: a text and a subtitle of 1,024 bytes each.
    static let largest =
        #"{"text": "\#(String(repeating: "😀", count: 256))", "subtitle": "\#(String(repeating: "😀", count: 256))", "kind": "sending"}"#

    static func post(_ service: OverlayService, _ channel: String, _ body: String = largest) -> HTTPResponse {
        service.answer(HTTPRequest("POST", "/channels/\(channel)/messages", headers: [.json], body: body))
    }

    @Test func fillsThenRefusesThenTakesAgain() throws {
        let service = try OverlayService.testing {
            $0.maxMemoryBytes = 1 << 20
        }
        let each = MessageMemory.base + 2 * 1024
        var accepted = 0
        var refusal: HTTPResponse?
        while refusal == nil && accepted < 1000 {
            let response = Self.post(service, accepted % 2 == 0 ? "a" : "b")
            if response.status == 202 { accepted += 1 } else { refusal = response }
        }
        let refused = try #require(refusal)
        #expect(refused.status == 503 && refused.json["error"]?["code"]?.string == "memory_full")
        #expect(refused.headers.contains { $0.name == "Retry-After" })
        // As many as the bound holds, across both channels: the account is the server's.
        #expect(accepted == (1 << 20) / each)
        #expect(service.memory.bytes <= 1 << 20 && service.memory.bytes == accepted * each)
        // The refusal changed nothing; a small message that fits is still taken.
        let queued = service.answer(HTTPRequest("GET", "/channels/a/overlay")).json["queued"]?.int
        #expect(Self.post(service, "a").status == 503)
        #expect(
            service.answer(HTTPRequest("GET", "/channels/a/overlay")).json["queued"]?.int == queued)
        // Deleting a channel gives its messages' place back.
        #expect(service.answer(HTTPRequest("DELETE", "/channels/b")).status == 204)
        #expect(service.memory.bytes == (accepted + 1) / 2 * each)
        #expect(Self.post(service, "c").status == 202)
    }

    /// Ended messages leave the account as they leave the history; a PATCH counts its new text.
    @Test func endingAndChangingAreCounted() throws {
        let service = try OverlayService.testing { $0.engine.historySize = 1 }
        #expect(Self.post(service, "a", #"{"text": "one", "duration": 1}"#).status == 202)
        let one = service.memory.bytes
        #expect(one == MessageMemory.base + 3)
        #expect(
            service.answer(
                HTTPRequest("PATCH", "/channels/a/messages/1", headers: [.json], body: #"{"text": "longer"}"#)
            ).status == 200)
        #expect(service.memory.bytes == MessageMemory.base + 6)
        #expect(Self.post(service, "a", #"{"text": "two", "duration": 1}"#).status == 202)
        #expect(service.answer(HTTPRequest("POST", "/clock", body: "10")).status == 200)
        // Both ended; the history keeps one: the other is gone from memory and from the account.
        #expect(service.memory.bytes == MessageMemory.base + 3)
    }
}

/// The bound in the real executable: filled with the largest messages until 503, the process grew
/// by no more than the bound.
@Suite("Memory bound, live")
struct MemoryBoundLiveTests {
    static func residentKB(_ pid: pid_t) -> Int? {
        let status = TemporaryDirectory.read("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    @Test func fillingTheBoundStaysWithinIt() throws {
        let bound = 16 << 20
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.json", #"{"limits": {"writesPerSecond": 0, "maxMemoryBytes": \#(bound)}, "maxScheduled": 1000}"#)
        let child = try ChildProcess.overlayd(
            ["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false", "--config", config])
        defer { _ = child.stop() }
        let port = try #require(child.listeningPort())
        // Warm: a channel and the code paths, before measuring.
        for channel in 0..<8 {
            #expect(
                try RawClient.request("POST", "/channels/c\(channel)/messages", port: port, body: "warm").status == 202)
        }
        let before = try #require(Self.residentKB(child.pid))
        var accepted = 0
        var status = 202
        while status == 202 && accepted < 20_000 {
            // Queued and scheduled, over eight channels.
            let body = MemoryBoundTests.largest.dropLast() + (accepted % 2 == 0 ? #", "delay": "1h"}"# : "}")
            status = try RawClient.request(
                "POST", "/channels/c\(accepted % 8)/messages", port: port,
                headers: [("Content-Type", "application/json")],
                body: String(body)
            ).status
            if status == 202 { accepted += 1 }
        }
        #expect(status == 503)
        let grown = (try #require(Self.residentKB(child.pid)) - before) * 1024
        #expect(accepted > 3000, "\(accepted) messages")
        #expect(grown <= bound, "filled with \(accepted) messages, the process grew by \(grown) bytes (bound \(bound))")
    }
}
