import Histogram

/// Send-to-delivery latency percentiles in milliseconds, from a histogram of microseconds.
struct Latency {
    let p50: Double
    let p99: Double
    let p999: Double
    let maximum: Double

    init(_ histogram: Histogram<UInt64>) {
        self.p50 = Double(histogram.valueAtPercentile(50)) / 1000
        self.p99 = Double(histogram.valueAtPercentile(99)) / 1000
        self.p999 = Double(histogram.valueAtPercentile(99.9)) / 1000
        self.maximum = Double(histogram.max) / 1000
    }
}
