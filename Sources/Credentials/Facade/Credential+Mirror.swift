extension Credential: CustomReflectable {
    /// What `dump()` and debuggers show: the id, the token's redacted mirror, tag names and whether
    /// it was removed — never a token string, client secret or tag value.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "token": tokenWithoutReading, "tagNames": tags.keys.sorted(), "isRemoved": isRemoved,
            ], displayStyle: .class)
    }
}
