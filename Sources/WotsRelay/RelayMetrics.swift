import CoreMetrics
import Prometheus
import Synchronization
import WotsCore

/// The relay's counters and gauges, kept in its own Prometheus registry (no global bootstrap, so several relays
/// can live in one test process) and exported in text format on `/metrics`.
public final class RelayMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let errorCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let requestCounters = Mutex<[String: CoreMetrics.Counter]>([:])

    let messagesStored: CoreMetrics.Counter
    let messagesDelivered: CoreMetrics.Counter
    let messagesAcknowledged: CoreMetrics.Counter
    let registrations: CoreMetrics.Counter
    let openConnections: Meter
    let mailboxWaiting: CoreMetrics.Gauge
    let mailboxDeepest: CoreMetrics.Gauge
    let messagesExpired: CoreMetrics.Counter
    let expiryNotices: CoreMetrics.Gauge
    let noticesCleared: CoreMetrics.Counter
    let quotaRefusals: CoreMetrics.Counter
    let blobBytesUploaded: CoreMetrics.Counter
    let blobBytesStored: CoreMetrics.Gauge

    public init() {
        self.registry = PrometheusCollectorRegistry()
        self.factory = PrometheusMetricsFactory(registry: self.registry)
        self.messagesStored = CoreMetrics.Counter(label: "wots_messages_stored_total", factory: self.factory)
        self.messagesDelivered = CoreMetrics.Counter(label: "wots_messages_delivered_total", factory: self.factory)
        self.messagesAcknowledged = CoreMetrics.Counter(
            label: "wots_messages_acknowledged_total",
            factory: self.factory
        )
        self.registrations = CoreMetrics.Counter(label: "wots_registrations_total", factory: self.factory)
        self.openConnections = Meter(label: "wots_websocket_connections", factory: self.factory)
        self.mailboxWaiting = CoreMetrics.Gauge(label: "wots_mailbox_messages_waiting", factory: self.factory)
        self.mailboxDeepest = CoreMetrics.Gauge(label: "wots_mailbox_depth_max", factory: self.factory)
        self.messagesExpired = CoreMetrics.Counter(label: "wots_messages_expired_total", factory: self.factory)
        self.expiryNotices = CoreMetrics.Gauge(label: "wots_expiry_notices_waiting", factory: self.factory)
        self.noticesCleared = CoreMetrics.Counter(label: "wots_expiry_notices_cleared_total", factory: self.factory)
        self.quotaRefusals = CoreMetrics.Counter(label: "wots_mailbox_quota_refusals_total", factory: self.factory)
        self.blobBytesUploaded = CoreMetrics.Counter(label: "wots_blob_bytes_uploaded_total", factory: self.factory)
        self.blobBytesStored = CoreMetrics.Gauge(label: "wots_blob_bytes_stored", factory: self.factory)
    }

    func countRequest(route: String, status: Int) {
        let key = "\(route) \(status)"
        let counter = self.requestCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "wots_http_requests_total",
                dimensions: [("route", route), ("status", String(status))],
                factory: self.factory
            )
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    func countError(code: ErrorCode) {
        let counter = self.errorCounters.withLock { counters in
            if let counter = counters[code.name] { return counter }
            let counter = CoreMetrics.Counter(
                label: "wots_errors_total",
                dimensions: [("code", code.name)],
                factory: self.factory
            )
            counters[code.name] = counter
            return counter
        }
        counter.increment()
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        self.registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
