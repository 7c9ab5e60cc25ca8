/// Finds a name among the names of a list that grows at its end (an object's keys, a request's
/// fields), without storing them again. A handful are searched in a line, which hashes nothing;
/// past `linearSearchLimit` a dictionary of positions takes over, so that thousands of names cost
/// no quadratic time.
struct NameIndex {
    static let linearSearchLimit = 16

    private var positions: [String: Int]? = nil

    /// Where `name` is in `names`, the list's names so far.
    func position<Names: RandomAccessCollection<String>>(of name: String, in names: Names) -> Int?
    where Names.Index == Int {
        if let positions { return positions[name] }
        return names.firstIndex(of: name)
    }

    /// To be called after each append to the list, with all its names (the new one last).
    mutating func appended<Names: RandomAccessCollection<String>>(_ names: Names) where Names.Index == Int {
        if positions != nil {
            positions![names[names.count - 1]] = names.count - 1
        } else if names.count > NameIndex.linearSearchLimit {
            positions = Dictionary(uniqueKeysWithValues: zip(names, names.indices))
        }
    }
}
