import OverlayClientCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `overlayd token add|list|show|revoke`: the server's token API (docs/ACCESS.md) from a shell,
/// with an admin token.
enum TokenCommand {
    /// The subcommands, each with its options and usage.
    enum Subcommand: String, CaseIterable {
        case add, list, show, revoke

        var options: Set<String> {
            self == .add ? ["--label", "--expires", "--expires-at", "--url", "--token"] : ["--url", "--token"]
        }

        var usage: String {
            switch self {
            case .add: TokenCommand.addUsage
            case .list: TokenCommand.listUsage
            case .show: TokenCommand.showUsage
            case .revoke: TokenCommand.revokeUsage
            }
        }
    }

    /// What a command line asks of the server, once read.
    enum Request: Hashable {
        case add(NewToken)
        case list
        case show(id: String)
        case revoke(id: String)
    }

    static let usage = """
        usage: overlayd token add --label LABEL --grant PATTERN=ACCESS [...] [options]
               overlayd token list [options]
               overlayd token show ID [options]
               overlayd token revoke ID [options]

        Makes, lists, shows and revokes the server's access tokens (docs/ACCESS.md). Each needs an
        admin token: --token TOKEN, or OVERLAYD_TOKEN (which stays out of `ps`). --url URL is the
        server (http://127.0.0.1:8080). `overlayd token COMMAND --help` tells more.

        exit status: 0 done, 1 the server cannot be reached, 2 the server refused or the command
        line is wrong.
        """

    static let commonOptions = """
          --url URL           the server (http://127.0.0.1:8080)
          --token TOKEN       an admin token (default: OVERLAYD_TOKEN, which stays out of `ps`)
          --help              this text
        """

    static let addUsage = """
        usage: overlayd token add --label LABEL --grant PATTERN=ACCESS [...] [options]

        Makes a token. Prints its secret alone on the first line and its id on the second, so that
        `secret=$(overlayd token add … | head -1)` keeps the secret; standard error says that it is
        shown this once (the server keeps only its SHA-256).

        options:
          --label LABEL       what the token is for: 1 to 64 characters
          --grant P=ACCESS    channels matching pattern P (* stands for any run: builds-*) and
                              read, write, read-write or deny; repeat it for more (1 to 32)
          --admin             it may manage tokens too
          --expires WAIT      it expires after WAIT: seconds, or a number with a unit s, m, h or d
                              (12h, 30d; at most 3650 days)
          --expires-at UNIX   it expires at this Unix time in seconds
        \(commonOptions)
        """

    static let listUsage = """
        usage: overlayd token list [options]

        Lists the live tokens (neither revoked nor expired), one a row: id, label, grants as
        PATTERN=ACCESS, admin, when it expires (RFC 3339 in UTC, or never) and when it was last
        used (to the minute; - before its first use). No secret is shown.

        options:
        \(commonOptions)
        """

    static let showUsage = """
        usage: overlayd token show ID [options]

        Prints one live token's fields, one a line: id, label, grants, admin, expires, created,
        last used and prefix (the secret's first 8 characters). No secret is shown.

        options:
        \(commonOptions)
        """

    static let revokeUsage = """
        usage: overlayd token revoke ID [options]

        Revokes a token at once: its secret is refused from now on. Prints nothing.

        options:
        \(commonOptions)
        """

    static func run(_ commandLine: [String], environment: [String: String]) async -> Int32 {
        guard let name = commandLine.first else {
            Output.error("overlayd token: a command is missing (add, list, show or revoke)\n\(usage)")
            return 2
        }
        if ["-h", "--help", "help"].contains(name) {
            print(usage)
            return 0
        }
        guard let subcommand = Subcommand(rawValue: name) else {
            Output.error("overlayd token: unknown command \"\(name)\" (add, list, show or revoke)\n\(usage)")
            return 2
        }
        let client: OverlayClient
        let request: Request
        do throws(UsageError) {
            let arguments = try Arguments(
                Array(commandLine.dropFirst()), options: subcommand.options,
                repeatable: subcommand == .add ? ["--grant"] : [], switches: subcommand == .add ? ["--admin"] : [])
            if arguments.has("--help") {
                print(subcommand.usage)
                return 0
            }
            client = try Commands.client(arguments, environment: environment, readOnly: false)
            request = try read(subcommand, arguments)
        } catch {
            Output.error("overlayd token \(name): \(error)\n\(subcommand.usage)")
            return 2
        }
        do {
            try await perform(request, client)
            return 0
        } catch {
            return report(error, command: "overlayd token \(name)", url: client.url.absoluteString)
        }
    }

