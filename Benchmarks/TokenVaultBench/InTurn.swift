/// Runs each of `turns` once, starting with the one at `step` (modulo their count), so none
/// always runs on the cache, connection or disk state another left: how a section times the
/// library beside its raw floors, round by round.
func inTurn(_ step: Int, _ turns: (() throws -> Void)...) throws {
    for offset in turns.indices {
        try turns[(step + offset) % turns.count]()
    }
}
