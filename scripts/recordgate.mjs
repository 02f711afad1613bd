#!/usr/bin/env node
// The `recordgate` command of a project that has recordgate as a dependency (package.json "bin"):
// `npx recordgate dev --models ./models`. recordgate ships TypeScript, so tsx's loader is
// registered first, in this process (as `node --import tsx` would), then ./dev.ts runs.
import 'tsx';

await import('./dev.ts');
