internal import CCurl

/// POSTs through libcurl: one easy handle, reused, so that consecutive messages share one
/// keep-alive connection to the endpoint. Messages are JSON and carry `X-EventSource-Event:
/// overlay`, which nchan sends to EventSource subscribers as the `event:` line.
///
/// libcurl is loaded when the first transport is made (see the CCurl shim), so that an overlayd
/// that does not publish never loads it.
public final class CurlTransport: PublishTransport {
    private let api: UnsafePointer<overlayd_curl_api>
    private let handle: UnsafeMutableRawPointer
    private let headers: UnsafeMutablePointer<curl_slist>
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// libcurl's functions once loaded, or why it could not be loaded. Loaded once, before any
    /// handle exists (its global initialisation is not thread-safe on every build).
    nonisolated(unsafe) private static let library: Result<UnsafePointer<overlayd_curl_api>, LoadError> = {
        let api = UnsafeMutablePointer<overlayd_curl_api>.allocate(capacity: 1)
        var error = [CChar](repeating: 0, count: 512)
        guard overlayd_curl_load(api, &error, error.count) == 0 else {
            api.deallocate()
            return .failure(
                LoadError(reason: String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)))
        }
        return .success(UnsafePointer(api))
    }()

    /// Why libcurl cannot be used.
    public struct LoadError: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// nil if libcurl loads, else why not (for a configuration check at start-up).
    public static var unavailability: String? {
        if case .failure(let error) = library { return "libcurl (libcurl.so.4) cannot be loaded: \(error.reason)" }
        return nil
    }

    /// A transport whose requests give up after `timeout` seconds (connecting after at most
    /// `connectTimeout`); nil if libcurl cannot be loaded or make a handle.
    public init?(timeout: Double, connectTimeout: Double) {
        guard case .success(let api) = CurlTransport.library else { return nil }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        // An empty `Expect:` keeps curl from waiting for a 100 Continue before a larger body.
        for header in ["Content-Type: application/json", "X-EventSource-Event: overlay", "Expect:"] {
            guard let appended = api.pointee.slist_append(list, header) else {
                api.pointee.slist_free_all(list)
                return nil
            }
            list = appended
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer[0] = 0
        guard
            let handle = overlayd_curl_handle(
                api, Int(max(1, connectTimeout * 1000)), Int(max(1, timeout * 1000)), list, errorBuffer)
        else {
            api.pointee.slist_free_all(list)
            errorBuffer.deallocate()
            return nil
        }
        self.api = api
        self.handle = handle
        self.headers = list!
        self.errorBuffer = errorBuffer
    }

    deinit {
        api.pointee.easy_cleanup(handle)
        api.pointee.slist_free_all(headers)
        errorBuffer.deallocate()
    }

    public func post(url: String, body: [UInt8]) -> TransportResult {
        errorBuffer[0] = 0
        var status = 0
        let code = body.withUnsafeBytes { bytes in
            overlayd_curl_post(api, handle, url, bytes.baseAddress, bytes.count, &status)
        }
        guard code == CURLE_OK else {
            let detail =
                errorBuffer[0] != 0
                ? String(cString: errorBuffer)
                : api.pointee.easy_strerror(code).map { String(cString: $0) } ?? "\(code)"
            return .failed(detail)
        }
        return .status(status)
    }
}
