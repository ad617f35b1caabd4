import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The context of a `/v1/stream` upgrade: the basic WebSocket context plus the socket's channel, which
/// `StreamWriter` writes frames to.
struct StreamRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.channel = source.channel
    }
}
