/// Why a piece of the tests' shared support failed, in words for the test's report.
public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
