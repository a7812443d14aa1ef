import Testing
import VaultCore

/// The dictionary a PostgreSQL vault's known state keeps rows in: copies stay independent,
/// the newest value wins across merges, and it never holds more than its capacity.
struct LayeredDictionaryTests {
    @Test func aCopyChangedLeavesTheOriginalAsItWas() {
        var original = LayeredDictionary<Int, String>()
        for key in 0..<500 { original[key] = "a\(key)" }
        var copy = original
        for key in 0..<300 { copy[key] = "b\(key)" }
        copy[1000] = "new"
        copy[7] = nil
        #expect(original[7] == "a7")
        #expect(original[299] == "a299")
        #expect(original[1000] == nil)
        #expect(copy[7] == nil)
        #expect(copy[299] == "b299")
        #expect(copy[499] == "a499")
        #expect(copy[1000] == "new")
    }

    @Test func theNewestValueWinsWhateverLayerHoldsTheOlder() {
        var values = LayeredDictionary<Int, Int>()
        for round in 0..<10 {
            for key in 0..<200 { values[key] = round * 1000 + key }
        }
        #expect((0..<200).allSatisfy { values[$0] == 9000 + $0 })
        let even = values.filter { $0 % 2 == 0 }
        #expect(even[4] == 9004)
        #expect(even[5] == nil)
        values.removeAll()
        #expect(values[4] == nil)
    }

    @Test func anOptionalValueOfNoneIsKeptApartFromNoEntry() {
        var rows = LayeredDictionary<Int, String?>()
        rows[1] = .some(nil)
        #expect(rows[1] == .some(nil))
        #expect(rows[2] == nil)
    }

    @Test func itForgetsEverythingRatherThanGrowPastItsCapacity() {
        var values = LayeredDictionary<Int, Int>()
        let capacity = LayeredDictionary<Int, Int>.capacity
        for key in 0..<(capacity * 3) { values[key] = key }
        let kept = (0..<(capacity * 3)).filter { values[$0] != nil }
        #expect(kept.count <= capacity + LayeredDictionary<Int, Int>.topCapacity)
        // What is still known is right.
        #expect(kept.allSatisfy { values[$0] == $0 })
        #expect(values[capacity * 3 - 1] == capacity * 3 - 1)
    }
}
