/// Why a ``PostgresConnection/pipeline(_:)`` wrote nothing: the statement that failed, and its error.
/// The statements before it were rolled back with it and the ones after it were skipped.
package struct PostgresPipelineFailure: Error {
    /// The failed statement's position in the pipeline.
    package let index: Int
    /// What the server (or libpq) reported.
    package let error: PostgresError
}
