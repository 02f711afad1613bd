import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { allModels } from '../../shared/models/every-model';
import { generatedFiles } from './generate';

// `npm run client:types`: rewrites client/src/generated/ from the models in shared/models/.
const OUT = path.resolve(__dirname, '../../client/src/generated');
rmSync(OUT, { recursive: true, force: true });
for (const [file, text] of Object.entries(generatedFiles(allModels()))) {
  mkdirSync(path.dirname(path.join(OUT, file)), { recursive: true });
  writeFileSync(path.join(OUT, file), text);
}
console.log(`client/src/generated: ${Object.keys(generatedFiles(allModels())).length} files`);
