import OverlayEngine

/// What a principal may do on one channel: read, write, both or nothing.
struct ChannelAccess: OptionSet, Sendable, Hashable {
    let rawValue: UInt8

    static let read = ChannelAccess(rawValue: 1)
    static let write = ChannelAccess(rawValue: 2)
    static let readWrite: ChannelAccess = [.read, .write]

    /// How an error message names the access that is missing.
    var name: String {
        switch self {
        case .read: "read"
        case .write: "write"
        case .readWrite: "read-write"
        default: "no"
        }
    }
}

/// The access a grant gives the channels its pattern matches; `deny` takes every access away.
enum GrantAccess: String, Sendable, Hashable, CaseIterable {
    case read
    case write
    case readWrite = "read-write"
    case deny

    var access: ChannelAccess {
        switch self {
        case .read: .read
        case .write: .write
        case .readWrite: .readWrite
        case .deny: []
        }
    }
}

/// A channel name in which `*` stands for any run of name characters, the empty run included.
/// Every other character matches itself only, case-sensitively.
struct ChannelPattern: Sendable, Hashable, CustomStringConvertible {
    let text: String
    /// The characters other than `*`: the more, the more specific the pattern.
    let specificity: Int
    private let bytes: [UInt8]

    /// The pattern, or nil when `text` is not 1–64 of `A-Z a-z 0-9 . _ -` and `*`.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard (1...64).contains(bytes.count), bytes.allSatisfy({ $0 == UInt8(ascii: "*") || Name.isNameByte($0) })
        else { return nil }
        self.text = text
        self.bytes = bytes
        specificity = bytes.count { $0 != UInt8(ascii: "*") }
    }

    static let everything = ChannelPattern("*")!

    var description: String { text }

    /// Whether `name` is one of the channels the pattern stands for. The classic two-pointer
    /// glob match: a `*` remembers where to resume, so no input makes it backtrack more than linearly
    /// per star.
    func matches(_ name: some StringProtocol) -> Bool {
        // `*` alone, the commonest grant, matches without a look at the name.
        if bytes.count == 1 && bytes[0] == UInt8(ascii: "*") { return true }
        var name = String(name)
        return name.withUTF8 { matches($0, UInt8(ascii: "*")) }
    }

    private func matches(_ name: UnsafeBufferPointer<UInt8>, _ star: UInt8) -> Bool {
        var p = 0
        var n = 0
        var resumePattern = -1
        var resumeName = 0
        while n < name.count {
            if p < bytes.count && bytes[p] != star && bytes[p] == name[n] {
                p += 1
                n += 1
            } else if p < bytes.count && bytes[p] == star {
                resumePattern = p
                resumeName = n
                p += 1
            } else if resumePattern >= 0 {
                p = resumePattern + 1
                resumeName += 1
                n = resumeName
            } else {
                return false
            }
        }
        while p < bytes.count && bytes[p] == star { p += 1 }
        return p == bytes.count
    }
}

/// One grant: the channels a pattern matches, and the access it gives them.
struct Grant: Sendable, Hashable {
    let channels: ChannelPattern
    let access: GrantAccess

    init(_ channels: ChannelPattern, _ access: GrantAccess) {
        self.channels = channels
        self.access = access
    }
}

/// A principal's grants, and the one rule that resolves them: of the grants whose pattern matches
/// a channel, the most specific decides; among equally specific ones `deny` wins, else their
/// accesses add up; no matching grant is no access.
struct Grants: Sendable, Hashable {
    let list: [Grant]

    init(_ list: [Grant]) {
        self.list = list
    }

    static let none = Grants([])
    static let readWriteAll = Grants([Grant(.everything, .readWrite)])
    static let readAll = Grants([Grant(.everything, .read)])
    static let writeAll = Grants([Grant(.everything, .write)])

    /// The access to the channel `name`.
    func access(to name: some StringProtocol) -> ChannelAccess {
        var best = -1
        var access: ChannelAccess = []
        var denied = false
        for grant in list where grant.channels.specificity >= best && grant.channels.matches(name) {
            if grant.channels.specificity > best {
                best = grant.channels.specificity
                access = []
                denied = false
            }
            if grant.access == .deny { denied = true }
            access.formUnion(grant.access.access)
        }
        return denied ? [] : access
    }

    /// Whether `access` holds on every channel there is: a `*` grant gives it, and no grant (more
    /// specific, or a `deny`) takes it away anywhere. What `/metrics`, `GET /` (read) and the clock
    /// (write) need, since they see or change every channel at once.
    func coversEverything(_ access: ChannelAccess) -> Bool {
        // Only patterns of stars alone match the name "*", which no channel has: what they give is
        // what every channel starts from. Each other pattern decides for the channels it matches
        // best, with at least what its own grants add up to: a pattern whose grants lack the
        // access takes it away somewhere.
        guard self.access(to: "*").isSuperset(of: access) else { return false }
        var byPattern: [String: (access: ChannelAccess, denied: Bool)] = [:]
        for grant in list where grant.channels.specificity > 0 {
            var entry = byPattern[grant.channels.text, default: ([], false)]
            entry.access.formUnion(grant.access.access)
            if grant.access == .deny { entry.denied = true }
            byPattern[grant.channels.text] = entry
        }
        return byPattern.values.allSatisfy { !$0.denied && $0.access.isSuperset(of: access) }
    }
}
