import Crypto
import Testing

/// HMAC-SHA256 against RFC 4231's test cases (case 5 is a truncated MAC, which this API does not
/// make).
@Suite("HMAC-SHA256")
struct HMACTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let message: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(
            name: "RFC 4231 case 1", key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "RFC 4231 case 2: a key shorter than the output", key: Array("Jefe".utf8),
            message: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "RFC 4231 case 3", key: [UInt8](repeating: 0xaa, count: 20),
            message: [UInt8](repeating: 0xdd, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "RFC 4231 case 4", key: Array(1...25), message: [UInt8](repeating: 0xcd, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "RFC 4231 case 6: a key longer than the block", key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "RFC 4231 case 7: key and message longer than the block", key: [UInt8](repeating: 0xaa, count: 131),
            message: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        // Not in the RFC: Python's hmac module gives this for an empty key and message.
        Vector(
            name: "empty key and message", key: [], message: [],
            mac: "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ]

    /// Each case's MAC.
    @Test(arguments: vectors)
    func vector(_ vector: Vector) {
        #expect(HMAC.sha256(key: vector.key, message: vector.message) == Hex.bytes(vector.mac))
    }

    /// One bit flipped in the key or the message, or a byte more of message, gives another MAC; a
    /// zero byte more of key does not, as RFC 2104 pads a short key with zeros to the block size.
    @Test func everyBitCounts() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        let message = Array("Hi There".utf8)
        let mac = HMAC.sha256(key: key, message: message)
        var flippedKey = key
        flippedKey[19] ^= 1
        #expect(HMAC.sha256(key: flippedKey, message: message) != mac)
        var flippedMessage = message
        flippedMessage[0] ^= 1
        #expect(HMAC.sha256(key: key, message: flippedMessage) != mac)
        #expect(HMAC.sha256(key: key, message: message + [0]) != mac)
        #expect(HMAC.sha256(key: key + [0], message: message) == mac)
    }
}
