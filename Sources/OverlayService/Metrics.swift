import MicroHTTP
import OverlayEngine
import OverlayPublisher
import Platform

/// Counters for `GET /metrics`, in the Prometheus text format.
final class Metrics: Sendable {
    /// Responses by status: counted by the HTTP server as each request completes.
    let responses = ResponseCounts()
    /// Time to each answer, by route pattern and method: recorded by the HTTP server as each
    /// answer is queued (see `RequestDurations`), under the labels of the route table's patterns.
    let durations: RequestDurations
    /// Messages posted, per thread: every POST counts one, from every pool thread.
    private let posted = ShardedCounters(count: 1)

    /// `routeLabels`: the router's (`Router.routeLabels`), which its routes' requests count under.
    init(routeLabels: [String]) {
        durations = RequestDurations(routes: routeLabels)
    }

    /// The compiler's version, fixed at build time: Swift has no runtime query for it.
    static let swiftVersion: String = {
        #if compiler(>=7.0)
            return "7.0+"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }()

    func messagePosted() {
        posted.add(1)
    }

    func render(
        channels: [(name: String, overlay: OverlaySnapshot, subscribers: Int, waiters: Int)],
        publishing: PublisherStatistics? = nil, authFailures: [(reason: String, count: Int)] = [],
        memory: (bytes: Int, limit: Int) = (0, 0)
    ) -> String {
        var text = """
            # HELP overlayd_build_info The running build: overlayd's version and the Swift compiler's.
            # TYPE overlayd_build_info gauge
            overlayd_build_info{version="\(OverlayService.version)",swift="\(Self.swiftVersion)"} 1
            # HELP overlayd_http_responses_total HTTP responses sent, by status.
            # TYPE overlayd_http_responses_total counter

            """
        for status in ResponseCounts.statuses {
            let count = responses.value(status: status)
            guard count > 0 else { continue }
            text += "overlayd_http_responses_total{status=\"\(status)\"} \(count)\n"
        }
        text += renderDurations()
        text += """
            # HELP overlayd_auth_failures_total Requests refused for their credential or access, by reason.
            # TYPE overlayd_auth_failures_total counter

            """
        for (reason, count) in authFailures { text += "overlayd_auth_failures_total{reason=\"\(reason)\"} \(count)\n" }
        text += """
            # HELP overlayd_message_memory_bytes What every channel's messages hold, as limits.maxMemoryBytes counts it.
            # TYPE overlayd_message_memory_bytes gauge
            overlayd_message_memory_bytes \(memory.bytes)
            # HELP overlayd_message_memory_limit_bytes limits.maxMemoryBytes: past it, writes are 503 memory_full.
            # TYPE overlayd_message_memory_limit_bytes gauge
            overlayd_message_memory_limit_bytes \(memory.limit)

            """
        text += """
            # HELP overlayd_messages_posted_total Messages accepted as new (202).
            # TYPE overlayd_messages_posted_total counter
            overlayd_messages_posted_total \(posted.value())
            # HELP overlayd_queue_length Messages waiting, by channel.
            # TYPE overlayd_queue_length gauge

            """
        for channel in channels {
            text += "overlayd_queue_length{channel=\"\(channel.name)\"} \(channel.overlay.queued)\n"
        }
        text += """
            # HELP overlayd_scheduled_messages Messages scheduled for later (delay or at), by channel.
            # TYPE overlayd_scheduled_messages gauge

            """
        for channel in channels {
            text += "overlayd_scheduled_messages{channel=\"\(channel.name)\"} \(channel.overlay.scheduled)\n"
        }
        text += """
            # HELP overlayd_overlay_version The overlay's version, by channel.
            # TYPE overlayd_overlay_version gauge

            """
        for channel in channels {
            text += "overlayd_overlay_version{channel=\"\(channel.name)\"} \(channel.overlay.version)\n"
        }
        text += """
            # HELP overlayd_event_streams Open Server-Sent Event streams, by channel.
            # TYPE overlayd_event_streams gauge

            """
        for channel in channels {
            text += "overlayd_event_streams{channel=\"\(channel.name)\"} \(channel.subscribers)\n"
        }
        text += """
            # HELP overlayd_long_poll_waiters Long-poll requests waiting for a change, by channel.
            # TYPE overlayd_long_poll_waiters gauge

            """
        for channel in channels {
            text += "overlayd_long_poll_waiters{channel=\"\(channel.name)\"} \(channel.waiters)\n"
        }
        text += """
            # HELP overlayd_overlay_phase 1 for the phase each channel's overlay is in.
            # TYPE overlayd_overlay_phase gauge

            """
        for channel in channels {
            for phase in Phase.allCases {
                let value = channel.overlay.phase == phase ? 1 : 0
                text += "overlayd_overlay_phase{channel=\"\(channel.name)\",phase=\"\(phase.rawValue)\"} \(value)\n"
            }
        }
        if let publishing { text += render(publishing) }
        return text
    }

    /// The duration histogram: cumulative buckets, sum and count for each route and method that
    /// has seen a request (a series with none is left out, as Prometheus allows).
    private func renderDurations() -> String {
        var text = """
            # HELP overlayd_request_duration_seconds Time from a request's first byte to its answer being queued, by route pattern and method.
            # TYPE overlayd_request_duration_seconds histogram

            """
        for (route, label) in durations.routes.enumerated() {
            for (method, name) in RequestDurations.methods.enumerated() {
                let series = durations.series(route: route, method: method)
                guard series.count > 0 else { continue }
                let labels = "route=\"\(label)\",method=\"\(name)\""
                for (bound, count) in zip(RequestDurations.bounds + ["+Inf"], series.buckets) {
                    text += "overlayd_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(count)\n"
                }
                text += "overlayd_request_duration_seconds_sum{\(labels)} \(series.sum)\n"
                text += "overlayd_request_duration_seconds_count{\(labels)} \(series.count)\n"
            }
        }
        return text
    }

    /// The publisher's counters (present only when `publish` is set).
    private func render(_ publishing: PublisherStatistics) -> String {
        """
        # HELP overlayd_publish_published_total Versions the publish endpoint accepted (2xx).
        # TYPE overlayd_publish_published_total counter
        overlayd_publish_published_total \(publishing.published)
        # HELP overlayd_publish_failed_total Publish requests that failed (no answer or an error status).
        # TYPE overlayd_publish_failed_total counter
        overlayd_publish_failed_total \(publishing.failed)
        # HELP overlayd_publish_retried_total Publish requests made while the endpoint was failing.
        # TYPE overlayd_publish_retried_total counter
        overlayd_publish_retried_total \(publishing.retried)
        # HELP overlayd_publish_superseded_total Versions not sent because a newer one of their channel came first.
        # TYPE overlayd_publish_superseded_total counter
        overlayd_publish_superseded_total \(publishing.superseded)
        # HELP overlayd_publish_queue_depth Versions waiting to be published.
        # TYPE overlayd_publish_queue_depth gauge
        overlayd_publish_queue_depth \(publishing.queued)
        # HELP overlayd_publish_up 1 while publish requests succeed, 0 while the endpoint is failing.
        # TYPE overlayd_publish_up gauge
        overlayd_publish_up \(publishing.failing ? 0 : 1)

        """
    }
}
