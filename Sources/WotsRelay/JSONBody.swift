import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import WotsCore

/// Encodes and decodes API bodies with the wire coders shared with the client.
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        Self.response(json: try WireCoding.makeEncoder().encode(value), status: status)
    }

    /// A body already encoded as `WireCoding.makeEncoder()` would encode it.
    static func response(json: some Collection<UInt8>, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: Self.headers(length: json.count),
            body: .init(byteBuffer: ByteBuffer(bytes: json))
        )
    }

    /// The headers of a JSON body of `length` bytes.
    static func headers(length: Int) -> HTTPFields {
        [.contentType: "application/json; charset=utf-8", .contentLength: String(length)]
    }

    /// Reads at most `limit` bytes of body and decodes it, turning every decoding failure into a 400 that names
    /// the field and what was wrong.
    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request, limit: Int) async throws -> Value {
        try decode(type, from: Data(try await Self.collect(request, limit: limit).readableBytesView))
    }

    /// An envelope body, read by `Envelope.scan` when it is plain JSON (what clients send), else by Foundation's
    /// decoder, whose errors name the field; Foundation's decoder was 8 % of the relay's CPU per stored message.
    static func decodeEnvelope(from request: Request, limit: Int) async throws -> Envelope {
        let bytes = Array(try await Self.collect(request, limit: limit).readableBytesView)
        if let envelope = Envelope.scan(bytes) { return envelope }
        return try decode(Envelope.self, from: Data(bytes))
    }

    private static func collect(_ request: Request, limit: Int) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch {
            throw WotsError(.requestTooLarge, "request body is larger than \(limit) bytes")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try WireCoding.makeDecoder().decode(type, from: data)
        } catch let error as WotsError {
            throw WotsError(error.code, error.reason)
        } catch let error as DecodingError {
            throw WotsError(.invalidJSON, Self.explain(error))
        } catch {
            throw WotsError(.invalidJSON, "body is not valid JSON")
        }
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }
            return keys.isEmpty ? "body" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "body" ? "\"\(key.stringValue)\" is missing" : "\(parent).\(key.stringValue) is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context)) must be \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) must be \(Self.name(of: type)), not null"
        case .dataCorrupted(let context):
            if let underlying = context.underlyingError as? WotsError { return underlying.reason }
            if context.codingPath.isEmpty { return "body is not valid JSON" }
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "body does not match the expected shape"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt64.Type, is UInt8.Type, is UInt32.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
