import Foundation
import OverlayClient
import TestSupport
import Testing

@testable import OverlayCommands

/// `overlayd token` as an operator runs it against a server with an admin token: the secret alone
/// on the first line, tables without secrets, the server's refusal on stderr, and the exit status
/// a script can test.
@Suite("overlayd token")
struct TokenCommandTests {
    static let adminToken = "token-admin-1"
    let server: ServerProcess
    let admin: OverlayClient

    init() async throws {
        server = try await ServerProcess.start(["--ephemeral"], environment: ["OVERLAYD_TOKEN": Self.adminToken])
        admin = OverlayClient(url: server.url, token: Self.adminToken)
    }

    var url: String { server.url.absoluteString }

    /// `overlayd token ARGUMENTS --url URL`, with the admin token in OVERLAYD_TOKEN unless given.
    func token(_ arguments: [String], environment: [String: String]? = nil) async throws -> CommandRun {
        try await CommandRun.run(
            ["token"] + arguments + ["--url", url], environment: environment ?? ["OVERLAYD_TOKEN": Self.adminToken])
    }

    /// The status of `GET path` with `secret` as the bearer token, on a connection of its own.
    func status(_ path: String, bearer secret: String) async throws -> Int {
        let port = server.port
        return try await offPool {
            try RawClient.request("GET", path, port: port, headers: [("Authorization", "Bearer \(secret)")]).status
        }
    }

    /// The message of the server's own refusal of `GET /tokens` with `bearer` (none: no header).
    func refusalMessage(bearer: String?) async throws -> String {
        let port = server.port
        let reply = try await offPool {
            try RawClient.request(
                "GET", "/tokens", port: port, headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? [])
        }
        let body = try JSONDecoder().decode([String: [String: String]].self, from: Data(reply.body))
        return try #require(body["error"]?["message"])
    }

