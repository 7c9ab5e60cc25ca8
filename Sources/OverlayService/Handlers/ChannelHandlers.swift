import MicroHTTP
import OverlayEngine

/// `/channels` and `/channels/{name}`: which channels exist, and what each holds.
struct ChannelHandlers: Sendable {
    let channels: ChannelRegistry

    /// The channels the principal may read, and no other.
    func list(_ parameters: RouteParameters) -> HTTPResponse {
        let principal = parameters.principal
        let summaries = channels.all.filter { channel in
            principal.map { $0.access(to: channel.name).contains(.read) } ?? true
        }.compactMap(ChannelSummary.init)
        return HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("channels")
            $0.beginArray()
            for summary in summaries { $0.channel(summary) }
            $0.endArray()
            $0.endObject()
        }
    }

    /// `DELETE /channels/{name}`: the channel and everything it holds go, in memory and on disk;
    /// its readers' long-polls are answered 404 and their streams end. `default` stays (409).
    func delete(_ parameters: RouteParameters) throws(APIError) -> Routed {
        let name = parameters.channel
        guard name != ChannelRegistry.defaultName else {
            throw APIError(
                status: 409, code: "default_channel",
                message: "channel default is always there and cannot be deleted; delete its messages instead",
                field: "name")
        }
        guard let channel = channels.remove(name) else {
            throw .notFound("no channel \(name) (a channel comes into being on its first write)")
        }
        return .durable(HTTPResponse(status: 204), sequence: channel.delete())
    }

    /// No validator: its reader counts change without a new version.
    func summary(_ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let name = parameters.channel
        guard let channel = channels.existing(name), let summary = ChannelSummary(channel) else {
            throw .notFound("no channel \(name) (a channel comes into being on its first write)")
        }
        return HTTPResponse.json(200, headers: [.json, .noStore]) { $0.channel(summary) }
    }
}

/// One channel as `GET /channels` lists it.
struct ChannelSummary: Sendable {
    var name: String
    var version: UInt64
    var phase: Phase
    var queued: Int
    var device: String
    var orientation: Orientation
    /// Event streams open on the channel.
    var subscribers: Int
    /// Long-polls waiting for its next version.
    var waiters: Int

    init?(_ channel: Channel) {
        guard
            let (version, phase, queued, device, orientation) = try? channel.withEngine({ engine, _ in
                (engine.version, engine.phase, engine.queue.count, engine.device.name, engine.orientation)
            })
        else { return nil }
        name = channel.name
        self.version = version
        self.phase = phase
        self.queued = queued
        self.device = device
        self.orientation = orientation
        subscribers = channel.subscriberCount
        waiters = channel.waiterCount
    }
}

extension JSONWriter {
    mutating func channel(_ summary: ChannelSummary) {
        beginObject()
        key("name")
        string(summary.name)
        key("version")
        integer(summary.version)
        key("phase")
        string(summary.phase.rawValue)
        key("queued")
        integer(summary.queued)
        key("device")
        string(summary.device)
        key("orientation")
        string(summary.orientation.rawValue)
        key("subscribers")
        integer(summary.subscribers)
        key("waiters")
        integer(summary.waiters)
        endObject()
    }
}
