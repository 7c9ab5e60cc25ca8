import Crypto
import Testing

/// `ConstantTime.equals` answers what `==` answers, for every kind of pair.
@Suite("Constant-time equality")
struct ConstantTimeTests {
    struct Pair: Sendable, CustomTestStringConvertible {
        let name: String
        let a: [UInt8]
        let b: [UInt8]
        let equal: Bool
        var testDescription: String { name }
    }

    static let mac = HMAC.sha256(key: Array("key".utf8), message: Array("message".utf8))

    static let pairs: [Pair] = [
        Pair(name: "both empty", a: [], b: [], equal: true),
        Pair(name: "the same bytes", a: mac, b: mac, equal: true),
        Pair(name: "equal copies", a: Array("secret".utf8), b: Array("secret".utf8), equal: true),
        Pair(name: "first byte differs", a: mac, b: [mac[0] ^ 1] + mac.dropFirst(), equal: false),
        Pair(name: "last byte differs", a: mac, b: mac.dropLast() + [mac[31] ^ 0x80], equal: false),
        Pair(name: "a prefix", a: mac, b: Array(mac.prefix(31)), equal: false),
        Pair(name: "a longer copy", a: mac, b: mac + [0], equal: false),
        Pair(name: "empty against bytes", a: [], b: mac, equal: false),
        Pair(name: "bytes against empty", a: mac, b: [], equal: false),
        Pair(name: "one zero against empty", a: [0], b: [], equal: false),
    ]

    /// The truth table, both ways round, and in agreement with `==`.
    @Test(arguments: pairs)
    func truthTable(_ pair: Pair) {
        #expect(ConstantTime.equals(pair.a, pair.b) == pair.equal)
        #expect(ConstantTime.equals(pair.b, pair.a) == pair.equal)
        #expect((pair.a == pair.b) == pair.equal)
    }
}
