/**
 * zod/mini, the tree-shakable API, for every schema a record function loads at its cold start:
 * the full API costs about as much to load as the whole SDK allowance (docs/benchmarks.md).
 * Import it as `import * as zm from '<path>/zod'`, and full zod as `z`, so a reader tells the two
 * APIs apart in every file (test/unit/zod-names.test.ts holds the convention). The full API sets English messages when it
 * loads; the mini one starts with none, so they are set here, and an error answer reads the
 * same whichever API checked the body.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());

export * from 'zod/mini';
