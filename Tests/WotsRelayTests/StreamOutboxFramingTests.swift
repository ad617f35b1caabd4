import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
import WotsCore

@testable import WotsRelay

/// Text frames are framed by the outbox itself and written past the WebSocket library's encoder in one buffer: the
/// bytes on the socket are the ones the library would have written, a close frame still fences everything after it,
/// and a batch holding any other kind of frame goes through the library's handlers.
@Suite struct StreamOutboxFramingTests {
    /// A socket's outbound pipeline as the relay builds it: the library's encoder, then `CloseFence`.
    static func fencedChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        try channel.pipeline.syncOperations.addHandler(CloseFence())
        return channel
    }

    /// Every buffer written to the socket, in order.
    static func buffers(_ channel: EmbeddedChannel) throws -> [ByteBuffer] {
        var buffers: [ByteBuffer] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { buffers.append(buffer) }
        return buffers
    }

    static func joined(_ buffers: [ByteBuffer]) -> [UInt8] { buffers.flatMap { Array($0.readableBytesView) } }

    /// What the relay's pipeline and the library's encoder alone each write for the same frames.
    static func writtenBoth(
        maximumFrameSize: Int = 1 << 17,
        _ frames: (StreamWriter) throws -> [WebSocketFrame]
    ) throws -> (framed: [ByteBuffer], library: [ByteBuffer]) {
        let framed = try Self.fencedChannel()
        let library = EmbeddedChannel()
        try library.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
        for channel in [framed, library] {
            let writer = StreamWriter(channel: channel, maximumFrameSize: maximumFrameSize)
            let done = writer.write(try frames(writer))
            channel.embeddedEventLoop.run()
            try done.wait()
        }
        return (try Self.buffers(framed), try Self.buffers(library))
    }

    /// Replies whose JSON is short (7-bit length), medium (16-bit) and long (64-bit, split at the frame limit).
    static let frames: [RelayFrame] = [
        .subscribed(ref: "a", directory: true),
        .error(ref: "b", id: nil, code: .invalidFrame, message: String(repeating: "m", count: 300)),
        .error(ref: "c", id: nil, code: .invalidFrame, message: String(repeating: "l", count: 70_000)),
    ]

    @Test func textFramesGoOutInOneBufferByteForByteAsTheLibraryFramesThem() throws {
        let last: [RelayFrame] = [.subscribed(ref: "d", directory: false)]
        let written = try Self.writtenBoth { try $0.encode(Self.frames) + $0.encode(last) }
        #expect(written.framed.count == 1, "one write for the whole batch")
        #expect(Self.joined(written.framed) == Self.joined(written.library))
    }

    @Test func continuationFramesAreFramedAsTheLibraryFramesThem() throws {
        let written = try Self.writtenBoth(maximumFrameSize: 100) { try $0.encode([Self.frames[1]]) }
        #expect(Self.joined(written.framed) == Self.joined(written.library))
    }

    @Test func everyWriteOfTheBatchSucceedsOnceItsBytesAreWritten() throws {
        let channel = try Self.fencedChannel()
        let writer = StreamWriter(channel: channel, maximumFrameSize: 1 << 17)
        let writes = try (0..<3).map { _ in writer.write(try writer.encode([Self.frames[0]])) }
        channel.embeddedEventLoop.run()
        for write in writes { try write.wait() }
        #expect(try Self.buffers(channel).count == 1)
    }

    @Test func textFramedAfterACloseFrameFailsAndIsNotWritten() throws {
        let channel = try Self.fencedChannel()
        let writer = StreamWriter(channel: channel, maximumFrameSize: 1 << 17)
        let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: [0x03, 0xE8]))
        try channel.writeAndFlush(close).wait()
        let closeBytes = Self.joined(try Self.buffers(channel))

        let late = writer.write(try writer.encode([Self.frames[0], Self.frames[0]]))
        channel.embeddedEventLoop.run()

        #expect(throws: ChannelError.outputClosed) { try late.wait() }
        #expect(closeBytes == [0x88, 0x02, 0x03, 0xE8])
        #expect(try Self.buffers(channel).isEmpty)
    }

    @Test func aBatchWithAPingGoesThroughTheLibraryInOrder() throws {
        let ping = WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())
        let written = try Self.writtenBoth { try $0.encode([Self.frames[0]]) + [ping] + $0.encode([Self.frames[1]]) }
        #expect(written.framed.count > 1, "frame by frame, through the encoder")
        #expect(Self.joined(written.framed) == Self.joined(written.library))
    }
}
