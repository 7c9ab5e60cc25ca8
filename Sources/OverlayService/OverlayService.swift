import MicroHTTP
import OverlayEngine
import OverlayPublisher
import OverlayStore
import Platform
import SignedToken
import Synchronization

/// The overlay service: routes HTTP requests to the channels' engines and answers in JSON.
///
/// `handle(_:_:)` is the one dispatch: `OverlayServer` puts it behind libmicrohttpd, where a
/// long-poll or an event stream answers later, and route tests call it with a detached
/// responder. Each handler is given what it uses (`MessageHandlers`, `OverlayHandlers`, …).
public final class OverlayService: Sendable {
    public let configuration: ServiceConfiguration
    let clock: ServiceClock
    let scheduler: DeadlineScheduler
    let channels: ChannelRegistry
    let encoder: OverlayEncoder
    let store: OverlayStore?
    let guardian: AccessGuard
    let router: Router
    let metrics: Metrics
    let preview: PreviewPage
    let previewFont: PreviewFont
    let module: OverlaydModule
    let messages: MessageHandlers
    let webhooks: WebhookHandlers
    let overlays: OverlayHandlers
    let settings: SettingHandlers
    let touches: TouchHandlers
    let statusBars: StatusBarHandlers
    let clocks: ClockHandlers
    let channelList: ChannelHandlers
    let serverInfo: ServerHandlers
    let tokens: TokenHandlers
    /// Readers held with a credential that can end, to end with it.
    let held: HeldReaders
    /// What the channels' messages hold, against `limits.maxMemoryBytes`.
    let memory: MemoryAccount
    /// Sends every new version to `configuration.publish`, when set.
    let publisher: Publisher<OverlaySnapshot>?
    /// Every event stream the service sends, each under its channel's group: the server's
    /// registry too (`OverlayServer` hands it over), which ends them at its stop and sweep.
    let streams = StreamRegistry()

    public static let version = "0.1.0"

    /// The service, with its state restored from the data directory unless `ephemeral`. A data
    /// directory that cannot be used (unreadable, damaged, or in use) is an error.
    public convenience init(configuration: ServiceConfiguration) throws(StoreError) {
        try self.init(configuration: configuration, wallSeconds: { WallClock.nanoseconds() / 1_000_000_000 })
    }

