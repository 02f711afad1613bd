// The late-write faults against the bundles in cdk.out: the same suite, with each function in its
// Lambda sandbox, reaching the table through the harness's recording proxy and then the steerable
// one. Imported rather than listed in jest.config.js's ARTIFACT_SUITES, which hold the suites
// that need no fault in the network.
import '../integration/late-writes.test';