    /// The request a subcommand's arguments make; flags the server reads (`--expires`, the
    /// pattern and access of a grant) go as written, so that it says why a bad one is bad.
    static func read(_ subcommand: Subcommand, _ arguments: Arguments) throws(UsageError) -> Request {
        switch subcommand {
        case .add:
            guard arguments.operands.isEmpty else {
                throw UsageError("add takes no operand: \(arguments.operands.joined(separator: " "))")
            }
            guard let label = arguments["--label"] else { throw UsageError("--label is required") }
            let grants = try arguments.all("--grant").map { (text) throws(UsageError) in try grant(text) }
            guard !grants.isEmpty else { throw UsageError("--grant is required (PATTERN=ACCESS, e.g. builds-*=write)") }
            let expiry: NewToken.Expiry
            switch (arguments["--expires"], arguments["--expires-at"]) {
            case (nil, nil): expiry = .never
            case (let wait?, nil): expiry = .wait(wait)
            case (nil, let text?):
                guard let seconds = Int64(text) else {
                    throw UsageError("--expires-at must be a Unix time in whole seconds, not \"\(text)\"")
                }
                expiry = .at(Date(timeIntervalSince1970: Double(seconds)))
            case (.some, .some): throw UsageError("give --expires or --expires-at, not both")
            }
            return .add(NewToken(label: label, grants: grants, admin: arguments.has("--admin"), expires: expiry))
        case .list:
            guard arguments.operands.isEmpty else {
                throw UsageError("list takes no operand: \(arguments.operands.joined(separator: " "))")
            }
            return .list
        case .show, .revoke:
            guard arguments.operands.count == 1, let id = arguments.operands.first, !id.isEmpty else {
                throw UsageError("\(subcommand.rawValue) takes one ID (tok_…)")
            }
            return subcommand == .show ? .show(id: id) : .revoke(id: id)
        }
    }

    /// `PATTERN=ACCESS` as a grant; the server checks the pattern and the access name.
    static func grant(_ text: String) throws(UsageError) -> Grant {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw UsageError("--grant must be PATTERN=ACCESS (builds-*=write, lobby=read), not \"\(text)\"")
        }
        return Grant(channels: String(parts[0]), access: Grant.Access(rawValue: String(parts[1])))
    }

    private static func perform(_ request: Request, _ client: OverlayClient) async throws {
        switch request {
        case .add(let new):
            let (token, secret) = try await client.createToken(new)
            // One write, which a pipe takes whole: a reader that stops after the first line
            // (`head -1`) cannot leave a second write to fail with SIGPIPE and exit status 141.
            Output.write(1, secret + "\n" + token.id + "\n")
            Output.error(
                "overlayd token add: the secret of \(token.id) is shown this once; the server keeps only its hash")
        case .list:
            Output.write(1, table(try await client.tokens()))
        case .show(let id):
            Output.write(1, fields(try await client.token(id: id)))
        case .revoke(let id):
            try await client.revokeToken(id: id)
        }
    }

    /// The exit status of a failed call, its reason on standard error: 2 for the server's
    /// refusal (its message, field, status and code), 1 when there was no overlayd answer.
    static func report(_ error: any Error, command: String, url: String) -> Int32 {
        switch error {
        case OverlayClientError.refused(let refusal):
            let field = refusal.field.map { " (\($0))" } ?? ""
            Output.error("\(command): \(refusal.message)\(field) [\(refusal.status) \(refusal.code)]")
            return 2
        case OverlayClientError.unreachable(let reason):
            Output.error("\(command): \(url) cannot be reached: \(reason)")
            return 1
        default:
            Output.error("\(command): \(url): \(error)")
            return 1
        }
    }
}

// MARK: - Output

extension TokenCommand {
    /// The tokens as a table with a header row, columns two spaces apart.
    static func table(_ tokens: [AccessToken]) -> String {
        let header = ["ID", "LABEL", "GRANTS", "ADMIN", "EXPIRES", "LAST USED"]
        let rows = tokens.map {
            [$0.id, $0.label, grants($0.grants), $0.admin ? "yes" : "no", expiry($0.expiresAt), lastUse($0.lastUsedAt)]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        return ([header] + rows).map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line +=
                    column == row.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }
            return line + "\n"
        }.joined()
    }

    /// One token's fields, one a line, the values lined up.
    static func fields(_ token: AccessToken) -> String {
        let lines = [
            ("id", token.id), ("label", token.label), ("grants", grants(token.grants)),
            ("admin", token.admin ? "yes" : "no"), ("expires", expiry(token.expiresAt)),
            ("created", rfc3339(token.createdAt)), ("last used", lastUse(token.lastUsedAt)), ("prefix", token.prefix),
        ]
        return lines.map { $0.0 + String(repeating: " ", count: 11 - $0.0.count) + $0.1 + "\n" }.joined()
    }

    /// Grants as `--grant` takes them, comma-separated: `builds-*=write,lobby=read`.
    static func grants(_ grants: [Grant]) -> String {
        grants.map { "\($0.channels)=\($0.access.rawValue)" }.joined(separator: ",")
    }

    static func expiry(_ seconds: Int64?) -> String { seconds.map(rfc3339) ?? "never" }

    static func lastUse(_ seconds: Int64?) -> String { seconds.map(rfc3339) ?? "-" }

    /// Unix seconds as RFC 3339 in UTC (`2026-12-02T10:30:00Z`), by Howard Hinnant's
    /// days-to-civil arithmetic: no formatter, locale or time zone database is involved.
    static func rfc3339(_ seconds: Int64) -> String {
        var (days, time) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if time < 0 {
            days -= 1
            time += 86_400
        }
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ number: Int64, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(time / 3600, 2)):"
            + "\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2))Z"
    }
}
