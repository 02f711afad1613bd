// Preloaded into a served process (NODE_OPTIONS=--require): RG_SWAP_MODEL=<model file>=<stand-in>
// makes every require of the model file load the stand-in, as an edited model file would;
// several pairs, comma-separated, swap several files (a catalog and every-model together).
const Module = require('node:module');

const swaps = new Map((process.env.RG_SWAP_MODEL ?? '').split(',').map((pair) => pair.split('=')));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function swapped(request, ...rest) {
  const resolved = resolveFilename.call(this, request, ...rest);
  return swaps.get(resolved) ?? resolved;
};
