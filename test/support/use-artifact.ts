import './use-dynalite';

// test/support/api.ts then serves the suites from the bundles in cdk.out (test/support/artifact).
process.env.RG_TEST_TARGET = 'artifact';
