import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Each test file gets its own table on the shared engine, so files run in parallel safely.
process.env.DYNAMODB_ENDPOINT = process.env.RG_TEST_DDBLOCAL_ENDPOINT;
process.env.TABLE_NAME = `test_${randomBytes(6).toString('hex')}`;
// Kept OneBot deliveries and bodies too big for a record go to a fresh directory, never the repo's .data.
process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-test-'));
process.env.RG_TEST_ENGINE = 'ddblocal';
