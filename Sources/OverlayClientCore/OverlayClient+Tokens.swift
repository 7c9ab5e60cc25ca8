#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The token API (docs/ACCESS.md): the client's token must be an admin's for all but `whoami`.
/// These calls are the server's, not a channel's: the client's channel does not change them.
extension OverlayClient {
    /// Makes a token; answers it and its secret, which the server shows this once (it keeps only
    /// its SHA-256). A bad field is refused 422 naming it (`grants[1].channels`).
    public func createToken(
        label: String, grants: [Grant], admin: Bool = false, expires: NewToken.Expiry = .never
    ) async throws -> (token: AccessToken, secret: String) {
        try await createToken(NewToken(label: label, grants: grants, admin: admin, expires: expires))
    }

    /// Makes `new`; answers it and its secret.
    public func createToken(_ new: NewToken) async throws -> (token: AccessToken, secret: String) {
        let created: CreatedToken = try await call("POST", "/tokens", body: new, channelled: false)
        return (created.token, created.secret)
    }

    /// Every live token (neither revoked nor expired), without secrets.
    public func tokens() async throws -> [AccessToken] {
        let list: TokenList = try await call("GET", "/tokens", channelled: false)
        return list.tokens
    }

    /// One live token; 404 `not_found` for one revoked, expired or never made.
    public func token(id: String) async throws -> AccessToken {
        try await call("GET", "/tokens/" + Self.escaped(id), channelled: false)
    }

    /// Revokes a token at once: its secret is refused from now on, and its open streams end.
    public func revokeToken(id: String) async throws {
        let (head, data) = try await transport.perform(
            request("DELETE", "/tokens/" + Self.escaped(id), channelled: false))
        // 204 has no body to decode.
        guard (200..<300).contains(head.status) else { throw Self.refusal(head, data) }
    }

    /// Who the client's token names (anonymous without one), and what it may do.
    public func whoami() async throws -> Principal {
        try await call("GET", "/whoami", channelled: false)
    }
}

/// The answer of `GET /tokens`.
struct TokenList: Decodable {
    var tokens: [AccessToken]
}
