import { execFileSync } from 'node:child_process';

// A model file only defines: loading every model (as the models endpoint does) runs nothing of
// the OneBot receiver, does not load the regex engine, and leaves V8's flags as they were.
test('loading every model loads neither the receiver nor the regex engine', () => {
  const script = `
    require('./shared/models/every-model').allModels();
    const loaded = Object.keys(require.cache).filter((path) => /shared[\\\\/]onebot[\\\\/]|node_modules[\\\\/]re2js/.test(path));
    let linear = true;
    try { new RegExp('a', 'l'); } catch { linear = false; }
    console.log(JSON.stringify({ loaded, linear }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: `${__dirname}/../../..`, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ loaded: [], linear: false });
});
