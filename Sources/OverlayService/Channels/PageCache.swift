import MicroHTTP
import Platform

/// The page of `GET /messages` a channel built last, kept for every reader that asks for the same
/// page at the same version: a thousand readers of one large page share one copy of it (and one
/// response in libmicrohttpd), as readers of the overlay share its answer.
final class PageCache: Sendable {
    /// What a page depends on besides the channel's version.
    struct Query: Hashable, Sendable {
        let after: Int64?
        let limit: Int
        var listing: MessageListing = .live
    }

    private struct Entry {
        let version: UInt64
        let query: Query
        let response: HTTPResponse
    }

    private let last = Lock<Entry?>(nil)

    /// The page kept for `query` at `version`, if it is the one kept.
    func page(_ query: Query, at version: UInt64) -> HTTPResponse? {
        last.withLock { entry in
            guard let entry, entry.version == version, entry.query == query else { return nil }
            return entry.response
        }
    }

    /// Keeps `response` as the page for `query` at `version`, unless one of a later version is kept.
    func keep(_ response: HTTPResponse, for query: Query, at version: UInt64) {
        last.withLock { entry in
            if let entry, entry.version > version { return }
            entry = Entry(version: version, query: query, response: response)
        }
    }
}
