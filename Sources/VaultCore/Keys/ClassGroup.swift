/// One accessibility class within one access group: the unit a scoped key slot grants.
struct ClassGroup: Hashable {
    let accessibility: Accessibility
    let accessGroup: String?
}
