import OverlayEngine

/// Whose clock the overlay runs on (MODEL §6).
public enum ClockMode: String, CaseIterable, Hashable, Sendable {
    /// Seconds since start on the monotonic clock; timers fire on their own.
    case real
    /// Starts at 0 and moves only by `POST /clock`.
    case manual
}

/// Everything overlayd is configured with. The defaults are the embedded defaults: the same as
/// `config/overlayd.json`, which a test keeps true.
public struct ServiceConfiguration: Hashable, Sendable, CustomStringConvertible {
    public var host = "127.0.0.1"
    public var port = 8080
    public var clock = ClockMode.real
    public var dataDirectory = "./data"
    public var ephemeral = false
    /// libmicrohttpd's thread pool.
    public var threads = 2
    public var accessLog = AccessLogFormat.text
    /// Every device a channel may be set to, by name.
    public var devices: [String: DeviceProfile] = Dictionary(
        uniqueKeysWithValues: DeviceProfile.builtIn.map { ($0.name, $0) })
    /// The device new channels start on, by name.
    public var device = DeviceProfile.ipad.name
    /// The engine's settings; its `device` is resolved from `device` and `devices` by `engineConfiguration`.
    public var engine = EngineConfiguration()
    /// The font texts are measured with, and their sizes; the engine is given its measure.
    public var text = TextFont()
    public var maxBodyBytes = 16 * 1024
    /// Connections open at once.
    public var connectionLimit = 1024
    /// Seconds a connection may stay idle.
    public var connectionTimeout = 30
    /// Channels that may exist at once, `default` included.
    public var maxChannels = 1000
    /// Bytes an event stream may hold for a slow reader before it keeps only the latest event.
    public var eventBufferBytes = 64 * 1024
    /// About the most an event stream's connection holds in the kernel's send queue for a reader
    /// that does not read; 0 leaves it at `sendBufferBytes`.
    public var streamSendBufferBytes = 64 * 1024
    /// About the most any connection holds in the kernel's send queue (the kernel doubles it for
    /// its bookkeeping); 0 leaves the kernel's own sizing. An event stream's is smaller still.
    public var sendBufferBytes = 128 * 1024
    /// The most bytes a page of `GET /messages` holds (at least one message); `next` goes on.
    public var maxPageBytes = 1 << 20
    /// Seconds between the comment lines that keep an idle event stream open.
    public var heartbeatSeconds = 15.0
    /// Connections open at once from one address; 0 is no limit. Bounds what one client can
    /// hold (slowloris) well below `connectionLimit`.
    public var connectionsPerClient = 256
    /// Per-connection memory for the request head and buffers (a head that does not fit is refused).
    /// Every open connection keeps it, idle readers too: 8 KiB takes heads up to about 7.5 KB and
    /// keeps an idle event stream near 10 KB all told.
    public var connectionMemoryBytes = 8 * 1024
    /// Writes per second a client (by address) may make on average; 0 turns the limit off.
    public var writesPerSecond = 100.0
    /// Writes a client may make at once before the average applies.
    public var writeBurst = 200
    /// When set, every write needs `Authorization: Bearer <token>`. Never logged.
    public var token: String?
    /// When set, reads need it (or the write token) too; `/healthz` stays open.
    public var readToken: String?
    /// `access.anonymous`: what a request without a credential may do; nil derives it from the
    /// tokens as before grants existed (write unless `token` is set, read unless `readToken` is).
    var anonymousAccess: Grants?
    /// `access.jwt`: signed tokens, when set.
    public var jwt: SignedTokenSettings?
    /// `access.tokens`: whether the token API (`/tokens`) is there; off, it answers 404.
    public var tokensEnabled = true
    /// Seconds after which a channel other than `default` that holds nothing (nothing shown,
    /// queued or scheduled) and that nobody reads is deleted; 0 keeps channels.
    public var channelIdleSeconds = 0.0
    /// What every channel's messages may hold in all, in bytes of memory (`MessageMemory`).
    public var maxMemoryBytes = 1 << 30
    /// Created tokens that may be live at once.
    public var maxTokens = 10_000
    /// The largest body of a write through a template (`?template=`): tools send more than a message.
    public var webhookBodyBytes = 1 << 20
    /// `webhooks.github.secret`: when set, GitHub deliveries must carry its signature. Never logged.
    public var githubSecret: String?
    /// `webhooks.templates`: the operator's own templates, by name.
    var webhookTemplates: [String: WebhookTemplate] = [:]
    /// Origins whose pages may read overlayd from a browser (CORS): `*` for any, or origins by
    /// name (`https://dash.example`), which may also write without a token. Empty: no CORS headers.
    public var corsAllowOrigins = ["*"]
    /// Host names a request may name besides loopback ones while listening on loopback (the
    /// DNS-rebinding check); `.lan` allows `lan` and every name under it.
    public var allowedHosts: [String] = []
    /// Settings a later source set over an earlier one (`host: OVERLAYD_HOST overrides
    /// /etc/overlayd/overlayd.json`), for the start-up log: which source won is never silent.
    public var overrides: [String] = []
    /// When set, every new version of a channel is POSTed to this URL, `{channel}` replaced by the
    /// channel's name (an nchan publisher endpoint; docs/SCALING.md).
    public var publish: String?
    /// Versions that may wait to be published per channel before the oldest gives way.
    public var publishQueue = 16

    public init() {}

    /// Never shows the tokens.
    public var description: String {
        "ServiceConfiguration(host: \(host), port: \(port), clock: \(clock.rawValue), token: "
            + "\(token == nil ? "none" : "set"), readToken: \(readToken == nil ? "none" : "set"))"
    }

    /// The grants of a request without a credential.
    var anonymousGrants: Grants {
        if let anonymousAccess { return anonymousAccess }
        switch (token != nil, readToken != nil) {
        case (false, false): return .readWriteAll
        case (true, false): return .readAll
        case (false, true): return .writeAll
        case (true, true): return .none
        }
    }

    /// The engine's settings with the configured device's profile.
    public var engineConfiguration: EngineConfiguration {
        var resolved = engine
        if let profile = devices[device] { resolved.device = profile }
        // The loader refuses a font that cannot be loaded (exit 2): only a configuration built in
        // code, not loaded, can get here with one, and it measures nothing.
        resolved.text = (try? text.metrics()) ?? .unmeasured
        return resolved
    }
}

/// A configuration that cannot be used, naming the key, variable or flag at fault.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var key: String
    public var reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(key): \(reason)" }
}
