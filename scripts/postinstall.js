// Where this project is being developed: applies the dynalite patches (patches/) and builds the
// client package (client/dist, which its tests and the forked layout's users of recordgate-client
// need). Installed into another project as a dependency (then it lives inside that project's
// node_modules), it has neither dynalite (a devDependency) nor patch-package, nothing to patch
// and no client/ to build: npm runs this there too, so it does nothing. A failure here stops the
// install, as it should.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
if (!here.split(path.sep).includes('node_modules')) {
  execFileSync(process.execPath, [require.resolve('patch-package/index.js')], { cwd: here, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(here, 'client/build.mjs')], { cwd: here, stdio: 'inherit' });
}
