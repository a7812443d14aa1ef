/// Not a failure: `exec` ran its program, and `tokenvault` exits with the program's status.
struct ChildExit: Error {
    let status: Int32
}
