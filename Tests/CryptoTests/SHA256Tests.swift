import Crypto
import Testing

/// SHA-256 against the FIPS 180-2 examples (the NIST CSRC "SHA256.pdf" and Appendix B of FIPS
/// 180-2), through libcrypto.
@Suite("SHA-256")
struct SHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let message: [UInt8]
        let digest: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "empty", message: [], digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(
            name: "abc", message: Array("abc".utf8),
            digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            name: "448 bits", message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(
            name: "896 bits",
            message: Array(
                ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
                    + "lmnopqrsmnopqrstnopqrstu").utf8),
            digest: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    static let millionA = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"

    /// Each vector's digest, as bytes and as hex.
    @Test(arguments: vectors)
    func vector(_ vector: Vector) {
        #expect(SHA256.hash(vector.message) == Hex.bytes(vector.digest))
        #expect(SHA256.hex(SHA256.hash(vector.message)) == vector.digest)
    }

    /// A million 'a': from an array (hashed in place) and from a sequence with no contiguous
    /// storage (hashed a block at a time), the same digest.
    @Test func millionA() {
        let letter = UInt8(ascii: "a")
        #expect(SHA256.hash([UInt8](repeating: letter, count: 1_000_000)) == Hex.bytes(Self.millionA))
        #expect(SHA256.hash(repeatElement(letter, count: 1_000_000)) == Hex.bytes(Self.millionA))
    }

    /// A slice and a lazy sequence hash what they hold, not their base.
    @Test func slicesAndSequences() {
        let abc = Hex.bytes(Self.vectors[1].digest)
        let padded = Array("xxabcxx".utf8)
        #expect(SHA256.hash(padded[2..<5]) == abc)
        #expect(SHA256.hash("abc".utf8) == abc)
        #expect(SHA256.hash(padded.lazy.filter { $0 != UInt8(ascii: "x") }) == abc)
        #expect(SHA256.hash([]).count == SHA256.byteCount)
    }

    /// `hex` spells the bytes it is given, two lowercase digits each; it does not hash them.
    @Test func hex() {
        #expect(SHA256.hex([]) == "")
        #expect(SHA256.hex([0x00, 0x0a, 0xa0, 0xff, 0x5c]) == "000aa0ff5c")
        for vector in Self.vectors { #expect(SHA256.hex(Hex.bytes(vector.digest)) == vector.digest) }
    }
}