    /// `add` then the secret: it reads the granted channels and no other; `list` and `show` show
    /// the token without it; after `revoke` the secret is refused as not valid.
    @Test func addListShowRevoke() async throws {
        let add = try await token(["add", "--label", "ci", "--grant", "builds-*=read-write", "--grant=lobby=read"])
        #expect(add.status == 0, "\(add.errors)")
        let lines = add.output.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(add.output)")
        let (secret, id) = (lines[0], lines[1])
        #expect(secret.hasPrefix("ovl_"))
        #expect(secret.count == 44)
        #expect(id.hasPrefix("tok_"))
        #expect(add.errors.contains("shown this once"))
        #expect(!add.errors.contains(secret))

        #expect(try await status("/channels/builds-7/overlay", bearer: secret) == 200)
        #expect(try await status("/channels/lobby/overlay", bearer: secret) == 200)
        #expect(try await status("/channels/ops/overlay", bearer: secret) == 403)
        #expect(try await status("/overlay", bearer: secret) == 403)

        // Its uses above are noted at once (to the minute), so the list and show print a time.
        let made = try await admin.token(id: id)
        let lastUsed = try #require(made.lastUsedAt)
        let list = try await token(["list"])
        #expect(list.status == 0, "\(list.errors)")
        let rows = list.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.first == ["ID", "LABEL", "GRANTS", "ADMIN", "EXPIRES", "LAST", "USED"])
        #expect(
            rows.dropFirst().first == [
                id, "ci", "builds-*=read-write,lobby=read", "no", "never", Self.iso8601(lastUsed),
            ])
        #expect(rows.count == 2)
        #expect(!list.output.contains(secret))

        let show = try await token(["show", id])
        #expect(show.status == 0, "\(show.errors)")
        #expect(
            show.output == """
                id         \(id)
                label      ci
                grants     builds-*=read-write,lobby=read
                admin      no
                expires    never
                created    \(Self.iso8601(made.createdAt))
                last used  \(Self.iso8601(lastUsed))
                prefix     \(secret.prefix(8))

                """)
        #expect(!show.output.contains(secret))

        let revoke = try await token(["revoke", id])
        #expect(revoke.status == 0, "\(revoke.errors)")
        #expect(revoke.output.isEmpty)
        #expect(revoke.errors.isEmpty)
        #expect(try await status("/channels/builds-7/overlay", bearer: secret) == 401)
        #expect(try await token(["list"]).output.split(separator: "\n").count == 1)
        let gone = try await token(["show", id])
        #expect(gone.status == 2)
        #expect(gone.errors.contains("[404 not_found]"), "\(gone.errors)")
    }

    /// `--admin` and `--expires-at` reach the server: the new token manages tokens itself, and
    /// its expiry prints as RFC 3339 in UTC.
    @Test func adminTokenWithExpiry() async throws {
        let expiresAt = Int64(Date().timeIntervalSince1970) + 86_400
        let add = try await token([
            "add", "--label", "deputy", "--grant", "*=read", "--admin", "--expires-at", String(expiresAt),
        ])
        #expect(add.status == 0, "\(add.errors)")
        let secret = String(add.output.prefix { $0 != "\n" })
        let id = String(add.output.split(separator: "\n").last ?? "")

        let list = try await token(["list", "--token", secret], environment: [:])
        #expect(list.status == 0, "\(list.errors)")
        let row = try #require(list.output.split(separator: "\n").first { $0.hasPrefix(id) })
        #expect(row.split(separator: " ").map(String.init)[3...4] == ["yes", Self.iso8601(expiresAt)])
        #expect(!list.output.contains(secret))

        // The library's view of the same token agrees with what the command printed.
        let principal = try await OverlayClient(url: server.url, token: secret).whoami()
        #expect(principal.name == id)
        #expect(principal.label == "deputy")
        #expect(principal.grants == [Grant(channels: "*", access: .read)])
        #expect(principal.admin)
        #expect(principal.expiresAt == expiresAt)
    }

    /// `--expires` goes as written: the server reads the unit.
    @Test func expiresIsAWait() async throws {
        let add = try await token(["add", "--label", "month", "--grant", "a=write", "--expires", "30d"])
        #expect(add.status == 0, "\(add.errors)")
        let made = try #require(try await admin.tokens().first)
        #expect(made.expiresAt == made.createdAt + 30 * 86_400)
        let show = try await token(["show", made.id])
        #expect(show.output.contains("expires    \(Self.iso8601(made.createdAt + 30 * 86_400))\n"))
        #expect(show.output.contains("last used  -\n"))
    }

    /// `secret=$(overlayd token add … | head -1)` keeps the secret alone.
    @Test func firstLineIsTheSecret() async throws {
        let run = try await CommandRun.run(
            [
                "-c", "\"$0\" token add --label sh --grant lobby=read --url \"$1\" | head -1",
                OverlaydExecutable.path(), url,
            ],
            shell: "/bin/sh", environment: ["OVERLAYD_TOKEN": Self.adminToken])
        #expect(run.status == 0, "\(run.errors)")
        let secret = run.output.trimmingCharacters(in: .newlines)
        #expect(run.output == secret + "\n")
        #expect(try await status("/channels/lobby/overlay", bearer: secret) == 200)
    }

    /// A wrong admin token, none, or one that is not an admin's: exit 2 and the server's own
    /// message, nothing on stdout, nothing made.
    @Test func refusedCredentials() async throws {
        let wrong = try await token(["list", "--token", "not-the-admin-token"], environment: [:])
        #expect(wrong.status == 2)
        #expect(wrong.output.isEmpty)
        #expect(wrong.errors.contains(try await refusalMessage(bearer: "not-the-admin-token")), "\(wrong.errors)")
        #expect(wrong.errors.contains("[401 invalid_token]"), "\(wrong.errors)")

        let none = try await token(["add", "--label", "x", "--grant", "a=read"], environment: [:])
        #expect(none.status == 2)
        #expect(none.output.isEmpty)
        #expect(none.errors.contains(try await refusalMessage(bearer: nil)), "\(none.errors)")
        #expect(none.errors.contains("[401 unauthorized]"), "\(none.errors)")

        let reader = try await admin.createToken(label: "reader", grants: [Grant(channels: "*", access: .read)]).secret
        let notAdmin = try await token(["revoke", "tok_whatever"], environment: ["OVERLAYD_TOKEN": reader])
        #expect(notAdmin.status == 2)
        #expect(notAdmin.errors.contains("[403 forbidden]"), "\(notAdmin.errors)")
        #expect(try await admin.tokens().map(\.label) == ["reader"])
    }

    /// A grant or expiry the server refuses: its message, field, status and code; nothing made.
    @Test(arguments: [
        (["--grant", "b d=read"], "(grants[0].channels) [422 invalid_field]"),
        (["--grant", "a=read", "--grant", "b=rw"], "(grants[1].access) [422 invalid_field]"),
        (["--grant", "a=read", "--expires", "5x"], "(expires) [422 invalid_field]"),
        (["--grant", "a=read", "--expires-at", "1"], "(expiresAt) [422 invalid_field]"),
    ])
    func serverRefusals(options: [String], reason: String) async throws {
        let run = try await token(["add", "--label", "x"] + options)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains(reason), "\(run.errors)")
        #expect(!run.errors.contains("usage:"))
        #expect(try await admin.tokens().isEmpty)
    }

    /// A command line that cannot be run: exit 2, the reason naming the flag, and the usage.
    @Test(arguments: [
        (["add", "--label", "x", "--grant", "builds"], "--grant must be PATTERN=ACCESS", "add"),
        (["add", "--label", "x", "--grant", "=write"], "--grant must be PATTERN=ACCESS", "add"),
        (["add", "--label", "x", "--grant", "a=read", "--grant", "lobby="], "--grant must be PATTERN=ACCESS", "add"),
        (["add", "--label", "x"], "--grant is required", "add"),
        (["add", "--grant", "a=read"], "--label is required", "add"),
        (["add", "--label", "x", "--grant", "a=read", "--expires", "1d", "--expires-at", "9"], "not both", "add"),
        (["add", "--label", "x", "--grant", "a=read", "--expires-at", "soon"], "--expires-at must be", "add"),
        (["add", "--label", "x", "--label", "y", "--grant", "a=read"], "--label is given twice", "add"),
        (["add", "--label", "x", "--grant", "a=read", "--admin=yes"], "--admin takes no value", "add"),
        (["list", "extra"], "list takes no operand", "list"),
        (["show"], "show takes one ID", "show"),
        (["revoke", "tok_a", "tok_b"], "revoke takes one ID", "revoke"),
        (["show", "tok_a", "--channel", "ops"], "unknown option --channel", "show"),
        (["rotate"], "unknown command \"rotate\"", ""),
    ])
    func usageErrors(arguments: [String], reason: String, subcommand: String) async throws {
        let run = try await token(arguments)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains(reason), "\(run.errors)")
        #expect(run.errors.contains("usage: overlayd token \(subcommand)"), "\(run.errors)")
        #expect(try await admin.tokens().isEmpty)
    }

    /// `overlayd token` alone is a usage error; `--help` on it and on each subcommand is not.
    @Test func help() async throws {
        let bare = try await CommandRun.run(["token"])
        #expect(bare.status == 2)
        #expect(bare.errors.contains("a command is missing"))
        for arguments in [
            ["--help"], ["help"], ["add", "--help"], ["list", "-h"], ["show", "--help"], ["revoke", "--help"],
        ] {
            let run = try await CommandRun.run(["token"] + arguments)
            #expect(run.status == 0, "\(arguments)")
            #expect(
                run.output.contains("usage: overlayd token \(arguments.count == 2 ? arguments[0] : "")"), "\(arguments)"
            )
            #expect(run.errors.isEmpty)
        }
        #expect(try await CommandRun.run(["help"]).output.contains("overlayd token add|list|show|revoke"))
    }

    /// Nothing listening: exit 1, and the URL it tried.
    @Test func unreachable() async throws {
        let port = server.port
        await server.stop()
        let run = try await CommandRun.run(
            ["token", "list", "--url", "http://127.0.0.1:\(port)"], environment: ["OVERLAYD_TOKEN": Self.adminToken])
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("http://127.0.0.1:\(port) cannot be reached: connection refused"))
    }

    /// Unix seconds as Foundation writes them in RFC 3339, UTC.
    static func iso8601(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// The pieces of `overlayd token` that need no server.
@Suite("overlayd token output and arguments")
struct TokenCommandTextTests {
    /// Days-to-civil arithmetic against Foundation's formatter: the epoch, leap days, centuries,
    /// before 1970, and a seeded spread up to the year 9999.
    @Test func rfc3339MatchesFoundation() {
        var cases: [Int64] = [0, -1, 951_782_400, 4_102_444_799, 4_107_542_400, -2_208_988_800, 253_402_300_799]
        var random = SplitMix(seed: 0x70C3)
        for _ in 0..<2000 { cases.append(Int64.random(in: -2_208_988_800...253_402_300_799, using: &random)) }
        for seconds in cases {
            #expect(TokenCommand.rfc3339(seconds) == TokenCommandTests.iso8601(seconds), "\(seconds)")
        }
        #expect(TokenCommand.rfc3339(951_782_400) == "2000-02-29T00:00:00Z")
    }

    /// A repeatable option keeps every value in order; the others are still refused twice.
    @Test func repeatedOptions() throws {
        let arguments = try Arguments(
            ["--grant", "a=read", "--label", "x", "--grant=b=write"], options: ["--label"], repeatable: ["--grant"],
            switches: [])
        #expect(arguments.all("--grant") == ["a=read", "b=write"])
        #expect(arguments["--label"] == "x")
        #expect(arguments.all("--label").isEmpty)
        #expect(arguments["--grant"] == nil)
        #expect(throws: UsageError.self) {
            try Arguments(
                ["--label", "x", "--label", "y"], options: ["--label"], repeatable: ["--grant"], switches: [])
        }
        #expect(throws: UsageError.self) {
            try Arguments(["--grant"], options: [], repeatable: ["--grant"], switches: [])
        }
    }

    /// Grants print as `--grant` takes them.
    @Test func grantsRoundTrip() throws {
        let grants = [Grant(channels: "builds-*", access: .write), Grant(channels: "lobby", access: .read)]
        #expect(TokenCommand.grants(grants) == "builds-*=write,lobby=read")
        #expect(
            try "builds-*=write,lobby=read".split(separator: ",").map { try TokenCommand.grant(String($0)) } == grants)
    }
}
