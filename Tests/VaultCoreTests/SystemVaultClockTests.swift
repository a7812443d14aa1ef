import Testing
import VaultCore

@Suite struct SystemVaultClockTests {
    @Test func countsFromItsFirstUseAsContinuousClockDoes() {
        let clock = SystemVaultClock()
        let first = clock.now
        let start = ContinuousClock.now
        var spins = 0
        while ContinuousClock.now - start < .milliseconds(2) { spins += 1 }
        let elapsed = ContinuousClock.now - start
        let second = clock.now
        #expect(first >= .zero)
        #expect(spins > 0)
        // The clock's interval holds ContinuousClock's, and is the same time, not another scale.
        #expect(second - first >= elapsed)
        #expect(second - first < elapsed + .seconds(1))
        #expect(SystemVaultClock().now >= second)
    }
}
