import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx with the nchan module, its messages in a Redis of its own: both started by the
/// test on free loopback ports with a generated configuration, in a temporary directory, and
/// stopped when released. nginx and Redis can each be stopped and started again on the same ports.
final class NchanServer: @unchecked Sendable {
    static let module = "/usr/lib/nginx/modules/ngx_nchan_module.so"

    /// nginx, the nchan module and redis-server are installed.
    static var isAvailable: Bool {
        ChildProcess.find("nginx") != nil && access(module, R_OK) == 0 && ChildProcess.find("redis-server") != nil
    }

    /// CI sets OVERLAYD_REQUIRE_NCHAN=1: there a missing nginx fails the tests instead of skipping them.
    static var isRequired: Bool { getenv("OVERLAYD_REQUIRE_NCHAN").map { String(cString: $0) } == "1" }

    let directory: TemporaryDirectory
    let port: Int
    let redisPort: Int
    private var nginx: ChildProcess?
    private var redis: ChildProcess?

    /// Messages each channel keeps for readers that resume.
    static let bufferLength = 100

    init() throws {
        directory = try TemporaryDirectory()
        // nginx's workers run as an unprivileged user when the test runs as root: they must reach
        // the directory.
        chmod(directory.path, 0o755)
        port = try Loopback.freePort()
        redisPort = try Loopback.freePort()
        try directory.write("nginx.conf", configuration())
        try startRedis()
        try startNginx()
    }

    /// nginx by SIGTERM: its master then stops the workers (killed, it would leave them running).
    deinit {
        nginx?.stop(signal: SIGTERM)
        redis?.stop(signal: SIGKILL)
    }

    /// Worker processes that died (nchan asserts crash them); the master starts new ones.
    var workerCrashes: Int {
        errorLog.split(separator: "\n").filter { $0.contains("exited on signal") }.count
    }

    /// The template overlayd's `publish` takes.
    var publishTemplate: String { "http://127.0.0.1:\(port)/pub/{channel}" }

    func startRedis() throws {
        let log = directory.path + "/redis.log"
        redis = try ChildProcess(
            try Self.program("redis-server"),
            [
                "--port", "\(redisPort)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir",
                directory.path,
            ], output: log, errors: log)
        // Redis itself answers there: a PONG, not merely a connection something else accepted.
        guard eventually({ Self.ping(redisPort) }) else {
            throw TestSupportError("redis-server did not answer:\n" + TemporaryDirectory.read(log))
        }
    }

    /// Whether a Redis answers PING on `port`.
    private static func ping(_ port: Int) -> Bool {
        guard let client = try? RawClient(port: port, timeoutSeconds: 2), (try? client.send("PING\r\n")) != nil,
            let reply = Loopback.read(client.socket, milliseconds: 2000)
        else { return false }
        return String(decoding: reply, as: UTF8.self).hasPrefix("+PONG")
    }

    private static func program(_ name: String) throws -> String {
        guard let path = ChildProcess.find(name) else { throw TestSupportError("\(name) is not installed") }
        return path
    }

    /// Kills Redis (all it held is lost: it runs without persistence).
    func killRedis() {
        redis?.stop(signal: SIGKILL)
        redis = nil
    }

    func startNginx() throws {
        let readyBefore = readyLines
        let log = directory.path + "/nginx.out"
        nginx = try ChildProcess(
            try Self.program("nginx"), ["-p", directory.path, "-c", directory.path + "/nginx.conf"], output: log,
            errors: log)
        // Ready once nchan says it has reached Redis (until then subscribers may be turned away)
        // and the publisher location answers, from nginx itself.
        let ready = eventually {
            guard readyLines > readyBefore,
                let reply = try? RawClient.request(
                    "GET", "/pub/readiness", port: port, halfClose: false, timeoutSeconds: 2)
            else { return false }
            return reply.status != 503 && reply.header("Server")?.hasPrefix("nginx") == true
        }
        guard ready else {
            throw TestSupportError(
                "nginx with nchan did not become ready:\n" + TemporaryDirectory.read(directory.path + "/error.log")
                    + TemporaryDirectory.read(log))
        }
    }

    func stopNginx() {
        nginx?.stop(signal: SIGTERM)
        nginx = nil
    }

    var errorLog: String { TemporaryDirectory.read(directory.path + "/error.log") }

    /// How often nchan has logged that its Redis upstream is ready.
    private var readyLines: Int {
        errorLog.split(separator: "\n").filter { $0.contains("Redis upstream redis: ready") }.count
    }

    private func configuration() -> String {
        let path = directory.path
        return """
            load_module \(NchanServer.module);
            daemon off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log notice;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                upstream redis {
                    nchan_redis_server 127.0.0.1:\(redisPort);
                    nchan_redis_reconnect_delay 200ms;
                    nchan_redis_reconnect_delay_max 1s;
                    nchan_redis_connect_timeout 2s;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location ~ "^/pub/([A-Za-z0-9._-]{1,64})$" {
                        nchan_publisher http;
                        nchan_channel_id $1;
                        nchan_redis_pass redis;
                        nchan_message_buffer_length \(NchanServer.bufferLength);
                        nchan_message_timeout 1h;
                    }
                    location ~ "^/sub/([A-Za-z0-9._-]{1,64})$" {
                        nchan_subscriber;
                        nchan_channel_id $1;
                        nchan_redis_pass redis;
                        # Not -1 (the newest): with nchan 1.3.6 a subscriber asking for a given
                        # message of a channel that has none can crash the worker (docs/SCALING.md).
                        nchan_subscriber_first_message oldest;
                    }
                }
            }

            """
    }
}
