/// A dictionary that is cheap to copy and change a little: changes go to a small top layer over
/// a base layer that copies share. Each write transaction works on a copy of what the process knows
/// (``KnownRecordState``) and changes a few entries; with one plain dictionary, the first change to
/// a copy copied every entry, so a store took longer the more rows the process had written.
///
/// A copy's first change copies the top; merging the top into the base copies the base. With the
/// top merged at 32 entries, about the square root of ``capacity``, a change costs a few dozen
/// entry copies, however many entries there are. Past ``capacity`` entries everything is
/// forgotten: what is not known is read again, so what a long-running writer keeps stays bounded.
package struct LayeredDictionary<Key: Hashable, Value> {
    /// The most entries kept.
    package static var capacity: Int { 1024 }
    /// The most entries the top holds before it is merged into the base.
    package static var topCapacity: Int { 32 }

    private var base: [Key: Value] = [:]
    private var top: [Key: Value] = [:]

    package init() {}

    package subscript(key: Key) -> Value? {
        get { top[key] ?? base[key] }
        set {
            top[key] = newValue
            if newValue == nil { base[key] = nil }
            if top.count > Self.topCapacity { mergeTop() }
        }
    }

    /// Forgets every entry.
    package mutating func removeAll() {
        base = [:]
        top = [:]
    }

    /// The entries whose key passes `isIncluded`.
    package func filter(_ isIncluded: (Key) -> Bool) -> LayeredDictionary {
        var kept = LayeredDictionary()
        kept.base = base.merging(top) { _, newer in newer }.filter { isIncluded($0.key) }
        return kept
    }

    private mutating func mergeTop() {
        base.merge(top) { _, newer in newer }
        top = [:]
        if base.count > Self.capacity { base = [:] }
    }
}