    /// The service with `wallSeconds` as the wall clock credentials expire on (tests move it).
    init(configuration: ServiceConfiguration, wallSeconds: @escaping @Sendable () -> Int64) throws(StoreError) {
        let clock = ServiceClock(mode: configuration.clock)
        let router = Router(routes: OverlayService.routes)
        self.router = router
        metrics = Metrics(routeLabels: router.routeLabels)
        let encoder = OverlayEncoder(streamBufferBytes: configuration.eventBufferBytes)
        let engine = {
            var engine = configuration.engineConfiguration
            engine.wallClockEpoch = clock.epoch
            return engine
        }()
        let memory = MemoryAccount(limit: configuration.maxMemoryBytes)
        self.memory = memory
        let store = configuration.ephemeral ? nil : try OverlayStore(directory: configuration.dataDirectory)
        let loaded = try store?.load() ?? []
        let scheduler = DeadlineScheduler()
        let publisher = OverlayPublishing.make(configuration, encoder: encoder)
        self.publisher = publisher
        self.configuration = configuration
        self.clock = clock
        self.scheduler = scheduler
        self.encoder = encoder
        self.store = store
        let registry = try TokenRegistry(store: store?.tokens, limit: configuration.maxTokens)
        var signed: SignedTokens?
        if let jwt = configuration.jwt {
            do throws(SignedTokenKeyError) {
                signed = try SignedTokens(jwt)
            } catch {
                throw StoreError("access.jwt.key: \(error)")
            }
        }
        let guardian = AccessGuard(
            configuration: configuration, tokens: registry, signed: signed, wallSeconds: wallSeconds)
        self.guardian = guardian
        held = HeldReaders(scheduler: scheduler, wallSeconds: wallSeconds) { id in
            registry.entry(id: id, now: wallSeconds()) != nil
        }
        self.preview = PreviewPage()
        self.previewFont = PreviewFont(path: configuration.text.path)
        self.module = OverlaydModule(configuration: configuration)
        let streams = self.streams
        let restored = loaded.enumerated().map { number, channel in
            let restart = OverlayEngine.restored(
                configuration: engine, state: channel.state, live: channel.live, history: channel.history,
                devices: configuration.devices, now: clock.now())
            return Channel(
                name: channel.name, number: number, engine: restart.value, restarted: restart.changes, clock: clock,
                scheduler: scheduler, encoder: encoder, store: store, streams: streams, publisher: publisher,
                devices: configuration.devices, memory: memory)
        }
        self.channels = ChannelRegistry(
            limit: max(configuration.maxChannels, restored.count), readerLimit: configuration.maxChannels,
            restored: restored, fresh: { OverlayEngine(configuration: engine, now: clock.now()) }
        ) { name, number in
            Channel(
                name: name, number: number,
                engine: OverlayEngine(configuration: engine, now: clock.now(), version: clock.firstVersion()),
                clock: clock, scheduler: scheduler, encoder: encoder, store: store, streams: streams,
                publisher: publisher, devices: configuration.devices, memory: memory)
        }
        let channels = self.channels
        messages = MessageHandlers(
            channels: channels, metrics: metrics, maxPageBytes: configuration.maxPageBytes, memory: memory)
        webhooks = WebhookHandlers(
            channels: channels, metrics: metrics, memory: memory, templates: configuration.webhookTemplates,
            githubSecret: configuration.githubSecret.map { Array($0.utf8) }, priorities: engine.priorities)
        overlays = OverlayHandlers(channels: channels, encoder: encoder)
        settings = SettingHandlers(channels: channels, encoder: encoder, devices: configuration.devices)
        touches = TouchHandlers(channels: channels, encoder: encoder, memory: memory)
        statusBars = StatusBarHandlers(channels: channels, encoder: encoder, configuration: engine.statusBar)
        clocks = ClockHandlers(clock: clock, channels: channels, engine: engine)
        channelList = ChannelHandlers(channels: channels)
        tokens = TokenHandlers(guardian: guardian, held: held)
        serverInfo = ServerHandlers(
            clock: configuration.clock, endpoints: router.endpoints, channels: channels,
            metrics: metrics, authFailures: guardian.failures, memory: memory,
            publisher: publisher)
        store?.start { name, stored in channels.existing(name)?.rollBack(stored: stored) }
        // The restored channels are stored as this run holds them before anything else happens:
        // a failed commit goes back to what the database holds, which must be this run's state.
        if let store, !loaded.isEmpty, !store.flush() {
            scheduler.stop()
            store.close()
            publisher?.stop(grace: 0)
            throw StoreError("\(store.path) cannot be written: storing the restored state failed")
        }
        // Restored channels schedule their deadlines at once.
        for channel in restored { channel.advanceToNow() }
        // A restart moves every stored channel to a new version: subscribers of the endpoint learn
        // of it at once, not at the channel's next change.
        if let publisher {
            for channel in restored {
                if let overlay = try? channel.withEngine({ engine, now in engine.overlay(at: now) }) {
                    publisher.offer(channel: channel.name, version: overlay.version, payload: overlay)
                }
            }
        }
        Self.scheduleHeartbeat(
            every: Int64(configuration.heartbeatSeconds * 1e9), on: scheduler, tokens: guardian.tokens,
            channels: channels)
    }

    /// A service let go without `stop` (a test's direct calls) ends its readers and stops its
    /// timer thread, so that nothing it made outlives it (a stream listed in its registry and the
    /// registry hold each other until the stream ends); after a stop there is nothing left to end.
    deinit {
        releaseReaders()
        scheduler.stop()
    }

    /// Waits until every change so far is on disk.
    public func flush() {
        store?.flush()
    }

    /// Answers every waiting long-poll 503 and ends every event stream: readers do not hold up a
    /// stop. Writes waiting for their commit are left to finish.
    public func releaseReaders() {
        for channel in channels.all { channel.releaseReaders() }
    }

    /// Stops the timer thread and closes the store. The service answers no deadline after this.
    public func shutdown() {
        guardian.tokens.waitForStoredUses()
        guardian.tokens.storeUses()
        scheduler.stop()
        store?.close()
        publisher?.stop(grace: 1)
    }

    /// Answers one request, now or (long-poll, events) later, through the server's responder (or
    /// a test's). Returns what the server counts and logs the request under: its route's label
    /// and who made it.
    @discardableResult
    public func handle(_ request: HTTPRequest, _ responder: any HTTPAnswering) -> RequestLabels {
        var principal: Principal?
        var labels = RequestLabels()
        // Switched on where it is made: handed to a function, the answer would be copied out.
        switch routed(request, &labels, &principal) {
        case .response(let response):
            responder.respond(response)
        case .durable(let response, let sequence):
            guard let store, let sequence else {
                responder.respond(response)
                return labels
            }
            store.whenDurable(sequence) { stored in
                responder.respond(stored ? response : OverlayService.notStored.response)
            }
        case .wait(var channel, let since, let seconds):
            responder.endIfClientLeaves()
            if let principal { held.hold(.poll(responder), by: principal, lasts: seconds) }
            // A channel only readers made may be let go between finding it and joining it: then
            // the registry is asked again (and makes a new one).
            while !channel.wait(since: since, seconds: seconds, responder: responder) {
                do throws(APIError) {
                    channel = try channels.obtainForReading(channel.name)
                } catch {
                    responder.respond(error.response)
                    return labels
                }
            }
        case .events(var channel, let lastEventID):
            guard let stream = responder.stream(status: 200, headers: OverlayService.eventHeaders) else {
                return labels
            }
            // Tell EventSource clients to reconnect after a second, not the default three.
            stream.send(Array("retry: 1000\n\n".utf8))
            if let principal { held.hold(.stream(stream), by: principal) }
            while !channel.subscribe(stream, lastEventID: lastEventID) {
                guard let again = try? channels.obtainForReading(channel.name) else {
                    stream.end()
                    return labels
                }
                channel = again
            }
        }
        return labels
    }

