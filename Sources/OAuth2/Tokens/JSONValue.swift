import Foundation

/// A JSON value that is `Sendable` and `Hashable`, for claims and server metadata.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Decodes any JSON.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes as the same JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as Foundation types: `String`, `Int` (for whole numbers) or `Double`, `Bool`,
    /// `[Any]`, `[String: Any]` (with `NSNull` for nulls inside them), or `nil` for JSON null.
    public var anyValue: Any? {
        switch self {
        case .null: nil
        case .bool(let value): value
        case .number(let value):
            value.rounded() == value && abs(value) < 9e15 ? Int(value) : value
        case .string(let value): value
        case .array(let values): values.map { $0.anyValue ?? NSNull() }
        case .object(let values): values.mapValues { $0.anyValue ?? NSNull() }
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}
