import MicroHTTP

/// An input read as flags and requests (the format is described at `RequestDecoderFuzz`).
struct FuzzInput {
    var flags: Set<Character> = []
    var requests: [HTTPRequest] = []

    /// More requests than this in one input only slow the fuzzer down.
    static let maximumRequests = 16

    init(_ bytes: [UInt8]) {
        var rest = bytes[...]
        if rest.first == UInt8(ascii: "#") {
            let end = rest.firstIndex(of: 0x0A) ?? rest.endIndex
            flags = Set(String(decoding: rest[rest.index(after: rest.startIndex)..<end], as: UTF8.self))
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : []
        }
        for block in FuzzInput.split(rest, on: Array("\n%%\n".utf8)).prefix(FuzzInput.maximumRequests) {
            requests.append(FuzzInput.request(block))
        }
    }

    static func split(_ bytes: ArraySlice<UInt8>, on separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var pieces: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + separator.count <= bytes.endIndex {
            if bytes[index..<index + separator.count].elementsEqual(separator) {
                pieces.append(bytes[start..<index])
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(bytes[start...])
        return pieces
    }

    /// `METHOD TARGET`, header lines, an empty line, the body.
    static func request(_ block: ArraySlice<UInt8>) -> HTTPRequest {
        var lines: [ArraySlice<UInt8>] = []
        var body: [UInt8] = []
        var start = block.startIndex
        var index = block.startIndex
        while index < block.endIndex {
            if block[index] == 0x0A {
                var line = block[start..<index]
                if line.last == 0x0D { line = line.dropLast() }
                start = index + 1
                if line.isEmpty && !lines.isEmpty {
                    body = Array(block[start...])
                    break
                }
                lines.append(line)
            }
            index += 1
        }
        if index >= block.endIndex && start < block.endIndex { lines.append(block[start...]) }

        let requestLine = lines.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let parts = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let method = parts.first.map(String.init) ?? "GET"
        let target = parts.count > 1 ? parts[1].utf8[...] : "/".utf8[...]
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        let path = percentDecoded(target[..<(question ?? target.endIndex)])
        var query: [QueryItem] = []
        if let question {
            for item in target[target.index(after: question)...].split(separator: UInt8(ascii: "&")) {
                let equals = item.firstIndex(of: UInt8(ascii: "="))
                query.append(
                    QueryItem(
                        name: percentDecoded(item[..<(equals ?? item.endIndex)]),
                        value: equals.map { percentDecoded(item[item.index(after: $0)...]) }))
            }
        }
        var headers: [Header] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self)
            headers.append(Header(name: name, value: String(value.drop { $0 == " " })))
        }
        return HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: body,
            remoteAddress: "127.0.0.1")
    }

    /// `%XX` decoded (as libmicrohttpd does), then read as UTF-8 with replacement characters.
    static func percentDecoded<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var decoded: [UInt8] = []
        var iterator = Array(bytes)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                decoded.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                decoded.append(byte)
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
