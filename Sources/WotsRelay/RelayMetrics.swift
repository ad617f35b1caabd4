import CoreMetrics
import Prometheus
import Synchronization
import WotsCore
import WotsStorage

/// The relay's counters and gauges, kept in its own Prometheus registry (no global bootstrap, so several relays
/// can live in one test process) and exported in text format on `/metrics`.
public final class RelayMetrics: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let errorCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let requestCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let keyFilter = Mutex<KeyFilterMetrics?>(nil)

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

    /// Records what the storage's key filter reports; its metrics appear with the first report, so a storage without
    /// one exports none.
    func record(_ statistics: MessageKeyFilterStatistics) {
        self.keyFilter.withLock { metrics in
            if metrics == nil { metrics = KeyFilterMetrics(factory: self.factory) }
            metrics?.record(statistics)
        }
    }

    /// The Prometheus text exposition of every metric.
    public func exposition() -> String {
        var buffer: [UInt8] = []
        self.registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// The key filter's gauges, and its lookup counters fed from the totals the storage reports.
private struct KeyFilterMetrics {
    let keys: CoreMetrics.Gauge
    let bytes: CoreMetrics.Gauge
    let lookupsMade: CoreMetrics.Counter
    let lookupsSpared: CoreMetrics.Counter
    private var reported = (lookupsMade: 0, lookupsSpared: 0)

    init(factory: PrometheusMetricsFactory) {
        self.keys = CoreMetrics.Gauge(label: "wots_message_key_filter_keys", factory: factory)
        self.bytes = CoreMetrics.Gauge(label: "wots_message_key_filter_bytes", factory: factory)
        self.lookupsMade = CoreMetrics.Counter(
            label: "wots_message_key_lookups_total",
            dimensions: [("result", "made")],
            factory: factory
        )
        self.lookupsSpared = CoreMetrics.Counter(
            label: "wots_message_key_lookups_total",
            dimensions: [("result", "spared")],
            factory: factory
        )
    }

    mutating func record(_ statistics: MessageKeyFilterStatistics) {
        self.keys.record(statistics.keys)
        self.bytes.record(statistics.bytes)
        // Two scrapes may report out of order: a total lower than one recorded already adds nothing.
        self.lookupsMade.increment(by: max(0, statistics.lookupsMade - self.reported.lookupsMade))
        self.lookupsSpared.increment(by: max(0, statistics.lookupsSpared - self.reported.lookupsSpared))
        self.reported.lookupsMade = max(self.reported.lookupsMade, statistics.lookupsMade)
        self.reported.lookupsSpared = max(self.reported.lookupsSpared, statistics.lookupsSpared)
    }
}
