/// The bookkeeping of `ResumedConnectionWatch`, with time passed in: which sockets are watched
/// for their next request, and which of them are due to be looked at.
///
/// A watch is looked at only once it is `grace` old (almost every next request starts well
/// before and ends it), and forgotten once it is `limit` old, or its socket is found closed.
/// Watching a socket again (its number given to a new connection, or its next answer) is a new
/// watch; what is kept of the old one is ignored.
struct WatchedSockets {
    let grace: Int64
    let limit: Int64
    /// When each socket's current watch began, indexed by socket number (`notWatched` if none).
    /// Socket numbers are small and dense: an array costs no hashing and no probing, on every
    /// answer after a suspension and every next request.
    private var since: [Int64] = []
    private static let notWatched = Int64.min
    /// How many sockets are watched.
    private(set) var count = 0
    /// The watches in the order they began, from `head` on: each is looked at once its grace is
    /// over, and moved to `due` if it still stands.
    private var began: [(socket: Int32, since: Int64)] = []
    private var head = 0
    /// Watches past their grace: socket → when the watch began.
    private var due: [Int32: Int64] = [:]

    init(grace: Int64, limit: Int64) {
        self.grace = grace
        self.limit = limit
    }

    mutating func watch(_ socket: Int32, at now: Int64) {
        let index = Int(socket)
        guard index >= 0 else { return }
        if index >= since.count {
            since.append(
                contentsOf: repeatElement(Self.notWatched, count: max(index + 1, since.count * 2) - since.count))
        }
        if since[index] == Self.notWatched { count += 1 }
        since[index] = now
        began.append((socket, now))
    }

    /// Its next request started; `false` if it was not watched.
    @discardableResult
    mutating func unwatch(_ socket: Int32) -> Bool {
        guard watchBegan(socket) != nil else { return false }
        since[Int(socket)] = Self.notWatched
        count -= 1
        return true
    }

    /// When `socket`'s current watch began, if it is watched.
    private func watchBegan(_ socket: Int32) -> Int64? {
        let index = Int(socket)
        guard index >= 0, index < since.count, since[index] != Self.notWatched else { return nil }
        return since[index]
    }

    /// The sockets whose watch is past its grace and stands at `now`; watches that ended
    /// (unwatched, or `limit` old) are forgotten.
    mutating func due(at now: Int64) -> [Int32] {
        while head < began.count, began[head].since <= now - grace {
            let (socket, began) = began[head]
            if watchBegan(socket) == began { due[socket] = began }
            head += 1
        }
        if head == began.count {
            began.removeAll(keepingCapacity: began.count < 4096)
            head = 0
        } else if head > 4096 && head * 2 > began.count {
            began.removeFirst(head)
            head = 0
        }
        var sockets: [Int32] = []
        for (socket, began) in due {
            if watchBegan(socket) != began {
                due[socket] = nil
            } else if began + limit <= now {
                due[socket] = nil
                unwatch(socket)
            } else {
                sockets.append(socket)
            }
        }
        return sockets
    }

    /// Sockets that `due` gave and that turned out closed: their watch ends, unless the number
    /// was watched again since (a new connection).
    mutating func closed(_ sockets: [Int32]) {
        for socket in sockets {
            if let began = due.removeValue(forKey: socket), watchBegan(socket) == began {
                unwatch(socket)
            }
        }
    }
}
