// Storage benchmark (issue 3): directory page time at the first and the last page of a large directory, and mailbox
// append throughput, per backend, beside the raw driver's own insert rate measured in the same run.
// Run through scripts/bench-storage.sh (`make bench`), which starts a throwaway PostgreSQL for the PostgreSQL half.
import ArgumentParser

/// Top-level code picks `ParsableCommand`'s synchronous `main()`; inside an async function the async one is chosen.
func runStorageBench() async {
    await StorageBench.main()
}

await runStorageBench()