    /// The answer to a write whose commit failed: the change was undone, in memory and on disk.
    static let notStored = APIError(
        status: 503, code: "storage_failed",
        message: "the change could not be written to disk and was undone; see the server's log",
        headers: [Header(name: "Retry-After", value: "1")])

    static let eventHeaders = [
        Header(name: "Content-Type", value: "text/event-stream; charset=utf-8"),
        Header(name: "Cache-Control", value: "no-cache"),
        // nginx buffers responses unless told not to; an event stream must flow.
        Header(name: "X-Accel-Buffering", value: "no"),
    ]

    /// The route table's answer, after the access check the route asks for, on the channel it
    /// addresses. A request that matches no route is checked as its method implies (a write needs
    /// write access), so that what exists is not told to a client without the access.
    private func routed(
        _ request: HTTPRequest, _ labels: inout RequestLabels, _ principal: inout Principal?
    ) -> Routed {
        do throws(APIError) {
            switch router.resolve(request) {
            case .route(let route, var parameters):
                labels.route = parameters.label
                // With access.tokens off the token API is not there: 404 to everyone, as any unknown path.
                if route.path.hasPrefix("/tokens"), !configuration.tokensEnabled {
                    throw APIError.notFound("the token API is off here (access.tokens: false)")
                }
                let checked = try guardian.check(
                    request, route.access, channel: accessChannel(route, request, parameters),
                    resolved: { labels.principal = $0.logName })
                principal = checked
                parameters.principal = checked
                return try route.handler(self, request, parameters)
            case .options(let group):
                labels.route = group.label
                try guardian.crossOrigin.checkHost(request)
                return .response(
                    HTTPResponse(
                        status: 204,
                        headers: [group.allowHeader] + guardian.crossOrigin.preflightHeaders(allowing: group.allowed)))
            case .methodNotAllowed(let group):
                labels.route = group.label
                let access = group.isOpen ? .open : AccessGuard.impliedAccess(of: request.method)
                try guardian.check(request, access, channel: ChannelRegistry.defaultName[...])
                throw APIError.methodNotAllowed(request.method, allowed: group.allowed)
            case .refused(let error):
                try guardian.check(request, AccessGuard.impliedAccess(of: request.method), channel: "")
                throw error
            }
        } catch {
            return .response(error.response)
        }
    }

    /// The channel a route's access is checked on: its own, or for `/events` without a prefix
    /// the one its `channel` parameter names (as its handler reads it, `/events/` included).
    private func accessChannel(_ route: Route, _ request: HTTPRequest, _ parameters: RouteParameters) -> Substring {
        if route.path == "/events", !parameters.prefixed,
            let named = request.query.first(where: { $0.name == "channel" })?.value
        {
            return Substring(String(decoding: named, as: UTF8.self))
        }
        return parameters.channel[...]
    }

    /// The heartbeat: what it uses, captured strongly as every scheduler entry is (a weak
    /// reference would give each a side table and slow its retains), but never the service, so
    /// that the service is freed when its owner lets it go.
    private static func scheduleHeartbeat(
        every interval: Int64, on scheduler: DeadlineScheduler, tokens: TokenRegistry, channels: ChannelRegistry
    ) {
        scheduler.schedule(.heartbeat, at: MonotonicClock.nanoseconds() + interval) {
            let comment = Array(": heartbeat\n\n".utf8)
            tokens.storeUsesLater()
            for channel in channels.all { channel.heartbeat(comment) }
            scheduleHeartbeat(every: interval, on: scheduler, tokens: tokens, channels: channels)
        }
    }
}

extension HTTPResponse {
    /// A JSON answer; `headers` replaces the usual `[.json]` (and should include it).
    static func json(_ status: Int, headers: [Header] = [.json], _ write: (inout JSONWriter) -> Void) -> HTTPResponse {
        var writer = JSONWriter()
        write(&writer)
        return HTTPResponse(status: status, headers: headers, body: writer.bytes)
    }
}
