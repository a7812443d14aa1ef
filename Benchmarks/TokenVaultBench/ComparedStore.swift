import Foundation

/// A secret store the cli section times per process call: how to read one of its secrets and how
/// to add one, each as a command line of its own.
protocol ComparedStore {
    /// The name in the tables and the report.
    var name: String { get }
    /// The call printing the secret `secret-INDEX`, one the store was filled with.
    func read(_ index: Int) -> ProcessCall
    /// The call adding a new secret named after `index`.
    func add(_ index: Int) -> ProcessCall
}
