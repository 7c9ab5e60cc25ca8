import Testing

@testable import SignedToken

/// The strict reader of headers and payloads, and the base64url decoder, on their own: what they
/// take, what they refuse, and why each refusal matters to a token.
@Suite("Reading a token's parts")
struct JSONObjectReaderTests {
    static func members(_ text: String) -> [String: JSONObjectReader.Value]? {
        JSONObjectReader.members(of: Array(text.utf8))
    }

    /// Top-level strings are read with their escapes resolved; other values are only skipped.
    @Test func members() {
        #expect(Self.members("{}") == [:])
        #expect(
            Self.members(#" {"alg" : "HS256", "n": -1.5e3, "a": [1, {"b": null}], "t": true} "#)
                == ["alg": .string("HS256"), "n": .other, "a": .other, "t": .other])
        #expect(Self.members(#"{"\u0061lg":"\u0048S256"}"#) == ["alg": .string("HS256")])
        #expect(Self.members(#"{"e":"\"\\\/\b\f\n\r\t"}"#) == ["e": .string("\"\\/\u{8}\u{c}\n\r\t")])
        #expect(Self.members(#"{"name":"Zo\u00eb \ud83d\ude00","raw":"Zoë 😀"}"#)?["name"] == .string("Zoë 😀"))
        #expect(Self.members(#"{"big":9223372036854775807,"small":-9223372036854775808,"r":1e308}"#) != nil)
    }

    /// Anything but one object, and every leniency that would let two readers differ, is refused.
    @Test(arguments: [
        "", " ", "[]", "1", #""alg""#, "null", "{", "}", #"{"a":1}{"#, #"{"a":1} x"#, "{\"a\":1}\0",
        #"{"a" 1}"#, #"{"a":}"#, #"{"a":1,}"#, #"{,}"#, #"{'a':1}"#, #"{a:1}"#, #"{"a":1 "b":2}"#,
        #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"o":{"x":1,"x":2}}"#,
        #"{"a":01}"#, #"{"a":-}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":1e}"#, #"{"a":+1}"#, #"{"a":0x10}"#,
        #"{"a":9223372036854775808}"#, #"{"a":-9223372036854775809}"#, #"{"a":1e400}"#,
        #"{"a":NaN}"#, #"{"a":tru}"#, #"{"a":True}"#, #"{"a":nul}"#, #"{"a":[1,]}"#, #"{"a":[1 2]}"#,
        #"{"a":"\u0000"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":"\x41"}"#,
        #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, "{\"a\":\"tab\there\"}", "{\"a\":\"line\nbreak\"}", #"{"a":"open}"#,
        "\u{FEFF}{}",
    ])
    func refused(_ text: String) {
        #expect(Self.members(text) == nil)
    }

    /// Invalid UTF-8 is refused, inside a string or out.
    @Test func invalidUTF8() {
        #expect(JSONObjectReader.members(of: Array(#"{"a":""#.utf8) + [0xff] + Array(#""}"#.utf8)) == nil)
        #expect(JSONObjectReader.members(of: Array(#"{"a":""#.utf8) + [0xc0, 0xaf] + Array(#""}"#.utf8)) == nil)
        #expect(JSONObjectReader.members(of: Array(#"{"a":""#.utf8) + [0xed, 0xa0, 0x80] + Array(#""}"#.utf8)) == nil)
    }

    /// Nesting is allowed to 32 levels and refused beyond, so that no payload can recurse deep.
    @Test func depth() {
        func nested(_ levels: Int) -> String {
            "{\"a\":" + String(repeating: "[", count: levels - 1) + String(repeating: "]", count: levels - 1) + "}"
        }
        #expect(Self.members(nested(JSONObjectReader.maximumDepth)) != nil)
        #expect(Self.members(nested(JSONObjectReader.maximumDepth + 1)) == nil)
        #expect(Self.members(nested(100_000)) == nil)
    }

    /// base64url is decoded in its one canonical spelling only.
    @Test func base64URL() {
        func decode(_ text: String) -> [UInt8]? { Base64URL.decode(Array(text.utf8)[...]) }
        #expect(decode("") == [])
        #expect(decode("YQ") == Array("a".utf8))
        #expect(decode("YWI") == Array("ab".utf8))
        #expect(decode("YWJj") == Array("abc".utf8))
        #expect(decode("-_-_") == [0xfb, 0xff, 0xbf])
        // Padding, the standard alphabet, a lone last character, bits set past the data.
        for text in ["YQ==", "YQ=", "+/+/", "YWJjZ", "YR", "YWJ", "YWK", "YW J", "YQ\n"] {
            #expect(decode(text) == nil, "\(text)")
        }
    }
}
