// Applies the dynalite patches (patches/) where this project is being developed. Installed into
// another project as a dependency (then it lives inside that project's node_modules), it has
// neither dynalite (a devDependency) nor patch-package, and nothing to patch: npm runs this
// there too, so it does nothing. A failure to patch here stops the install, as it should.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
if (!here.split(path.sep).includes('node_modules')) {
  execFileSync(process.execPath, [require.resolve('patch-package/index.js')], { cwd: here, stdio: 'inherit' });
}
