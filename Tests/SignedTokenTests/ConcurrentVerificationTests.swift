import Platform
import SignedToken
import Synchronization
import TestSupport
import Testing

/// One verifier of each algorithm shared by many threads: every answer is the one a single thread
/// gets, good tokens and bad ones alike.
@Suite("Verifying from many threads at once")
struct ConcurrentVerificationTests {
    /// 8 threads × 200 verifications, each thread going round the algorithms and between good and
    /// tampered tokens, so that libjwt and libcrypto calls of every kind overlap. Real threads, not
    /// the cooperative pool (two threads on this machine); nothing waits on a clock.
    @Test func eightThreads() throws {
        let payload = try TokenFixtures.payload()
        var cases: [(SignedTokenVerifier, String, Result<[UInt8], SignedTokenFailure>)] = []
        for algorithm in SignedTokenAlgorithm.allCases {
            let verifier = try TokenFixtures.verifier(algorithm)
            let name = algorithm.rawValue.lowercased()
            cases.append((verifier, try TokenFixtures.token(name), .success(payload)))
            if [.hs256, .rs256, .es256].contains(algorithm) {
                cases.append((verifier, try TokenFixtures.token(name + "-signature-changed"), .failure(.badSignature)))
            }
            // HS256 under another secret than the HS256 verifier's; another alg for the rest.
            let confused: SignedTokenFailure = algorithm == .hs256 ? .badSignature : .algorithmMismatch
            cases.append((verifier, try TokenFixtures.token("hs256-key-confusion"), .failure(confused)))
        }
        let shared = cases
        let wrong = Lock<[String]>([])
        let verified = Atomic<Int>(0)
        onThreads(8) { thread in
            for round in 0..<200 {
                let (verifier, token, expected) = shared[(thread + round) % shared.count]
                let result = verifier.verify(token)
                if result == expected {
                    verified.add(1, ordering: .relaxed)
                } else {
                    wrong.withLock { $0.append("thread \(thread) round \(round) \(verifier.algorithm): \(result)") }
                }
            }
        }
        #expect(wrong.withLock { $0 } == [])
        #expect(verified.load(ordering: .relaxed) == 1600)
    }
}
