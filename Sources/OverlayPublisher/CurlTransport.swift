import CCurl

/// POSTs through libcurl: one easy handle, reused, so that consecutive messages share one
/// keep-alive connection to the endpoint. Messages are JSON and carry `X-EventSource-Event:
/// overlay`, which nchan sends to EventSource subscribers as the `event:` line.
public final class CurlTransport: PublishTransport {
    private let handle: UnsafeMutableRawPointer
    private let headers: UnsafeMutablePointer<curl_slist>
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// curl_global_init is not thread-safe on every build; it runs once, before the first handle.
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// A transport whose requests give up after `timeout` seconds (connecting after at most
    /// `connectTimeout`); nil if libcurl cannot make a handle.
    public init?(timeout: Double, connectTimeout: Double) {
        guard CurlTransport.initialised else { return nil }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        // An empty `Expect:` keeps curl from waiting for a 100 Continue before a larger body.
        for header in ["Content-Type: application/json", "X-EventSource-Event: overlay", "Expect:"] {
            guard let appended = curl_slist_append(list, header) else {
                curl_slist_free_all(list)
                return nil
            }
            list = appended
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer[0] = 0
        guard
            let handle = overlayd_curl_handle(
                Int(max(1, connectTimeout * 1000)), Int(max(1, timeout * 1000)), list, errorBuffer)
        else {
            curl_slist_free_all(list)
            errorBuffer.deallocate()
            return nil
        }
        self.handle = handle
        self.headers = list!
        self.errorBuffer = errorBuffer
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headers)
        errorBuffer.deallocate()
    }

    public func post(url: String, body: [UInt8]) -> TransportResult {
        errorBuffer[0] = 0
        var status = 0
        let code = body.withUnsafeBytes { bytes in
            overlayd_curl_post(handle, url, bytes.baseAddress, bytes.count, &status)
        }
        guard code == CURLE_OK else {
            let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
            return .failed(detail)
        }
        return .status(status)
    }
}
